//! How long the dispatcher waits for a result before sending its subproblem again.

use std::time::Duration;

/// How long to wait for a result before sending its subproblem again.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// Before a link has returned anything (its latency is unknown), or always when `fixed`.
    pub first: Duration,
    /// Otherwise `factor` times the longest recent latency of the link, at least `floor`.
    pub factor: f64,
    pub floor: Duration,
    pub fixed: bool,
    /// A result older than `suspect` times the longest recent latency is probably lost: its
    /// slot in the window goes to new work (up to the link's slack) until it times out.
    pub suspect: f64,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            first: Duration::from_secs(10),
            factor: 8.0,
            floor: Duration::from_millis(50),
            fixed: false,
            suspect: 2.0,
        }
    }
}
