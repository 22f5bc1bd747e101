//! How long a board would take for the whole of Q(N): the mean unit cycles per subproblem,
//! from a sample of the subproblems, and the board's units, clock and link turn into hours. A
//! UART link can bound a board of many fast units, so both bounds are reported.
//!
//! The mean comes one of two ways:
//! - *sampled*: the cycle model exhausts each sampled subproblem; exact per subproblem, the
//!   only error is the sampling of subproblems. At N = 27 one subproblem costs the model
//!   minutes, so this is for small N.
//! - *probe*: Knuth's random-probe estimator ([`crate::probe`]) on each sampled subproblem's
//!   walk, 64 random root-to-leaf paths each by default; unbiased, and its standard error
//!   (from the spread of the per-subproblem estimates) covers both the probes' and the
//!   sample's error. Seconds at any N.
//!
//! [`Method::Auto`] runs a pilot of probes on part of the sample and takes *sampled* when the
//! model would get through the whole sample within [`SAMPLED_BUDGET_SECONDS`].
//!
//! For grouped units (issue 50) a pre-placement's cycles are its share of its group's walk
//! ([`grouped_model_cycles`], [`grouped_probe_cycles`]): the shares of a group add up to its
//! walk, so their mean over pre-placements spread over the order is the mean the hours need.

use crate::ratio::Ratio;
use crate::sample::{rng_for, spread_index, Walks};
use queens_core::board::PairTable;
use queens_core::enumerate::Prefix;
use queens_core::UnitKind;
use queens_core::{frame, word, BoardSize, Enumerator, Subproblem};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// How the mean cycles per subproblem are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Probe a pilot and choose: sampled when the model is quick enough, else probe.
    Auto,
    /// The cycle model exhausts every sampled subproblem.
    Sampled,
    /// Knuth's random-probe estimator on every sampled subproblem.
    Probe,
}

impl Method {
    pub const ALL: [Method; 3] = [Method::Auto, Method::Sampled, Method::Probe];

    /// The method of this name (as [`Method::name`] gives it).
    pub fn parse(s: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == s)
    }

    pub fn name(self) -> &'static str {
        match self {
            Method::Auto => "auto",
            Method::Sampled => "sampled",
            Method::Probe => "probe",
        }
    }
}

/// Subproblems sampled by default: by the model, and by probes.
pub const SAMPLED_DEFAULT: u64 = 256;
pub const PROBE_SAMPLE_DEFAULT: u64 = 65_536;
/// Probes per subproblem by default.
pub const PROBES_DEFAULT: u32 = 64;
/// [`Method::Auto`] takes the model when it would run the sample in this many seconds.
pub const SAMPLED_BUDGET_SECONDS: f64 = 10.0;
/// Unit cycles the model runs per second on one core (a release build measured 1.2-1.4 x 10^8
/// on each of two shared CI-class cores at N = 23 and 25; the lower figure, so that auto
/// errs toward probes).
pub const MODEL_CYCLES_PER_SECOND: f64 = 1.2e8;
/// As [`model_cycles`] for grouped units: each pre-placement's share of the grouped model's
/// walk of its group ([`Walks::grouped_exact`]).
pub fn grouped_model_cycles(sample: &[Subproblem], done: &AtomicU64) -> Vec<Walks> {
    let Some(first) = sample.first() else {
        return Vec::new();
    };
    let table = PairTable::new(first.pre.size());
    sample
        .par_iter()
        .map(|sp| {
            let w = Walks::grouped_exact(&sp.pre, &table);
            done.fetch_add(1, Ordering::Relaxed);
            w
        })
        .collect()
}

/// As [`probe_cycles`] for grouped units: Knuth's estimate of each pre-placement's share of
/// its group's walk ([`Walks::grouped_probed`]).
pub fn grouped_probe_cycles(sample: &[Subproblem], probes: u32, seed: u64, done: &AtomicU64) -> Vec<Walks> {
    let Some(first) = sample.first() else {
        return Vec::new();
    };
    let table = PairTable::new(first.pre.size());
    sample
        .par_iter()
        .enumerate()
        .map(|(i, sp)| {
            let w = Walks::grouped_probed(&sp.pre, &table, probes, &mut rng_for(seed, i));
            done.fetch_add(1, Ordering::Relaxed);
            w
        })
        .collect()
}

/// The pilot of [`Method::Auto`]: at most this many subproblems of the sample, and probes each.
pub const PILOT_SUBPROBLEMS: usize = 64;
pub const PILOT_PROBES: u32 = 32;
pub use crate::ratio::Z95;

#[derive(Debug, Clone, serde::Serialize)]
pub struct Estimate {
    pub n: u32,
    pub subproblems: u64,
    /// "sampled" or "probe" (see the module's comment).
    pub method: Method,
    /// Subproblems in the sample.
    pub sampled: usize,
    /// Random probes of each (0 when sampled).
    pub probes_per_subproblem: u32,
    /// Mean unit cycles per subproblem, and its standard error.
    pub mean_cycles: f64,
    pub mean_cycles_stderr: f64,
    /// The standard error over the mean.
    pub relative_stderr: f64,
    /// Queens@TUD's unit on the same sample (its mean cycles per subproblem), and our mean
    /// over its, with the 95% interval of that ratio over all of N.
    pub tud_mean_cycles: f64,
    pub vs_tud: Ratio,
    /// Hours if the units were the only limit, and if the link were.
    pub compute_hours: f64,
    pub link_hours: f64,
    /// The larger of the two.
    pub hours: f64,
    /// The 95% interval of `hours` (mean cycles ± 1.96 standard errors; the link bound is
    /// exact).
    pub hours_low: f64,
    pub hours_high: f64,
    /// "solver" or "link": which bound `hours` is.
    pub limit: &'static str,
    pub units: usize,
    pub clock_hz: f64,
    pub link_bytes_per_s: f64,
}

/// The board an estimate assumes when it is given none: the array Queens@TUD fitted on a
/// VC707, so that a figure compares with theirs.
#[derive(Debug, Clone, Copy)]
pub struct Reference {
    /// The name that selects it where a board is asked for.
    pub name: &'static str,
    pub n: u32,
    pub units: usize,
    pub clock_hz: f64,
}

/// Queens@TUD's VC707: 360 units at 250 MHz, N = 27.
pub const TUD_VC707: Reference = Reference {
    name: "tud-vc707",
    n: 27,
    units: 360,
    clock_hz: 250e6,
};

/// Board figures an estimate needs.
#[derive(Debug, Clone, Copy)]
pub struct BoardSpeed {
    pub units: usize,
    pub clock_hz: f64,
    /// Link bytes per second in each direction (UART 8N1: baud / 10).
    pub link_bytes_per_s: f64,
    pub with_cycles: bool,
    /// Its units (grouped ones: a pre-placement's cycles are its share of its group's walk,
    /// and its answer comes in the group's records, about one a pre-placement).
    pub unit: UnitKind,
}

/// Exact cycles of each subproblem on the three walks ([`Walks::exact`]; `done` counts
/// subproblems).
pub fn model_cycles(sample: &[Subproblem], done: &AtomicU64) -> Vec<Walks> {
    sample
        .par_iter()
        .map(|sp| {
            let w = Walks::exact(&sp.pre);
            done.fetch_add(1, Ordering::Relaxed);
            w
        })
        .collect()
}

/// Knuth's estimate of each subproblem's cycles on the three walks, from `probes` random
/// probes each ([`Walks::probed`]). Subproblem i draws from its own generator, seeded from
/// `seed` and i, so the figures do not depend on the threads.
pub fn probe_cycles(sample: &[Subproblem], probes: u32, seed: u64, done: &AtomicU64) -> Vec<Walks> {
    sample
        .par_iter()
        .enumerate()
        .map(|(i, sp)| {
            let w = Walks::probed(&sp.pre, probes, &mut rng_for(seed, i));
            done.fetch_add(1, Ordering::Relaxed);
            w
        })
        .collect()
}

/// The pilot of [`Method::Auto`]: probes of at most [`PILOT_SUBPROBLEMS`] subproblems spread
/// over the sample; returns the seconds the model would take for the whole sample on
/// `threads` threads.
pub fn pilot_model_seconds(sample: &[Subproblem], seed: u64, threads: usize) -> f64 {
    if sample.is_empty() {
        return 0.0;
    }
    let step = sample.len().div_ceil(PILOT_SUBPROBLEMS);
    let pilot: Vec<Subproblem> = sample.iter().step_by(step).copied().collect();
    let est = probe_cycles(&pilot, PILOT_PROBES, seed, &AtomicU64::new(0));
    // The model runs the turned walk; the unturned one is walked as a tree beside it.
    let mean = est.iter().map(|w| w.ours + w.columns).sum::<f64>() / est.len() as f64;
    sample.len() as f64 * mean / (MODEL_CYCLES_PER_SECOND * threads.max(1) as f64)
}

/// The estimate from per-subproblem cycles (exact or probed) of a sample of `total`.
pub fn estimate(
    size: BoardSize,
    method: Method,
    probes_per_subproblem: u32,
    walks: &[Walks],
    total: u64,
    board: BoardSpeed,
) -> Estimate {
    let cycles: Vec<f64> = walks.iter().map(|w| w.ours).collect();
    let k = cycles.len().max(1) as f64;
    let mean = cycles.iter().sum::<f64>() / k;
    let var = cycles.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / (k - 1.0).max(1.0);
    let stderr = (var / k).sqrt();
    // Each subproblem keeps a unit waiting for its dispatch.
    let overhead = queens_hdl::front::dispatch_cycles(size.inner() as usize) as f64;
    let seconds = |mean: f64| total as f64 * (mean + overhead) / (board.units as f64 * board.clock_hz);
    let compute = seconds(mean);
    // Both directions run at once; the longer frame bounds.
    let out_payload = board.unit.answer_payload_len(size, board.with_cycles);
    let out_frame = frame::encode(&vec![0; out_payload]).len();
    let in_frame = word::wire_bytes(size) + 2;
    let link = total as f64 * out_frame.max(in_frame) as f64 / board.link_bytes_per_s;
    let low = seconds((mean - Z95 * stderr).max(0.0)).max(link);
    let high = seconds(mean + Z95 * stderr).max(link);
    Estimate {
        n: size.n(),
        subproblems: total,
        method,
        sampled: cycles.len(),
        probes_per_subproblem,
        mean_cycles: mean,
        mean_cycles_stderr: stderr,
        tud_mean_cycles: walks.iter().map(|w| w.tud).sum::<f64>() / k,
        vs_tud: Ratio::of_pairs(walks.iter().map(|w| (w.ours, w.tud)), Some(total)),
        relative_stderr: stderr / mean.max(f64::MIN_POSITIVE),
        compute_hours: compute / 3600.0,
        link_hours: link / 3600.0,
        hours: compute.max(link) / 3600.0,
        hours_low: low / 3600.0,
        hours_high: high / 3600.0,
        limit: if link > compute { "link" } else { "solver" },
        units: board.units,
        clock_hz: board.clock_hz,
        link_bytes_per_s: board.link_bytes_per_s,
    }
}

/// A subproblem's unit cycles at this N, roughly and at once (no enumeration of the order):
/// the first subproblem of `samples` prefixes spread over the canonical order, each probed
/// with 32 random paths. The mean, and the largest seen (a stand-in for the slow tail that
/// decides how long a host waits before it calls a board silent). For waiting times, not
/// for estimates: those are [`estimate`]'s.
pub fn subproblem_cycles(size: BoardSize, samples: usize) -> (f64, f64) {
    let e = Enumerator::new(size);
    let prefixes = e.prefixes();
    let s = samples.max(1) as u64;
    let picks: Vec<Prefix> = (0..s)
        .map(|k| prefixes[spread_index(k, s, prefixes.len() as u64) as usize])
        .collect();
    let walks: Vec<f64> = picks
        .par_iter()
        .enumerate()
        .filter_map(|(i, &p)| {
            let mut first = None;
            e.for_each_in(p, |sp| {
                first.get_or_insert(sp);
            });
            first.map(|sp| Walks::probed(&sp.pre, 32, &mut rng_for(7, i)).ours)
        })
        .collect();
    let mean = walks.iter().sum::<f64>() / walks.len().max(1) as f64;
    let max = walks.iter().copied().fold(0.0, f64::max);
    (mean, max)
}
