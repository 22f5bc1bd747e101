//! A scratch directory for one run of an outside tool, removed when dropped.

use std::path::{Path, PathBuf};

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
        use std::sync::atomic::{AtomicU64, Ordering};
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
                Ok(()) => return Ok(Scratch(d)),
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
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
