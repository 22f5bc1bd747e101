//! The unit's cycles of one subproblem without running it: Knuth's random-probe estimator on
//! the tree the unit walks.
//!
//! The unit of [`crate::model`] walks a search tree whose node at depth c holds queens in
//! columns 0..c-1 (a column the ring fills has one child, its "no queen"); the children of a
//! node are the rows column c leaves open. Its cycles are a sum over that tree's nodes:
//! - the root (depth 0) costs 1 (its last cycle is the one that finds nothing more);
//! - a node at depth 1..m-2 without children costs 1 (A finds nothing, B moves on);
//! - a node at depth 1..m-2 with children costs 1 (the advance into its first child), and 1
//!   more for the cycle in its exhausted column after its last child, unless the held uncle
//!   skipped that cycle: that takes a node with a next sibling whose children are all leaves
//!   (each child a node without children, or in the last column), so that the unit stood
//!   in the column below it since the advance into it, held the row of that next sibling,
//!   and moved there from its last child in one step;
//! - a node in the last column costs 1, a solution or not.
//!
//! (The cycle that moves to a sibling is the last cycle of the sibling before it.) Queens@TUD's
//! unit walks the same tree at its own price per node ([`crate::tud::node_cycles`]), so every
//! sum and probe here prices each node for both units at once ([`PerUnit`]).
//!
//! [`cycles`] sums the prices over the whole tree and is tested against the model; [`probe`]
//! follows one random path from the root, picking each child with equal chance, and returns
//! the sum of its nodes' prices each multiplied by the product of the branching factors above
//! it. That is an unbiased estimate of the tree's sum (D. E. Knuth, "Estimating the efficiency
//! of backtrack programs", Math. Comp. 29, 1975), at the cost of one path instead of the whole
//! tree; both units' estimates come from the same path, so their ratio is estimated with much
//! less noise than either alone.

use crate::model::Grid;
use crate::tud;
use queens_core::Blocking;
use std::ops::{Add, AddAssign};

/// A figure for each of the two units walking one tree: ours and Queens@TUD's.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct PerUnit<T> {
    pub ours: T,
    pub tud: T,
}

impl<T: Add<Output = T>> Add for PerUnit<T> {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        PerUnit {
            ours: self.ours + o.ours,
            tud: self.tud + o.tud,
        }
    }
}

impl<T: AddAssign> AddAssign for PerUnit<T> {
    fn add_assign(&mut self, o: Self) {
        self.ours += o.ours;
        self.tud += o.tud;
    }
}

/// The board state along a walk: the ring's open rows and the queens placed so far.
#[derive(Debug, Clone, Copy)]
struct Walk {
    m: u32,
    open: [u32; 32],
    filled: u32,
    used: u32,
    down: u64,
    up: u64,
}

impl Walk {
    /// The walk of a grid of `g.l` lines (a subproblem's m columns, or a south group's N - 2
    /// lines: [`crate::grouped::south_grid`]).
    fn new(g: &Grid) -> Self {
        Self {
            m: g.l,
            open: g.open,
            filled: g.filled,
            used: 0,
            down: 0,
            up: 0,
        }
    }

    /// The children of the node at depth c: `None` for a column the ring fills (one child,
    /// no queen), else the free rows.
    #[inline(always)]
    fn children(&self, c: u32) -> Option<u32> {
        if self.filled >> c & 1 != 0 {
            return None;
        }
        let att = (self.down >> c) | (self.up >> (self.m - 1 - c));
        Some(self.open[c as usize] & !self.used & !(att as u32))
    }

    #[inline(always)]
    fn place(&mut self, c: u32, q: u32) {
        let y = q.trailing_zeros();
        self.used |= q;
        self.down |= 1 << (c + y);
        self.up |= 1 << (y + self.m - 1 - c);
    }

    /// Every child of the node at depth c (c < m - 1) is a leaf: a node in the last column,
    /// or one whose column has no open row.
    fn children_are_leaves(&self, c: u32) -> bool {
        let leaf = |w: &Walk| c + 1 == w.m - 1 || w.children(c + 1) == Some(0);
        match self.children(c) {
            None => leaf(self),
            Some(mut f) => {
                while f != 0 {
                    let mut next = *self;
                    next.place(c, f & f.wrapping_neg());
                    f &= f - 1;
                    if !leaf(&next) {
                        return false;
                    }
                }
                true
            }
        }
    }

    /// Cycles of the node at depth c with `k` children, for each unit (see the module's
    /// comment); `last`: the node is its parent's last child.
    #[inline(always)]
    fn cost(&self, c: u32, k: u32, last: bool) -> PerUnit<u64> {
        let ours = if c == 0 || c == self.m - 1 || k == 0 {
            1
        } else {
            1 + (last || !self.children_are_leaves(c)) as u64
        };
        PerUnit {
            ours,
            tud: tud::node_cycles(c, self.m, k),
        }
    }

    /// `last`: this node is its parent's last child (the root counts as one).
    fn subtree(&self, c: u32, last: bool) -> PerUnit<u64> {
        if c == self.m - 1 {
            return self.cost(c, 0, last);
        }
        match self.children(c) {
            None => self.cost(c, 1, last) + self.subtree(c + 1, true),
            Some(mut f) => {
                let mut sum = self.cost(c, f.count_ones(), last);
                while f != 0 {
                    let q = f & f.wrapping_neg();
                    f &= f - 1;
                    let mut next = *self;
                    next.place(c, q);
                    sum += next.subtree(c + 1, f == 0);
                }
                sum
            }
        }
    }
}

/// Each unit's cycles on `b` walked as given, from the tree's node prices (ours equal to
/// [`crate::model::run_unit`]'s cycles; the test of that is the check on this sum).
pub fn cycles(b: &Blocking) -> PerUnit<u64> {
    grid_cycles(&Grid::of_blocking(b))
}

/// Each unit's cycles on the walk of grid `g` (of a subproblem, or of a south group).
pub fn grid_cycles(g: &Grid) -> PerUnit<u64> {
    Walk::new(g).subtree(0, true)
}

fn weighted(weight: f64, cost: PerUnit<u64>) -> PerUnit<f64> {
    PerUnit {
        ours: weight * cost.ours as f64,
        tud: weight * cost.tud as f64,
    }
}

/// One random probe of the walk of `b` (as given, not turned): an unbiased estimate of each
/// unit's cycles, from one path.
pub fn probe(b: &Blocking, rng: &mut fastrand::Rng) -> PerUnit<f64> {
    grid_probe(&Grid::of_blocking(b), rng)
}

/// One random probe of the walk of grid `g`.
pub fn grid_probe(g: &Grid, rng: &mut fastrand::Rng) -> PerUnit<f64> {
    let mut w = Walk::new(g);
    let mut weight = 1.0f64;
    let mut sum = PerUnit::default();
    let mut last = true;
    for c in 0..w.m {
        if c == w.m - 1 {
            return sum + weighted(weight, w.cost(c, 0, last));
        }
        match w.children(c) {
            None => {
                sum += weighted(weight, w.cost(c, 1, last));
                last = true;
            }
            Some(f) => {
                let k = f.count_ones();
                sum += weighted(weight, w.cost(c, k, last));
                if k == 0 {
                    return sum;
                }
                // The pick-th set bit of f.
                let pick = rng.u32(0..k);
                let mut g = f;
                for _ in 0..pick {
                    g &= g - 1;
                }
                w.place(c, g & g.wrapping_neg());
                weight *= k as f64;
                last = pick == k - 1;
            }
        }
    }
    sum
}

/// The mean of `probes` probes of `b`.
pub fn probe_mean(b: &Blocking, probes: u32, rng: &mut fastrand::Rng) -> PerUnit<f64> {
    grid_probe_mean(&Grid::of_blocking(b), probes, rng)
}

/// The mean of `probes` probes of the walk of grid `g`.
pub fn grid_probe_mean(g: &Grid, probes: u32, rng: &mut fastrand::Rng) -> PerUnit<f64> {
    let p = probes.max(1);
    let sum = (0..p).fold(PerUnit::default(), |s, _| s + grid_probe(g, rng));
    PerUnit {
        ours: sum.ours / p as f64,
        tud: sum.tud / p as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::run_unit;
    use queens_core::enumerate::canonical;
    use queens_core::BoardSize;

    #[test]
    fn node_costs_sum_to_the_models_cycles() {
        for n in [6, 7, 8, 9, 10, 11] {
            for sp in canonical(BoardSize::new(n).unwrap()) {
                let b = Blocking::new(&sp.pre);
                for b in [b, b.oriented()] {
                    assert_eq!(cycles(&b).ours, run_unit(&b).cycles, "N = {n}, {}", sp.pre);
                }
            }
        }
    }

    /// The same node prices on a south group's grid sum to the grouped model's walk.
    #[test]
    fn node_costs_on_a_south_grid_sum_to_the_grouped_walk() {
        use crate::grouped::{run_south_group, south_grid, south_groups};
        use queens_core::south::SouthWalk;
        for n in [8, 9, 10, 11] {
            for m in south_groups(BoardSize::new(n).unwrap()) {
                let g = south_grid(&SouthWalk::new(&m));
                assert_eq!(grid_cycles(&g).ours, run_south_group(&m).cycles, "N = {n}, {m}");
            }
        }
    }

    #[test]
    fn probes_average_to_the_cycles() {
        let mut rng = fastrand::Rng::with_seed(7);
        let size = BoardSize::new(14).unwrap();
        for sp in canonical(size).step_by(997).take(20) {
            let b = Blocking::new(&sp.pre).oriented();
            let exact = cycles(&b).ours as f64;
            let probes: Vec<f64> = (0..20_000).map(|_| probe(&b, &mut rng).ours).collect();
            let mean = probes.iter().sum::<f64>() / probes.len() as f64;
            let var = probes.iter().map(|p| (p - mean).powi(2)).sum::<f64>() / (probes.len() - 1) as f64;
            let se = (var / probes.len() as f64).sqrt();
            assert!(
                (mean - exact).abs() <= 5.0 * se + 1e-9,
                "{}: {mean} ± {se}, exact {exact}",
                sp.pre
            );
        }
    }
}
