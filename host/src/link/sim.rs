//! The simulated board in this process: `queens_sim::board::Board` on a thread of its own,
//! connected through a socket pair, so the host drives it exactly like a board on a cable.

use super::{Connection, SimSettings};
use queens_sim::board::{Board, BoardConfig};
use std::os::unix::net::UnixStream;

pub fn open(s: SimSettings) -> Result<Connection, String> {
    let (host, board) = UnixStream::pair().map_err(|e| e.to_string())?;
    let input = board.try_clone().map_err(|e| e.to_string())?;
    std::thread::Builder::new()
        .name("sim-board".into())
        .spawn(move || {
            let mut b = Board::new(BoardConfig {
                size: s.size,
                units: s.units,
                clock_hz: s.clock_hz,
                with_cycles: s.with_cycles,
                unit: s.unit,
                faults: s.faults,
                seed: s.seed,
            });
            let mut out = board;
            // Ends when the host closes its end.
            let _ = b.serve(input, &mut out);
        })
        .map_err(|e| e.to_string())?;
    let reader = host.try_clone().map_err(|e| e.to_string())?;
    Ok(Connection {
        reader: Box::new(reader),
        writer: Box::new(host),
    })
}
