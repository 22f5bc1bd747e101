//! How long a check will take, said before it starts where that is minutes (large N): the
//! host's part (the cycle model and the software counter on the known-answer set) from the
//! model's speed, and the board's part (the set and the probes) from its units and clock,
//! both from Knuth's estimate of the candidates' cycles (seconds at any N).

use queens_core::ident::Ident;
use queens_core::{BoardSize, Subproblem};
use queens_sim::estimate::{probe_cycles, MODEL_CYCLES_PER_SECOND};
use std::sync::atomic::AtomicU64;

/// Below this N the whole check takes seconds: nothing is said.
const FROM_N: u32 = 20;
/// Random probes per candidate.
const PROBES: u32 = 32;

/// Seconds as a person says them.
pub fn spoken(s: f64) -> String {
    match s {
        s if s < 90.0 => format!("{s:.0} s"),
        s if s < 5400.0 => format!("{:.0} min", s / 60.0),
        s => format!("{:.1} h", s / 3600.0),
    }
}

/// What to say before the check of a board of `size` starts, if it will take long:
/// `picked`, the candidates of the known-answer set; `set_len`, its size; `ident`, what the
/// board said; `units_hint`, units to assume otherwise.
pub fn say(
    size: BoardSize,
    picked: &[(u64, Subproblem)],
    set_len: usize,
    ident: Option<Ident>,
    units_hint: usize,
) -> Option<String> {
    if size.n() < FROM_N || picked.is_empty() {
        return None;
    }
    let subs: Vec<Subproblem> = picked.iter().map(|(_, s)| *s).collect();
    let walks = probe_cycles(&subs, PROBES, 1, &AtomicU64::new(0));
    let threads = rayon::current_num_threads().max(1) as f64;
    // The model runs our walk and prices the unturned one beside it; the software counter
    // walks the tree once more (taken as the model's speed).
    let host_cycles: f64 = walks.iter().map(|w| 2.0 * w.ours + w.columns).sum();
    let host = host_cycles / (MODEL_CYCLES_PER_SECOND * threads);
    let dearest = walks.iter().map(|w| w.ours).fold(0.0, f64::max);
    let units = ident.map_or(units_hint, |i| i.units as usize).max(1) as f64;
    let board = |clock: f64| {
        // The set, a round per `units` of it at the dearest; the probes, about three rounds
        // of the dearest and three of a subproblem half as dear.
        let rounds = (set_len as f64 / units).ceil() + 4.5;
        rounds * dearest / clock
    };
    let text = match ident.map(|i| i.clock_hz as f64).filter(|&c| c > 0.0) {
        Some(clock) => {
            let b = board(clock);
            format!(
                "N = {}: this check takes about {} in all: about {} here to count its {} known answers ({} cores), then about {} on this board ({} units at {:.0} MHz, as it answered)",
                size.n(),
                spoken(host + b),
                spoken(host),
                set_len,
                threads,
                spoken(b),
                units,
                clock / 1e6
            )
        }
        None => format!(
            "N = {}: about {} here to count the {} known answers ({} cores); the board's part depends on its clock, which it does not say: about {} at 250 MHz with {} units",
            size.n(),
            spoken(host),
            set_len,
            threads,
            spoken(board(250e6)),
            units
        ),
    };
    Some(text)
}
