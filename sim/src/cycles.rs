//! The unit-cycle benchmark a designer runs after each change to the unit or to the walk: our
//! unit's mean cycles per subproblem on sets of subproblems, against Queens@TUD's unit
//! ([`crate::tud`]) and against our unit walking the columns left to right (what every
//! subproblem cost before the front end chose an orientation).
//!
//! With grouped units (issue 50) "ours" is the grouped unit: each pre-placement's share of its
//! group's walk ([`Walks::grouped_exact`], [`Walks::grouped_probed`]).
//!
//! Small sets are run exactly; the sets that matter (spread over the whole canonical order of
//! the N that boards are built for) are too large for that at N = 27 and 28 and are measured
//! by Knuth's probes ([`crate::probe`]), each ratio with its 95% interval ([`Ratio`]).

use crate::ratio::Ratio;
use crate::sample::{rng_for, Sampler, Walks};
use queens_core::board::PairTable;
use queens_core::enumerate::canonical;
use queens_core::UnitKind;
use queens_core::{BoardSize, Subproblem};
use rayon::prelude::*;
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Which subproblems of N a set holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Pick {
    /// Every canonical subproblem.
    All,
    /// The first k in canonical order: cheap, but not like the rest of the order.
    First(usize),
    /// k at the canonical indices i * total / k, spread over the whole order.
    Spread(u64),
}

/// How a set's subproblems are measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    Exact,
    Probes(u32),
}

/// One set of the benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetSpec {
    pub n: u32,
    pub pick: Pick,
    pub how: How,
}

/// Probes per subproblem of the probed sets.
pub const PROBES: u32 = 256;

/// The benchmark's sets: all of N = 12 and 13 and the first 1,337 of N = 17 (small and early;
/// Queens@TUD's cycles on them were first measured by simulating its VHDL), spread samples of
/// N = 17, 20 and 23 run exactly, and of N = 27 and 28 by probes.
pub fn sets() -> Vec<SetSpec> {
    use How::*;
    use Pick::*;
    let set = |n, pick, how| SetSpec { n, pick, how };
    vec![
        set(12, All, Exact),
        set(13, All, Exact),
        set(17, First(1_337), Exact),
        set(17, Spread(2_000), Exact),
        set(20, Spread(2_000), Exact),
        set(23, Spread(200), Exact),
        set(27, Spread(8_192), Probes(PROBES)),
        set(28, Spread(8_192), Probes(PROBES)),
    ]
}

/// The measured figures of one set.
#[derive(Debug, Clone, Serialize)]
pub struct CycleSet {
    pub n: u32,
    pub set: Pick,
    /// Our unit's kind (a grouped unit's pre-placement costs its share of its group's walk).
    pub unit: UnitKind,
    pub subproblems: usize,
    /// Canonical subproblems of N.
    pub of: u64,
    /// "exact" or "probes".
    pub method: &'static str,
    pub probes_per_subproblem: u32,
    /// Mean cycles per subproblem of the three walks.
    pub mean: Walks,
    /// Our unit's cycles over Queens@TUD's, and over the left-to-right walk's; the interval
    /// is that of the ratio over all of N (none for a set that is not a spread sample).
    pub vs_tud: Ratio,
    pub vs_columns: Ratio,
    pub seconds: f64,
}

impl SetSpec {
    /// The set's subproblems and the number of canonical subproblems of N.
    pub fn subproblems(&self) -> (Vec<Subproblem>, u64) {
        let size = BoardSize::new(self.n).expect("a set's N is a board size");
        match self.pick {
            Pick::All => {
                let all: Vec<Subproblem> = canonical(size).collect();
                let k = all.len() as u64;
                (all, k)
            }
            Pick::First(k) => {
                let mut s = Sampler::new(size);
                let total = s.count(&AtomicU64::new(0));
                (canonical(size).take(k).collect(), total)
            }
            Pick::Spread(k) => {
                let mut s = Sampler::new(size);
                let total = s.count(&AtomicU64::new(0));
                (s.evenly(k, &AtomicU64::new(0)), total)
            }
        }
    }

    /// Measures the set on the rayon pool, our unit one of kind `unit`; `done` counts
    /// subproblems measured.
    pub fn measure(&self, seed: u64, unit: UnitKind, done: &AtomicU64) -> CycleSet {
        let start = Instant::now();
        let (subs, of) = self.subproblems();
        let table = PairTable::new(BoardSize::new(self.n).expect("a set's N is a board size"));
        let walks: Vec<Walks> = subs
            .par_iter()
            .enumerate()
            .map(|(i, sp)| {
                let (pre, rng) = (&sp.pre, &mut rng_for(seed, i));
                let w = match (self.how, unit) {
                    (How::Exact, UnitKind::Plain) => Walks::exact(pre),
                    (How::Probes(p), UnitKind::Plain) => Walks::probed(pre, p, rng),
                    (How::Exact, UnitKind::Grouped) => Walks::grouped_exact(pre, &table),
                    (How::Probes(p), UnitKind::Grouped) => Walks::grouped_probed(pre, &table, p, rng),
                };
                done.fetch_add(1, Ordering::Relaxed);
                w
            })
            .collect();
        let k = walks.len().max(1) as f64;
        let sum = walks.iter().fold(Walks::default(), |s, w| Walks {
            ours: s.ours + w.ours,
            columns: s.columns + w.columns,
            tud: s.tud + w.tud,
        });
        let population = matches!(self.pick, Pick::Spread(_)).then_some(of);
        CycleSet {
            n: self.n,
            set: self.pick,
            unit,
            subproblems: walks.len(),
            of,
            method: match self.how {
                How::Exact => "exact",
                How::Probes(_) => "probes",
            },
            probes_per_subproblem: match self.how {
                How::Exact => 0,
                How::Probes(p) => p,
            },
            mean: Walks {
                ours: sum.ours / k,
                columns: sum.columns / k,
                tud: sum.tud / k,
            },
            vs_tud: Ratio::of_pairs(walks.iter().map(|w| (w.ours, w.tud)), population),
            vs_columns: Ratio::of_pairs(walks.iter().map(|w| (w.ours, w.columns)), population),
            seconds: start.elapsed().as_secs_f64(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probed_walks_average_to_the_exact_ones() {
        let size = BoardSize::new(13).unwrap();
        for (i, sp) in canonical(size).step_by(8_191).take(10).enumerate() {
            let exact = Walks::exact(&sp.pre);
            let p = Walks::probed(&sp.pre, 20_000, &mut rng_for(11, i));
            for (e, p) in [
                (exact.ours, p.ours),
                (exact.columns, p.columns),
                (exact.tud, p.tud),
            ] {
                assert!(
                    (p - e).abs() <= 0.08 * e + 2.0,
                    "{}: probed {p}, exact {e}",
                    sp.pre
                );
            }
        }
    }
}
