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

pub fn open(base: &Path) -> Result<Connection, String> {
    let h2c = channel(base, "_h2c_0");
    let c2h = channel(base, "_c2h_0");
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
