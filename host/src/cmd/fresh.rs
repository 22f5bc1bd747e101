//! A campaign file that a `queens run` made and could not use: removed, so that a mistyped
//! link leaves nothing behind (the files were made by this command and hold no result).

use queens_host::link::{LinkError, LinkSpec};
use queens_host::run::RunError;
use queens_host::store::Location;
use std::path::Path;

/// After a run of a campaign this command `created` at `path`: when the run failed before
/// any board could be opened, the campaign and the files beside it are removed, and `say`
/// tells so. A campaign that was there before, or a run that got as far as its boards, is
/// kept.
pub fn forget_unused<T>(created: bool, path: &Path, outcome: &Result<T, RunError>, say: &dyn Fn(String)) {
    if !created || !matches!(outcome, Err(RunError::Link(LinkError::Open { .. }))) {
        return;
    }
    let mut removed = false;
    for f in Location::File(path.to_path_buf()).files() {
        match std::fs::remove_file(&f) {
            Ok(()) => removed |= f == path,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => tracing::warn!("{}: could not remove it: {e}", f.display()),
        }
    }
    if removed {
        say(format!(
            "removed {}, made by this command: no board could be opened, so nothing was run",
            path.display()
        ));
    }
}

/// Before a campaign is made for them: every serial port named is there (opening one may
/// reset a board, so it is only looked for; a TCP board is asked when the run opens it).
pub fn ports_exist(links: &[LinkSpec]) -> Result<(), LinkError> {
    for l in links {
        if let LinkSpec::Serial { path, .. } = l {
            if !path.exists() {
                return Err(LinkError::Open {
                    link: l.to_string(),
                    reason: queens_host::link::serial::missing(path),
                });
            }
        }
    }
    Ok(())
}
