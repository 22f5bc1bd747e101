//! The unit-cycle benchmark a designer runs after each change to the unit or to the walk:
//! cycle totals of fixed sets of subproblems, against the Queens@TUD unit where its figure is
//! known, and against a plain left-to-right walk of the columns (what every subproblem cost
//! before the front end chose an orientation).

use crate::model::{run_subproblem, run_unit};
use queens_core::enumerate::canonical;
use queens_core::{Blocking, BoardSize, Enumerator, Subproblem};
use rayon::prelude::*;
use serde::Serialize;

/// The cycle totals of one set.
#[derive(Debug, Clone, Serialize)]
pub struct CycleTotal {
    pub set: String,
    pub n: u32,
    pub subproblems: usize,
    /// As the array runs them (oriented by the front end).
    pub cycles: u64,
    /// The same unit walking the columns left to right.
    pub columns_cycles: u64,
    /// Queens@TUD's unit on the same set (its VHDL, simulated; load cycles excluded).
    pub reference_cycles: Option<u64>,
}

impl CycleTotal {
    pub fn vs_reference(&self) -> Option<f64> {
        self.reference_cycles.map(|r| self.cycles as f64 / r as f64)
    }

    pub fn vs_columns(&self) -> f64 {
        self.cycles as f64 / self.columns_cycles as f64
    }
}

/// The fixed sets: all of N = 12 and 13, the first 1,337 canonical subproblems of N = 17,
/// and the first subproblem of every 64th prefix of N = 20.
pub fn sets() -> Vec<(String, u32, Vec<Subproblem>, Option<u64>)> {
    let board = |n| BoardSize::new(n).expect("a board size");
    let mut n20 = Vec::new();
    let e = Enumerator::new(board(20));
    for p in e.prefixes().into_iter().step_by(64) {
        let mut first = None;
        e.for_each_in(p, |sp| {
            first.get_or_insert(sp);
        });
        n20.extend(first);
    }
    vec![
        ("all".into(), 12, canonical(board(12)).collect(), Some(1_086_846)),
        ("all".into(), 13, canonical(board(13)).collect(), Some(6_608_013)),
        (
            "first 1,337".into(),
            17,
            canonical(board(17)).take(1_337).collect(),
            Some(2_936_252),
        ),
        ("every 64th prefix".into(), 20, n20, None),
    ]
}

/// Runs every set through the cycle model, on the rayon pool.
pub fn totals() -> Vec<CycleTotal> {
    sets()
        .into_iter()
        .map(|(set, n, subs, reference_cycles)| {
            let (cycles, columns_cycles) = subs
                .par_iter()
                .map(|sp| {
                    (
                        run_subproblem(&sp.pre).cycles,
                        run_unit(&Blocking::new(&sp.pre)).cycles,
                    )
                })
                .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
            CycleTotal {
                set,
                n,
                subproblems: subs.len(),
                cycles,
                columns_cycles,
                reference_cycles,
            }
        })
        .collect()
}
