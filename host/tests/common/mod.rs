//! Helpers the host's integration tests share: the `queens` binary, and what its output must
//! show. Each test file uses some of them.
#![allow(dead_code)]

use std::process::{Child, Command, Output, Stdio};

/// The `queens` binary of this build.
pub fn queens() -> Command {
    Command::new(env!("CARGO_BIN_EXE_queens"))
}

/// Succeeded: its standard output.
pub fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Failed, without a panic, and said each of `words` on standard error.
pub fn fails_with(o: &Output, words: &[&str]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success(),
        "succeeded: {}{err}",
        String::from_utf8_lossy(&o.stdout)
    );
    for w in words {
        assert!(err.contains(w), "{w:?} not in: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

/// `queens` with `args` and then `campaign`, in the background and silent.
pub fn spawn_quiet(args: &[&str], campaign: &std::path::Path) -> Child {
    queens()
        .args(args)
        .arg(campaign)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}
