//! How long a board would take for the whole of Q(N): the cycle model runs a sample of the
//! subproblems, and the board's units, clock and link turn the mean into hours. A UART link
//! can bound a board of many fast units, so both bounds are reported.

use crate::model::run_subproblem;
use queens_core::result::ResultRecord;
use queens_core::{frame, word, BoardSize, Subproblem};
use rayon::prelude::*;

#[derive(Debug, Clone, serde::Serialize)]
pub struct Estimate {
    pub n: u32,
    pub subproblems: u64,
    pub sampled: usize,
    /// Mean unit cycles per subproblem in the sample, and its standard error.
    pub mean_cycles: f64,
    pub mean_cycles_stderr: f64,
    /// Hours if the units were the only limit, and if the link were.
    pub compute_hours: f64,
    pub link_hours: f64,
    /// The larger of the two.
    pub hours: f64,
}

/// Board figures an estimate needs.
#[derive(Debug, Clone, Copy)]
pub struct BoardSpeed {
    pub units: usize,
    pub clock_hz: f64,
    /// Link bytes per second in each direction (UART 8N1: baud / 10).
    pub link_bytes_per_s: f64,
    pub with_cycles: bool,
}

pub fn estimate(size: BoardSize, sample: &[Subproblem], total: u64, board: BoardSpeed) -> Estimate {
    let cycles: Vec<f64> = sample
        .par_iter()
        .map(|sp| run_subproblem(&sp.pre).cycles as f64)
        .collect();
    let k = cycles.len().max(1) as f64;
    let mean = cycles.iter().sum::<f64>() / k;
    let var = cycles.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / (k - 1.0).max(1.0);
    // Dispatch costs a unit M + 3 cycles before it starts, and the orientation stage 3 more.
    let per_sub = mean + size.inner() as f64 + 3.0 + queens_hdl::orient::LATENCY as f64;
    let compute = total as f64 * per_sub / (board.units as f64 * board.clock_hz);
    // Both directions run at once; the longer frame bounds.
    let out_frame = frame::encode(&vec![0; ResultRecord::payload_len(size, board.with_cycles)]).len();
    let in_frame = word::wire_bytes(size) + 2;
    let link = total as f64 * out_frame.max(in_frame) as f64 / board.link_bytes_per_s;
    Estimate {
        n: size.n(),
        subproblems: total,
        sampled: cycles.len(),
        mean_cycles: mean,
        mean_cycles_stderr: (var / k).sqrt(),
        compute_hours: compute / 3600.0,
        link_hours: link / 3600.0,
        hours: compute.max(link) / 3600.0,
    }
}
