//! A pseudo-terminal for the simulated board, so that the host's serial transport opens it
//! like a USB UART. Raw mode: bytes pass unchanged.

use std::fs::File;
use std::os::fd::FromRawFd;

/// The board's end of a new pseudo-terminal, and the device path the host opens.
pub fn open() -> std::io::Result<(File, String)> {
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two descriptors into the integers given; the name, termios and
    // window size arguments may be null.
    let r = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `slave` is an open terminal descriptor; termios is plain data filled by tcgetattr.
    let path = unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        if libc::tcgetattr(slave, &mut t) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        libc::cfmakeraw(&mut t);
        if libc::tcsetattr(slave, libc::TCSANOW, &t) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let name = libc::ttyname(slave);
        if name.is_null() {
            return Err(std::io::Error::last_os_error());
        }
        std::ffi::CStr::from_ptr(name).to_string_lossy().into_owned()
    };
    // The slave stays open (leaked on purpose) so that the master does not report a hang-up
    // before the host has opened the device.
    // SAFETY: `master` is an open descriptor owned by nobody else.
    Ok((unsafe { File::from_raw_fd(master) }, path))
}
