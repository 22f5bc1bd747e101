//! Picking subproblems and pricing their walks, shared by the cycle benchmark
//! ([`crate::cycles`]) and the estimate ([`crate::estimate`]): subproblems spread evenly over
//! the canonical order, and one subproblem's cycles on the three walks compared, exactly or
//! by Knuth's probes ([`crate::probe`]).

use crate::model::run_subproblem;
use crate::probe;
use queens_core::board::PairTable;
use queens_core::enumerate::{Enumerator, Prefix};
use queens_core::group;
use queens_core::south::SouthWalk;
use queens_core::{Blocking, BoardSize, Preplacement, Subproblem};
use rayon::prelude::*;
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};

/// One subproblem's cycles on the three walks compared.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Walks {
    /// Our unit as the array runs it (the board turned by the front end).
    pub ours: f64,
    /// Our unit walking the columns left to right.
    pub columns: f64,
    /// Queens@TUD's unit (which always walks the columns left to right).
    pub tud: f64,
}

impl Walks {
    /// Exact: the cycle model, and the unturned walk's tree priced for both units.
    pub fn exact(pre: &Preplacement) -> Walks {
        let unturned = probe::cycles(&Blocking::new(pre));
        Walks {
            ours: run_subproblem(pre).cycles as f64,
            columns: unturned.ours as f64,
            tud: unturned.tud as f64,
        }
    }

    /// Knuth's estimate from `probes` random paths of the turned walk (ours) and as many of
    /// the unturned one (the left-to-right walk and Queens@TUD's, priced on the same paths).
    pub fn probed(pre: &Preplacement, probes: u32, rng: &mut fastrand::Rng) -> Walks {
        let b = Blocking::new(pre);
        let unturned = probe::probe_mean(&b, probes, rng);
        Walks {
            ours: probe::probe_mean(&b.oriented(), probes, rng).ours,
            columns: unturned.ours,
            tud: unturned.tud,
        }
    }
}

/// The walks of a pre-placement on a board of grouped units (issue 50): `ours` is its share of
/// its group's walk (the walk over the group's members: the mean of these shares over
/// pre-placements spread over the order is the grouped unit's cycles per pre-placement, as
/// the shares of a group add up to its walk); `columns` and `tud` as for today's unit.
impl Walks {
    /// Exact: the grouped model's walk ([`crate::grouped::run_south_group`]).
    pub fn grouped_exact(pre: &Preplacement, table: &PairTable) -> Walks {
        let walk = crate::grouped::run_south_group(pre).cycles as f64;
        Walks {
            ours: walk / members(pre, table),
            ..Walks::exact_unturned(pre)
        }
    }

    /// Knuth's estimate from `probes` random paths of the group's walk and as many of the
    /// unturned walk.
    pub fn grouped_probed(
        pre: &Preplacement,
        table: &PairTable,
        probes: u32,
        rng: &mut fastrand::Rng,
    ) -> Walks {
        let grid = crate::grouped::south_grid(&SouthWalk::new(pre));
        let walk = probe::grid_probe_mean(&grid, probes, rng).ours;
        let unturned = probe::probe_mean(&Blocking::new(pre), probes, rng);
        Walks {
            ours: walk / members(pre, table),
            columns: unturned.ours,
            tud: unturned.tud,
        }
    }

    fn exact_unturned(pre: &Preplacement) -> Walks {
        let unturned = probe::cycles(&Blocking::new(pre));
        Walks {
            ours: 0.0,
            columns: unturned.ours as f64,
            tud: unturned.tud as f64,
        }
    }
}

/// How many pre-placements the group of `pre` counts.
fn members(pre: &Preplacement, table: &PairTable) -> f64 {
    let wire = group::group_wire(pre).expect("canonical pre-placements encode");
    group::members(table, wire).map_or(1, |m| m.len().max(1)) as f64
}

/// The generator of subproblem `i` of a sample: figures do not depend on the threads.
pub fn rng_for(seed: u64, i: usize) -> fastrand::Rng {
    fastrand::Rng::with_seed(seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
}

/// The canonical subproblems of one board size, counted per prefix so that any of them can
/// be picked without walking the whole order on one thread.
pub struct Sampler {
    e: Enumerator,
    prefixes: Vec<Prefix>,
    counts: Vec<u64>,
}

impl Sampler {
    pub fn new(size: BoardSize) -> Self {
        let e = Enumerator::new(size);
        let prefixes = e.prefixes();
        Self {
            e,
            prefixes,
            counts: Vec::new(),
        }
    }

    /// Prefixes to count (the length of [`count`](Self::count)'s progress).
    pub fn prefix_count(&self) -> u64 {
        self.prefixes.len() as u64
    }

    /// Counts the subproblems of every prefix on the rayon pool (`done` counts prefixes) and
    /// returns the total.
    pub fn count(&mut self, done: &AtomicU64) -> u64 {
        let e = &self.e;
        self.counts = self
            .prefixes
            .par_iter()
            .map(|&p| {
                let mut k = 0u64;
                e.for_each_in(p, |_| k += 1);
                done.fetch_add(1, Ordering::Relaxed);
                k
            })
            .collect();
        self.total()
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// `s` subproblems at the canonical indices k * total / s (k = 0..s), in order: every
    /// one when s >= total. Needs [`count`](Self::count) first; `done` counts the
    /// subproblems picked.
    pub fn evenly(&self, s: u64, done: &AtomicU64) -> Vec<Subproblem> {
        let total = self.total();
        let s = s.min(total);
        if s == 0 {
            return Vec::new();
        }
        // The wanted offsets within each prefix.
        let mut wanted: Vec<(usize, Vec<u64>)> = Vec::new();
        let mut start = 0u64;
        let mut k = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            let end = start + c;
            let mut here = Vec::new();
            while k < s {
                let idx = spread_index(k, s, total);
                if idx >= end {
                    break;
                }
                here.push(idx - start);
                k += 1;
            }
            if !here.is_empty() {
                wanted.push((i, here));
            }
            start = end;
        }
        wanted
            .par_iter()
            .flat_map_iter(|(i, offsets)| {
                let mut out = Vec::with_capacity(offsets.len());
                let mut next = offsets.iter().peekable();
                let mut at = 0u64;
                self.e.for_each_in(self.prefixes[*i], |sp| {
                    if next.peek() == Some(&&at) {
                        next.next();
                        out.push(sp);
                    }
                    at += 1;
                });
                done.fetch_add(out.len() as u64, Ordering::Relaxed);
                out
            })
            .collect()
    }
}

/// The canonical index of the k-th of s subproblems spread evenly over `total`: k * total / s.
pub fn spread_index(k: u64, s: u64, total: u64) -> u64 {
    (k as u128 * total as u128 / s as u128) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use queens_core::enumerate::canonical;

    #[test]
    fn evenly_picks_the_indices_of_the_canonical_order() {
        let size = BoardSize::new(13).unwrap();
        let all: Vec<Subproblem> = canonical(size).collect();
        let mut s = Sampler::new(size);
        assert_eq!(s.count(&AtomicU64::new(0)), all.len() as u64);
        for k in [1u64, 7, 1000, all.len() as u64, all.len() as u64 + 5] {
            let got = s.evenly(k, &AtomicU64::new(0));
            let k = k.min(all.len() as u64);
            let want: Vec<Subproblem> = (0..k).map(|i| all[(i * all.len() as u64 / k) as usize]).collect();
            assert_eq!(got, want, "{k}");
        }
    }
}
