//! The grouped walk of issue 50, step 2 (not yet a circuit): one walk per (west, north, east)
//! with the south side's two rows left open, each solution tallied under the south side its
//! last two queens imply, so that one walk counts every pre-placement of the group. This is
//! the cycle model the grouped unit's engines will be held to; today's unit is
//! [`crate::model`]. The research behind it, and what it saves at N = 27:
//! docs/design/unit.md, "More than one pre-placement per walk".

use queens_core::blocking::{filled_line_score, scored_lines};
use queens_core::board::PairTable;
use queens_core::{Blocking, BoardSize};

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

/// The unit stepped cycle by cycle on a grid: `queens_sim::model::Unit` with L lines of any
/// width, and (`e`) the uncle step from an exhausted line too. Calls `sol` with the position
/// of each line's queen (`None` for a filled line) and the cycle at every solution.
pub struct Stepper {
    l: u32,
    open: [u32; 32],
    filled: u32,
    c: u32,
    exhausted: bool,
    held: bool,
    e: bool,
    queen: [u32; 32],
    used: u32,
    down: u64,
    up: u64,
    cycles: u64,
}

impl Stepper {
    pub fn new(g: &Grid, e: bool) -> Self {
        Stepper {
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
            cycles: 0,
        }
    }

    fn free(&self, x: u32) -> u32 {
        let att = (self.down >> x) | (self.up >> (self.l - 1 - x));
        self.open[x as usize] & !self.used & !(att as u32)
    }

    fn toggle(&mut self, x: u32, q: u32) {
        let y = q.trailing_zeros();
        self.used ^= q;
        self.down ^= 1 << (x + y);
        self.up ^= 1 << (y + self.l - 1 - x);
    }

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

    /// Runs to done: the cycles.
    pub fn run(mut self, mut sol: impl FnMut(&[Option<u32>], u64)) -> u64 {
        loop {
            self.cycles += 1;
            let c = self.c;
            let last = c == self.l - 1;
            let found = if self.exhausted {
                None
            } else if self.filled >> c & 1 != 0 {
                Some(0)
            } else {
                let f = self.free(c);
                (f != 0).then(|| f & f.wrapping_neg())
            };
            if let Some(q) = found {
                if !last {
                    self.queen[c as usize] = q;
                    if q != 0 {
                        self.toggle(c, q);
                    }
                    self.c = c + 1;
                    self.exhausted = false;
                    self.held = true;
                    continue;
                }
                let pos: Vec<Option<u32>> = (0..self.l)
                    .map(|x| {
                        let q = if x == c { q } else { self.queen[x as usize] };
                        (self.filled >> x & 1 == 0).then(|| q.trailing_zeros())
                    })
                    .collect();
                sol(&pos, self.cycles);
            }
            if c == 0 {
                return self.cycles;
            }
            let p = c - 1;
            if self.raise(p) {
                self.exhausted = false;
                continue;
            }
            let held = std::mem::replace(&mut self.held, false);
            if (held || (self.e && self.exhausted)) && p >= 1 {
                let q2 = self.queen[p as usize - 1];
                if self.raise(p - 1) {
                    self.c = p;
                    self.exhausted = false;
                    continue;
                }
                if q2 != 0 {
                    self.queen[p as usize - 1] = q2;
                    self.toggle(p - 1, q2);
                }
            }
            self.c = p;
            self.exhausted = true;
            if p == 0 {
                return self.cycles;
            }
        }
    }
}

/// One walk of a south group: its cycles, start to done, and the completions it found per
/// south pair index (as [`queens_core::sweep::Sweep::souths`] gives them; entries whose ring is
/// not canonical are walked and counted too, and a caller records only its group's members).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupRun {
    pub cycles: u64,
    pub souths: Vec<u64>,
}

/// The queens of the west, north and east sides given by their pair indices (corners once).
fn three_sides(size: BoardSize, table: &PairTable, [w, n, e]: [u32; 3]) -> Vec<Cell> {
    let n1 = size.n() - 1;
    let (w0, w1) = table.pair(w);
    let (n0, nn1) = table.pair(n);
    let (e0, e1) = table.pair(e);
    let mut cells = vec![
        (0, w0),
        (1, w1),
        (n0, n1),
        (nn1, n1 - 1),
        (n1, n1 - e0),
        (n1 - 1, n1 - e1),
    ];
    cells.sort_unstable();
    cells.dedup();
    cells
}

/// The grid of the south group (w, n, e): rows N-3 down to 0 (line i is row N-3-i), each with
/// the inner columns 2..=N-3 as positions (position j is column 2+j); a row that a west or
/// east queen holds is filled.
pub fn south_grid(size: BoardSize, table: &PairTable, sides: [u32; 3]) -> Grid {
    let n1 = size.n() - 1;
    // Seen with rows as lines, north first: (x, y) -> (N-1-y, x).
    let fixed: Vec<Cell> = three_sides(size, table, sides)
        .into_iter()
        .map(|(x, y)| (n1 - y, x))
        .collect();
    Grid::new(&fixed, (2, n1), (2, n1 - 2))
}

/// Walks the south group (w, n, e) with today's step (the held uncle) on its grid.
pub fn run_south_group(size: BoardSize, table: &PairTable, sides: [u32; 3]) -> GroupRun {
    let n1 = size.n() - 1;
    let fixed = three_sides(size, table, sides);
    // A south row a west or east queen holds keeps that queen's column.
    let held = |row: u32| fixed.iter().find(|c| c.1 == row).map(|c| c.0);
    let mut souths = vec![0; size.pairs() as usize];
    let grid = south_grid(size, table, sides);
    let cycles = Stepper::new(&grid, false).run(|pos, _| {
        let l = pos.len();
        let column = |line: usize, row: u32| match pos[line] {
            Some(j) => 2 + j,
            None => held(row).expect("a filled south row holds a side's queen"),
        };
        // The south side's coordinates, as `Preplacement::coords` gives them.
        let (x1, x0) = (column(l - 2, 1), column(l - 1, 0));
        let s = table
            .index(n1 - x0, n1 - x1)
            .expect("a solution's south side is a valid pair");
        souths[s as usize] += 1;
    });
    GroupRun { cycles, souths }
}
