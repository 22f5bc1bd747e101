//! A scratch directory for one run of an outside tool, removed when dropped, and the tool's
//! process. Both are also on a list of what is alive now, for [`interrupt`]: a signal ends the
//! process without dropping anything, and a Ctrl-C during a place and route would otherwise
//! leave its directories (and, for a kill, its tools) behind.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Scratch directories not yet dropped.
static DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// Process ids of the tools being waited for.
static TOOLS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Set by [`interrupt`]: the process is about to end.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Stops every tool being waited for (SIGTERM) and removes every scratch directory alive;
/// for an interrupt handler, which then ends the process. Returns how many directories it
/// removed.
pub fn interrupt() -> usize {
    INTERRUPTED.store(true, Ordering::SeqCst);
    for pid in locked(&TOOLS).drain(..) {
        // The id is a child of ours being waited for, or one reaped a moment ago (it leaves
        // the list just after its wait).
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid as i32),
            nix::sys::signal::Signal::SIGTERM,
        );
    }
    let dirs = std::mem::take(&mut *locked(&DIRS));
    for d in &dirs {
        let _ = std::fs::remove_dir_all(d);
    }
    dirs.len()
}

/// Runs `cmd` to its end like [`Command::output`], on the list of tools [`interrupt`] stops.
pub fn run_tool(cmd: &mut Command) -> std::io::Result<Output> {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let pid = child.id();
    locked(&TOOLS).push(pid);
    let out = child.wait_with_output();
    locked(&TOOLS).retain(|&p| p != pid);
    // A Ctrl-C reaches the tools and this process at once. A tool it killed is no failed
    // run: give the interrupt handler (another thread) a moment to end the process first.
    if out.as_ref().is_ok_and(|o| o.status.signal().is_some()) {
        for _ in 0..40 {
            if INTERRUPTED.load(Ordering::SeqCst) {
                loop {
                    std::thread::park();
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    out
}

/// A file or directory of the scratch area that could not be made, written or read.
#[derive(Debug)]
pub struct ScratchError {
    pub path: String,
    pub reason: String,
}

pub struct Scratch(PathBuf);

impl Scratch {
    /// A fresh directory `<tmp>/<prefix>-<process>-<sequence>-<random>`, made exclusively:
    /// a directory of that name that exists already (another user's, a stale one) is never
    /// taken over, nor removed when the scratch area is dropped.
    pub fn new(prefix: &str) -> Result<Scratch, ScratchError> {
        use std::hash::{BuildHasher, Hasher};
        use std::sync::atomic::AtomicU64;
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let tmp = std::env::temp_dir();
        let mut attempt = 0;
        loop {
            // RandomState is seeded from the OS: a name nobody can predict.
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(attempt);
            let d = tmp.join(format!(
                "{prefix}-{}-{}-{:08x}",
                std::process::id(),
                SEQ.fetch_add(1, Ordering::Relaxed),
                h.finish() as u32
            ));
            match std::fs::create_dir(&d) {
                Ok(()) => {
                    locked(&DIRS).push(d.clone());
                    return Ok(Scratch(d));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
                Err(e) => return Err(error(&d, e)),
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn write(&self, name: &str, text: &str) -> Result<(), ScratchError> {
        let p = self.0.join(name);
        std::fs::write(&p, text).map_err(|e| error(&p, e))
    }

    /// A file's text, or an error naming it.
    pub fn read(&self, name: &str) -> Result<String, ScratchError> {
        let p = self.0.join(name);
        std::fs::read_to_string(&p).map_err(|e| error(&p, e))
    }
}

fn error(p: &Path, e: std::io::Error) -> ScratchError {
    ScratchError {
        path: p.display().to_string(),
        reason: e.to_string(),
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        locked(&DIRS).retain(|d| d != &self.0);
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
