//! A pseudo-terminal for the simulated board, so that the host's serial transport opens it
//! like a USB UART. Raw mode: bytes pass unchanged.

use nix::sys::termios::{cfmakeraw, tcgetattr, tcsetattr, SetArg};
use std::fs::File;

/// The board's end of a new pseudo-terminal, and the device path the host opens.
pub fn open() -> std::io::Result<(File, String)> {
    let pty = nix::pty::openpty(None, None)?;
    let mut t = tcgetattr(&pty.slave)?;
    cfmakeraw(&mut t);
    tcsetattr(&pty.slave, SetArg::TCSANOW, &t)?;
    let path = nix::unistd::ttyname(&pty.slave)?.to_string_lossy().into_owned();
    // The slave stays open (leaked on purpose) so that the master does not report a hang-up
    // before the host has opened the device.
    std::mem::forget(pty.slave);
    Ok((File::from(pty.master), path))
}
