//! A board (or the simulated one) behind a TCP connection.

use super::Connection;
use std::net::TcpStream;
use std::time::Duration;

pub fn open(addr: &str) -> Result<Connection, String> {
    let addrs: Vec<_> = std::net::ToSocketAddrs::to_socket_addrs(addr)
        .map_err(|e| format!("cannot resolve {addr}: {e}; check the host name"))?
        .collect();
    let mut last = format!("{addr} resolves to no address");
    for a in addrs {
        match TcpStream::connect_timeout(&a, Duration::from_secs(5)) {
            Ok(s) => {
                // Frames are small and latency-bound.
                let _ = s.set_nodelay(true);
                let reader = s.try_clone().map_err(|e| e.to_string())?;
                return Ok(Connection {
                    reader: Box::new(reader),
                    writer: Box::new(s),
                });
            }
            Err(e) => {
                last = match e.kind() {
                    std::io::ErrorKind::ConnectionRefused => format!(
                        "connecting to {a}: refused, nothing listens there: is the board (or `queens sim board --listen {addr}`) running, and is {addr} its address and port?"
                    ),
                    std::io::ErrorKind::TimedOut => format!(
                        "connecting to {a}: no answer in 5 s: is the machine on, and does its firewall let the port through?"
                    ),
                    _ => format!("connecting to {a}: {e}"),
                }
            }
        }
    }
    Err(last)
}
