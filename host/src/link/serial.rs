//! A board behind a serial port (the boards' USB UARTs): 8N1, no flow control, opened
//! exclusively so that a second program cannot interleave frames.

use super::Connection;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

pub fn open(path: &Path, baud: u32) -> Result<Connection, String> {
    let name = path.to_string_lossy();
    let port = serialport::new(name.as_ref(), baud)
        .data_bits(serialport::DataBits::Eight)
        .parity(serialport::Parity::None)
        .stop_bits(serialport::StopBits::One)
        .flow_control(serialport::FlowControl::None)
        .timeout(Duration::from_millis(200))
        .open_native()
        .map_err(|e| match e.kind() {
            _ if e.description.contains("exclusive") => format!("{name}: busy: another program has it open"),
            serialport::ErrorKind::NoDevice | serialport::ErrorKind::Io(std::io::ErrorKind::NotFound) => {
                missing(path)
            }
            serialport::ErrorKind::Io(std::io::ErrorKind::PermissionDenied) => {
                format!("{name}: permission denied: add yourself to the port's group (often dialout: `sudo usermod -aG dialout $USER`, then log in again)")
            }
            _ => format!("{name}: {e}"),
        })?;
    let reader = port.try_clone_native().map_err(|e| format!("{name}: {e}"))?;
    Ok(Connection {
        reader: Box::new(Patient(reader)),
        writer: Box::new(port),
    })
}

/// What to say of a serial port that is not there.
pub fn missing(path: &Path) -> String {
    format!(
        "{}: no such serial port: is the board plugged in and powered? `ls /dev/ttyUSB* /dev/ttyACM*` lists the serial ports this machine has",
        path.display()
    )
}

/// A serial read times out when the line is quiet; that is not the end of the stream.
struct Patient(serialport::TTYPort);

impl Read for Patient {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => continue,
                // A pseudo-terminal or USB UART that went away reads as 0 bytes or EIO.
                r => return r,
            }
        }
    }
}
