//! The software counter: completions of one pre-placement, and Q(N) over all of them.
//!
//! This is the oracle every circuit is checked against and what runs when no board is
//! attached. The search walks the free inner columns left to right with rows as bits; the
//! ring's blocking is folded into one mask per column up front, so the loop only carries the
//! inner queens' rows and diagonal windows. The last column is counted with a popcount.

use crate::blocking::Blocking;
use crate::board::BoardSize;
use crate::enumerate::{Enumerator, Prefix};
use crate::preplacement::{Preplacement, Symmetry};
use rayon::prelude::*;
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};

/// Number of ways to complete a pre-placement to a full solution.
pub fn completions(pre: &Preplacement) -> u64 {
    completions_of(&Blocking::new(pre))
}

/// Number of ways to fill the inner board left open by `b`.
pub fn completions_of(b: &Blocking) -> u64 {
    let m = b.m;
    // Open rows per free column, and the distance to the next free column.
    let mut open = [0u32; 32];
    let mut gap = [0u32; 32];
    let mut k = 0usize;
    let mut last = 0u32;
    let mut any = 0u32;
    for x in 0..m {
        if b.cols >> x & 1 == 0 {
            let o = b.open_rows(x);
            if o == 0 {
                return 0;
            }
            if k > 0 {
                gap[k - 1] = x - last;
            }
            open[k] = o;
            any |= o;
            last = x;
            k += 1;
        }
    }
    if k == 0 {
        return 1;
    }
    // Every free row must be reachable from some free column.
    if any != b.full() & !b.rows {
        return 0;
    }
    if k == 1 {
        return open[0].count_ones() as u64;
    }
    search(&open[..k], &gap[..k])
}

/// Depth-first search over k >= 2 free columns; `gap[i]` is the column distance from free
/// column i to free column i + 1.
#[inline]
fn search(open: &[u32], gap: &[u32]) -> u64 {
    let k = open.len();
    let tail = k - 1;
    // Per level: candidate rows still to try, and the state they were drawn from.
    let mut cand = [0u32; 32];
    let mut used = [0u32; 32];
    let mut down = [0u32; 32];
    let mut up = [0u32; 32];
    let mut count = 0u64;
    let mut lv = 0usize;
    cand[0] = open[0];
    loop {
        let c = cand[lv];
        if c == 0 {
            if lv == 0 {
                return count;
            }
            lv -= 1;
            continue;
        }
        let q = c & c.wrapping_neg();
        cand[lv] = c ^ q;
        let g = gap[lv];
        // A queen in row y blocks row y - g (falling) and y + g (rising) g columns on.
        let u2 = used[lv] | q;
        let d2 = (down[lv] | q) >> g;
        let p2 = (up[lv] | q) << g;
        let next = open[lv + 1] & !(u2 | d2 | p2);
        if lv + 1 == tail {
            count += next.count_ones() as u64;
        } else if next != 0 {
            lv += 1;
            used[lv] = u2;
            down[lv] = d2;
            up[lv] = p2;
            cand[lv] = next;
        }
    }
}

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
        .map(|&p: &Prefix| {
            let mut t = Tally::default();
            e.for_each_in(p, |sp| t.add(sp.sym, completions(&sp.pre)));
            done.fetch_add(t.subproblems(), Ordering::Relaxed);
            t
        })
        .reduce(Tally::default, |a, b| a.merge(&b))
}
