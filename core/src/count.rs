//! The software counter: completions of one pre-placement, and Q(N) over all of them.
//!
//! This is the oracle every circuit is checked against and what runs when no board is
//! attached. The search of one pre-placement lives in [`crate::search`]; Q(N) is counted by
//! [`crate::sweep`], which walks all pre-placements that differ only in their south side at
//! once (the tests hold the two to the same count for every pre-placement).

use crate::board::BoardSize;
use crate::enumerate::{Enumerator, Prefix};
use crate::preplacement::Symmetry;
pub use crate::search::{completions, completions_of};
use crate::sweep::Sweep;
use rayon::prelude::*;
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};

/// Per-class pre-placement counts and summed completions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub preplacements: [u64; 3],
    pub solutions: [u64; 3],
}

impl Tally {
    pub fn add(&mut self, sym: Symmetry, solutions: u64) {
        self.preplacements[sym.slot()] += 1;
        self.solutions[sym.slot()] += solutions;
    }

    pub fn merge(mut self, o: &Tally) -> Tally {
        for i in 0..3 {
            self.preplacements[i] += o.preplacements[i];
            self.solutions[i] += o.solutions[i];
        }
        self
    }

    /// Q(N) = sum of weight x completions.
    pub fn total(&self) -> u128 {
        Symmetry::ALL
            .iter()
            .map(|s| s.weight() as u128 * self.solutions[s.slot()] as u128)
            .sum()
    }

    pub fn subproblems(&self) -> u64 {
        self.preplacements.iter().sum()
    }

    pub fn classes(&self) -> Vec<ClassTally> {
        Symmetry::ALL
            .iter()
            .map(|&s| ClassTally {
                class: s,
                weight: s.weight(),
                preplacements: self.preplacements[s.slot()],
                solutions: self.solutions[s.slot()],
            })
            .collect()
    }
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct ClassTally {
    pub class: Symmetry,
    pub weight: u64,
    pub preplacements: u64,
    pub solutions: u64,
}

/// Counts all solutions of the board through its canonical pre-placements, on the threads of
/// the current rayon pool. `done` is advanced by the number of subproblems finished.
pub fn count(size: BoardSize, done: &AtomicU64) -> Tally {
    let e = Enumerator::new(size);
    e.prefixes()
        .par_iter()
        .with_max_len(8)
        .map_init(
            || Sweep::new(size),
            |sweep, &p: &Prefix| {
                let mut t = Tally::default();
                e.for_each_east(p, |east, souths| {
                    let counts = sweep.souths(p.w, p.n, east);
                    for &(s, sym) in souths {
                        t.add(sym, counts[s as usize]);
                    }
                });
                done.fetch_add(t.subproblems(), Ordering::Relaxed);
                t
            },
        )
        .reduce(Tally::default, |a, b| a.merge(&b))
}
