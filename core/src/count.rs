//! The software counter: completions of one pre-placement, and Q(N) over all of them.
//!
//! This is the oracle every circuit is checked against and what runs when no board is
//! attached. Rows are bits; the ring's blocking is folded into one mask per open column up
//! front, so the search carries only the inner queens' rows and diagonals.

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
///
/// Columns are not taken left to right: each step fills the open column with the fewest
/// candidate rows, and a state is dropped as soon as some open column or open row has no
/// candidate left. That visits about a fifth of the nodes of a left-to-right walk.
pub fn completions_of(b: &Blocking) -> u64 {
    // The search leans on popcount and bit scans: use the instructions where the CPU has them.
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("popcnt") && std::is_x86_feature_detected!("bmi1") {
        // SAFETY: the features the function is compiled for were just detected.
        return unsafe { completions_x86(b) };
    }
    completions_any(b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1,bmi2,lzcnt")]
unsafe fn completions_x86(b: &Blocking) -> u64 {
    completions_any(b)
}

#[inline(always)]
fn completions_any(b: &Blocking) -> u64 {
    let m = b.m;
    let mut s = Search { open: [0; 32], shift: [0; 32], rows: b.full() & !b.rows };
    let mut free = 0u32;
    for x in 0..m {
        if b.cols >> x & 1 == 0 {
            s.open[x as usize] = b.open_rows(x);
            s.shift[x as usize] = m - 1 - x;
            free |= 1 << x;
        }
    }
    if free == 0 {
        return 1;
    }
    s.run(free)
}

/// Per-subproblem constants of the search.
struct Search {
    /// Rows of column x that the ring leaves open.
    open: [u32; 32],
    /// Shift that aligns the rising diagonals with the rows of column x.
    shift: [u32; 32],
    /// Inner rows without a ring queen.
    rows: u32,
}

/// A column chosen for branching and the rows still to try in it.
#[derive(Clone, Copy, Default)]
struct Frame {
    x: u32,
    cand: u32,
    free: u32,
    used: u32,
    down: u64,
    up: u64,
}

enum Pick {
    /// Some open column or row has no candidate: no completion below this state.
    Dead,
    /// One open column left: this many completions.
    Last(u32),
    Branch { x: u32, cand: u32 },
}

impl Search {
    /// Candidate rows of open column x given the inner queens placed so far.
    #[inline(always)]
    fn cand(&self, x: u32, used: u32, down: u64, up: u64) -> u32 {
        let att = (down >> x) | (up >> self.shift[x as usize]);
        self.open[x as usize] & !used & !(att as u32)
    }

    /// The open column with the fewest candidates, or why there is none to branch on.
    /// Branch-free inside the loop: the minimum is taken over (count, column) keys. The last
    /// two columns are counted in closed form.
    #[inline(always)]
    fn pick(&self, free: u32, used: u32, down: u64, up: u64) -> Pick {
        let mut best = u32::MAX;
        let mut dead = false;
        let mut cover = 0;
        let mut f = free;
        while f != 0 {
            let x = f.trailing_zeros();
            f &= f - 1;
            let c = self.cand(x, used, down, up);
            dead |= c == 0;
            cover |= c;
            best = best.min(c.count_ones() << 8 | x);
        }
        if dead {
            return Pick::Dead;
        }
        let rest = free & (free - 1);
        if rest == 0 {
            return Pick::Last(best >> 8);
        }
        if cover != self.rows & !used {
            return Pick::Dead;
        }
        if rest & (rest - 1) == 0 {
            // Two columns and two rows left: a queen q in the first rules out its row and
            // both diagonals in the second.
            let (x1, x2) = (free.trailing_zeros(), rest.trailing_zeros());
            let (c1, c2) = (self.cand(x1, used, down, up), self.cand(x2, used, down, up));
            let dx = x2 - x1;
            let mut k = 0;
            let mut c = c1;
            while c != 0 {
                let q = c & c.wrapping_neg();
                c ^= q;
                k += (c2 & !(q | q << dx | q >> dx)).count_ones();
            }
            return Pick::Last(k);
        }
        let x = best & 0xFF;
        Pick::Branch { x, cand: self.cand(x, used, down, up) }
    }

    #[inline(always)]
    fn run(&self, free: u32) -> u64 {
        let mut stack = [Frame::default(); 32];
        let mut top = 0usize;
        match self.pick(free, 0, 0, 0) {
            Pick::Dead => return 0,
            Pick::Last(k) => return k as u64,
            Pick::Branch { x, cand } => stack[0] = Frame { x, cand, free, used: 0, down: 0, up: 0 },
        }
        let mut count = 0u64;
        loop {
            let f = stack[top];
            if f.cand == 0 {
                if top == 0 {
                    return count;
                }
                top -= 1;
                continue;
            }
            let q = f.cand & f.cand.wrapping_neg();
            stack[top].cand = f.cand ^ q;
            let y = q.trailing_zeros();
            let free = f.free & !(1 << f.x);
            let used = f.used | q;
            let down = f.down | 1 << (f.x + y);
            let up = f.up | 1 << (y + self.shift[f.x as usize]);
            match self.pick(free, used, down, up) {
                Pick::Dead => {}
                Pick::Last(k) => count += k as u64,
                Pick::Branch { x, cand } => {
                    top += 1;
                    stack[top] = Frame { x, cand, free, used, down, up };
                }
            }
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
