//! A board behind PCIe through Xilinx's XDMA driver: the same frames travel over the
//! streaming host-to-card channel (`<base>_h2c_0`, written) and card-to-host channel
//! (`<base>_c2h_0`, read; the card ends each frame with TLAST, so a read returns frames).

use super::Connection;
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};

fn channel(base: &Path, suffix: &str) -> PathBuf {
    let mut p = base.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// The host-to-card and card-to-host devices of `base`.
pub fn channels(base: &Path) -> (PathBuf, PathBuf) {
    (channel(base, "_h2c_0"), channel(base, "_c2h_0"))
}

/// FIFOs standing in for the two devices of `base` (a simulated board serves on them), made
/// where missing.
pub fn make_fifos(base: &Path) -> Result<(PathBuf, PathBuf), String> {
    let (h2c, c2h) = channels(base);
    for p in [&h2c, &c2h] {
        if !p.exists() {
            nix::unistd::mkfifo(p, nix::sys::stat::Mode::S_IRUSR | nix::sys::stat::Mode::S_IWUSR)
                .map_err(|e| format!("making the FIFO {}: {e}", p.display()))?;
        }
    }
    Ok((h2c, c2h))
}

pub fn open(base: &Path) -> Result<Connection, String> {
    let (h2c, c2h) = channels(base);
    let why = |p: &Path, e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::NotFound {
            format!(
                "{} does not exist (is the XDMA driver loaded and the board enumerated?)",
                p.display()
            )
        } else {
            format!("{}: {e}", p.display())
        }
    };
    let writer = OpenOptions::new()
        .write(true)
        .open(&h2c)
        .map_err(|e| why(&h2c, e))?;
    let reader = OpenOptions::new()
        .read(true)
        .open(&c2h)
        .map_err(|e| why(&c2h, e))?;
    Ok(Connection {
        reader: Box::new(reader),
        writer: Box::new(writer),
    })
}
