//! The fast cycle model of one solver unit: the circuit's state and decisions, one call of
//! [`Unit::step`] per clock cycle, in machine words.
//!
//! The unit walks the inner columns left to right. Each cycle it looks at two columns at
//! once, with two carry-chain arbiters:
//! - A, the active column c, searched from its lowest row (it has just been entered);
//! - B, the column c-1 behind it, searched from just above the queen it holds.
//!
//! An advance also keeps what B found in that cycle, the next row for the queen of c-2 (the
//! *held uncle*); it stays valid while the unit stands in c and only moves the queen of c-1,
//! and is dropped by any step back. Each cycle the unit does exactly one of:
//! - *advance*: A found a row (or c is pre-occupied by the ring): place it, c += 1;
//! - *sibling*: A found nothing (or c was already exhausted) but B found a row: move the
//!   queen of c-1 there and enter c afresh;
//! - *uncle*: neither found a row but the uncle is held: lift the queen of c-1, move the queen
//!   of c-2 to the held row, c -= 1, and enter it afresh (a retreat and a sibling in one);
//! - *retreat*: none of these: lift the queen of c-1, c -= 1, and mark c exhausted.
//!
//! A row found by A in the last column is a solution; the cycle then goes on as if A had
//! found nothing, so the last column costs no cycle of its own. The unit is done when the
//! column to retreat to would be -1. The cycle that loads a subproblem is not counted.
//!
//! In an array the unit never sees a subproblem's board as decoded: the front end first turns
//! it to the orientation of `Blocking::oriented` (columns or rows, from either end, whichever
//! starts in the tightest lines), which [`run_subproblem`] does too. That choice halves the
//! cycles of most subproblems and costs the unit nothing.

use queens_core::blocking::{filled_line_score, scored_lines};
use queens_core::{Blocking, Preplacement};

/// A square of the board: (column, row).
pub type Cell = (u32, u32);

/// A walk: `l` lines walked in order, each filled by a ring queen (bit of `filled`) or a
/// mask of the positions the fixed queens leave open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    pub l: u32,
    pub open: [u32; 32],
    pub filled: u32,
}

impl Grid {
    /// The lines x in `xs` (columns of the frame), positions y in `ys`, of a board holding
    /// the queens `fixed`.
    pub fn new(fixed: &[Cell], xs: (u32, u32), ys: (u32, u32)) -> Grid {
        let mut g = Grid {
            l: xs.1 - xs.0 + 1,
            open: [0; 32],
            filled: 0,
        };
        for (i, x) in (xs.0..=xs.1).enumerate() {
            if fixed.iter().any(|q| q.0 == x) {
                g.filled |= 1 << i;
                continue;
            }
            for (j, y) in (ys.0..=ys.1).enumerate() {
                let free = fixed
                    .iter()
                    .all(|q| q.1 != y && q.0.abs_diff(x) != q.1.abs_diff(y));
                g.open[i] |= (free as u32) << j;
            }
        }
        g
    }

    pub fn of_blocking(b: &Blocking) -> Grid {
        Grid {
            l: b.m,
            open: b.open_table(),
            filled: b.cols,
        }
    }

    /// The front end's score of the walk: its first lines' open positions, a filled line
    /// scored as `filled_line_score` (the rule of `Blocking::walk_score`, for N - 4 = `m`).
    pub fn score(&self, m: u32) -> u32 {
        (0..scored_lines(m))
            .map(|x| {
                if self.filled >> x & 1 != 0 {
                    filled_line_score(m)
                } else {
                    self.open[x as usize].count_ones()
                }
            })
            .sum()
    }
}

/// What one clock cycle did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Advance,
    Sibling,
    Uncle,
    Retreat,
    Done,
}

/// Solutions and cycles of one subproblem on one unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UnitRun {
    pub solutions: u64,
    pub cycles: u64,
}

/// One solver unit between its start and its done.
#[derive(Debug, Clone)]
pub struct Unit {
    /// Lines walked (columns of the inner board, N - 4; N - 2 rows for a grouped walk).
    l: u32,
    /// Positions of line x the ring leaves open.
    open: [u32; 32],
    /// Columns the ring already fills: entered and left without a queen.
    filled: u32,
    /// Active column.
    c: u32,
    /// The active column has been searched to its end (entered by a retreat).
    exhausted: bool,
    /// The uncle is held: c was entered by an advance, and since then only the queen of c-1
    /// has moved. The circuit keeps the row B found in that advance; the queens it depends
    /// on (left of c-1) have not moved since, so the model searches for it again when used.
    held: bool,
    /// One-hot queen of each column left of c (0 for a filled column).
    queen: [u32; 32],
    /// Takes the uncle from an exhausted column too (variant E of docs/design/unit.md;
    /// research only, no circuit has it).
    e: bool,
    /// Rows, falling diagonals (x + y) and rising diagonals (y - x + l - 1) of those queens.
    used: u32,
    down: u64,
    up: u64,
    /// Each line's queen at the last solution, where [`Unit::run_with`] asks for them.
    at_solution: Option<Box<[u32; 32]>>,
    /// A solution was found in the last cycle.
    pub sol: bool,
    pub solutions: u64,
    pub cycles: u64,
    done: bool,
}

impl Unit {
    pub fn new(b: &Blocking) -> Self {
        Self::on_grid(&Grid::of_blocking(b), false)
    }

    /// A unit on any walk, with variant E if `e`.
    pub fn on_grid(g: &Grid, e: bool) -> Self {
        Self {
            l: g.l,
            open: g.open,
            filled: g.filled,
            c: 0,
            exhausted: false,
            held: false,
            e,
            queen: [0; 32],
            used: 0,
            down: 0,
            up: 0,
            at_solution: None,
            sol: false,
            solutions: 0,
            cycles: 0,
            done: false,
        }
    }

    /// Active column (for comparing traces with the circuits).
    pub fn column(&self) -> u32 {
        self.c
    }

    #[inline(always)]
    fn free(&self, x: u32) -> u32 {
        let att = (self.down >> x) | (self.up >> (self.l - 1 - x));
        self.open[x as usize] & !self.used & !(att as u32)
    }

    #[inline(always)]
    fn toggle(&mut self, x: u32, q: u32) {
        let y = q.trailing_zeros();
        self.used ^= q;
        self.down ^= 1 << (x + y);
        self.up ^= 1 << (y + self.l - 1 - x);
    }

    /// Lifts the queen of column x (if it has one) and moves it to the next open row above,
    /// B's search: whether it moved. If not, the column is left without a queen.
    #[inline(always)]
    fn raise(&mut self, x: u32) -> bool {
        let q = self.queen[x as usize];
        if q == 0 {
            return false;
        }
        self.toggle(x, q);
        let f = self.free(x) & !((q << 1) - 1);
        if f == 0 {
            self.queen[x as usize] = 0;
            return false;
        }
        let s = f & f.wrapping_neg();
        self.queen[x as usize] = s;
        self.toggle(x, s);
        true
    }

    /// One clock cycle.
    #[inline]
    pub fn step(&mut self) -> Step {
        debug_assert!(!self.done);
        self.cycles += 1;
        let c = self.c;
        let last = c == self.l - 1;
        // A: the active column from its lowest row. A filled column "finds" no queen.
        let found = if self.exhausted {
            None
        } else if self.filled >> c & 1 != 0 {
            Some(0)
        } else {
            let f = self.free(c);
            (f != 0).then(|| f & f.wrapping_neg())
        };
        self.sol = found.is_some() && last;
        if let Some(q) = found {
            if !last {
                self.queen[c as usize] = q;
                if q != 0 {
                    self.toggle(c, q);
                }
                self.c = c + 1;
                self.exhausted = false;
                self.held = true;
                return Step::Advance;
            }
            self.solutions += 1;
            if let Some(at) = &mut self.at_solution {
                // Before B moves the queen of c-1 in this same cycle.
                **at = self.queen;
                at[c as usize] = q;
            }
        }
        if c == 0 {
            self.done = true;
            return Step::Done;
        }
        // B: the column behind, from just above its queen (a filled column has none).
        let p = c - 1;
        if self.raise(p) {
            self.exhausted = false;
            return Step::Sibling;
        }
        // The uncle: the row B found for the queen of c-2 when the unit advanced into c. Where
        // there is none, that queen stays.
        let held = std::mem::replace(&mut self.held, false);
        if (held || (self.e && self.exhausted)) && p >= 1 {
            let q2 = self.queen[p as usize - 1];
            if self.raise(p - 1) {
                self.c = p;
                self.exhausted = false;
                return Step::Uncle;
            }
            if q2 != 0 {
                self.queen[p as usize - 1] = q2;
                self.toggle(p - 1, q2);
            }
        }
        self.c = p;
        self.exhausted = true;
        if p == 0 {
            self.done = true;
            return Step::Done;
        }
        Step::Retreat
    }

    /// Runs to done.
    pub fn run(mut self) -> UnitRun {
        while !self.done {
            self.step();
        }
        UnitRun {
            solutions: self.solutions,
            cycles: self.cycles,
        }
    }

    /// Runs to done, calling `sol` at every solution with each line's position (`None` for
    /// a filled line) and the cycle it was found in: the cycles.
    pub fn run_with(mut self, mut sol: impl FnMut(&[Option<u32>], u64)) -> u64 {
        let mut pos = [None; 32];
        self.at_solution = Some(Box::new([0; 32]));
        while !self.done {
            self.step();
            if self.sol {
                let at = self.at_solution.as_deref().expect("set above");
                for x in 0..self.l {
                    pos[x as usize] = (self.filled >> x & 1 == 0).then(|| at[x as usize].trailing_zeros());
                }
                sol(&pos[..self.l as usize], self.cycles);
            }
        }
        self.cycles
    }
}

/// Solutions and cycles of one unit walking `b` as given.
pub fn run_unit(b: &Blocking) -> UnitRun {
    Unit::new(b).run()
}

/// Solutions and cycles of one subproblem in an array: the front end turns the inner board
/// to the orientation of [`Blocking::oriented`] before a unit walks it.
pub fn run_subproblem(pre: &Preplacement) -> UnitRun {
    run_unit(&Blocking::new(pre).oriented())
}
