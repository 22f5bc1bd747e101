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
    /// A fresh directory `<tmp>/<prefix>-<process>-<sequence>`.
    pub fn new(prefix: &str) -> Result<Scratch, ScratchError> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let d = std::env::temp_dir().join(format!(
            "{prefix}-{}-{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&d).map_err(|e| error(&d, e))?;
        Ok(Scratch(d))
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
