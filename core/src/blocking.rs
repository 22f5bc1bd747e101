//! The inner board a solver exhausts, as the blocking vectors the ring leaves on it.
//!
//! The inner board is columns and rows 2..N-3, renumbered 0..m-1 with m = N-4. A solver walks
//! its columns left to right. The hardware decoder produces exactly these vectors from a
//! pre-placement word; this is the definition both sides are tested against.

use crate::board::RINGS;
use crate::preplacement::Preplacement;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Blocking {
    /// Inner board width m = N - 4.
    pub m: u32,
    /// Bit y: inner row y already holds a ring queen (west or east side).
    pub rows: u32,
    /// Bit x: inner column x already holds a ring queen (north or south side).
    pub cols: u32,
    /// Bit x + y (0..=2m-2): that falling diagonal holds a ring queen.
    pub down: u64,
    /// Bit y - x + m - 1 (0..=2m-2): that rising diagonal holds a ring queen.
    pub up: u64,
}

impl Blocking {
    pub fn new(pre: &Preplacement) -> Self {
        let n = pre.size().n() as i32;
        let m = n - 2 * RINGS as i32;
        let r = RINGS as i32;
        let mut b = Blocking {
            m: m as u32,
            rows: 0,
            cols: 0,
            down: 0,
            up: 0,
        };
        // A corner queen appears in two sides; setting its bits twice is harmless.
        for (x, y) in pre.cells() {
            let (x, y) = (x as i32 - r, y as i32 - r);
            if (0..m).contains(&y) {
                b.rows |= 1 << y;
            }
            if (0..m).contains(&x) {
                b.cols |= 1 << x;
            }
            let d = x + y;
            if (0..2 * m - 1).contains(&d) {
                b.down |= 1 << d;
            }
            let u = y - x + m - 1;
            if (0..2 * m - 1).contains(&u) {
                b.up |= 1 << u;
            }
        }
        b
    }

    /// Mask of the m inner lines.
    pub fn full(&self) -> u32 {
        (1 << self.m) - 1
    }

    /// Rows of inner column x that the ring leaves open.
    pub fn open_rows(&self, x: u32) -> u32 {
        let att = (self.down >> x) | (self.up >> (self.m - 1 - x));
        self.full() & !self.rows & !(att as u32)
    }

    /// Open rows of every inner column the ring does not fill (zero for the filled ones),
    /// indexed by column: where a walk over the inner board starts.
    pub fn open_table(&self) -> [u32; 32] {
        let mut open = [0u32; 32];
        for x in 0..self.m {
            if self.cols >> x & 1 == 0 {
                open[x as usize] = self.open_rows(x);
            }
        }
        open
    }

    /// The same inner board seen in another orientation (a symmetry of the whole board, so
    /// its completions are the same in number).
    pub fn turned(&self, o: Orientation) -> Blocking {
        let m = self.m;
        let d = 2 * m - 1;
        let rev = |v: u64, w: u32| v.reverse_bits() >> (64 - w);
        let (rows, cols) = (self.rows as u64, self.cols as u64);
        let (rows, cols, down, up) = match o {
            Orientation::Columns => (rows, cols, self.down, self.up),
            // x -> m-1-x: x + y becomes y - x + m - 1 and back.
            Orientation::ColumnsBack => (rows, rev(cols, m), self.up, self.down),
            // (x, y) -> (y, x): x + y stays, y - x + m - 1 becomes 2m - 2 minus itself.
            Orientation::Rows => (cols, rows, self.down, rev(self.up, d)),
            Orientation::RowsBack => (cols, rev(rows, m), rev(self.up, d), self.down),
        };
        Blocking {
            m,
            rows: rows as u32,
            cols: cols as u32,
            down,
            up,
        }
    }

    /// How costly a walk of this board from column 0 looks: over its first [`scored_lines`]
    /// columns, the rows each leaves open, and [`filled_line_score`] for a column the ring
    /// fills. A walk that starts in tight columns prunes early; a column the ring fills
    /// prunes nothing and only delays the walk's constraints.
    pub fn walk_score(&self) -> u32 {
        (0..scored_lines(self.m)).map(|x| self.line_score(x)).sum()
    }

    /// Column x's part of [`walk_score`](Self::walk_score).
    pub fn line_score(&self, x: u32) -> u32 {
        if self.cols >> x & 1 != 0 {
            filled_line_score(self.m)
        } else {
            self.open_rows(x).count_ones()
        }
    }

    /// The orientation the array's front end hands a solver unit: the one with the lowest
    /// [`walk_score`](Self::walk_score), the first in [`Orientation::ALL`] on a tie.
    pub fn orientation(&self) -> Orientation {
        let mut best = (u32::MAX, Orientation::Columns);
        for o in Orientation::ALL {
            let s = self.turned(o).walk_score();
            if s < best.0 {
                best = (s, o);
            }
        }
        best.1
    }

    /// The board as a solver unit walks it: [`turned`](Self::turned) to its
    /// [`orientation`](Self::orientation).
    pub fn oriented(&self) -> Blocking {
        self.turned(self.orientation())
    }
}

/// The most leading columns [`Blocking::walk_score`] looks at (the front end's slots).
pub const SCORED_LINES: u32 = 8;

/// Leading columns [`Blocking::walk_score`] looks at on an inner board m wide: half of them,
/// at most [`SCORED_LINES`]. With [`filled_line_score`], the rule that measured best by
/// probes from N = 13 to 28 (docs/design/unit.md, "The walk's orientation").
pub fn scored_lines(m: u32) -> u32 {
    (m / 2).min(SCORED_LINES)
}

/// What a column the ring fills scores in [`Blocking::walk_score`] on an inner board m wide:
/// half the width up to N = 21, two thirds beyond. Such a column prunes nothing; the larger
/// the board, the more a walk that starts in one pays for it (half the width at N = 27 left
/// our unit at 0.59 of Queens@TUD's cycles, two thirds at 0.51).
pub fn filled_line_score(m: u32) -> u32 {
    if m <= 17 {
        m / 2
    } else {
        2 * m / 3
    }
}

/// Which lines of the inner board a solver walks as its columns, and from which end. The
/// count does not depend on it, the cycles do: at N = 13 the best of the four takes under
/// half the cycles of a left-to-right walk, at N = 17 and 20 about half.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Orientation {
    /// Columns, left to right.
    Columns,
    /// Columns, right to left.
    ColumnsBack,
    /// Rows, bottom to top.
    Rows,
    /// Rows, top to bottom.
    RowsBack,
}

impl Orientation {
    /// In the order ties are broken, and as the front end numbers them (0..=3).
    pub const ALL: [Orientation; 4] = [
        Orientation::Columns,
        Orientation::ColumnsBack,
        Orientation::Rows,
        Orientation::RowsBack,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::BoardSize;

    #[test]
    fn the_walk_starts_where_the_score_is_lowest() {
        let sp = crate::enumerate::canonical(BoardSize::new(13).unwrap())
            .nth(1000)
            .unwrap();
        let b = Blocking::new(&sp.pre);
        let o = b.orientation();
        let best = b.oriented().walk_score();
        for other in Orientation::ALL {
            assert!(
                b.turned(other).walk_score() >= best,
                "{other:?} scores below {o:?}"
            );
        }
        // A ring-filled first column scores half the width up to m = 17, two thirds beyond;
        // half the columns are scored, at most eight.
        let filled = |m| Blocking {
            m,
            rows: 0,
            cols: 0b1,
            down: 0,
            up: 0,
        };
        assert_eq!(filled(9).walk_score(), 4 + 3 * 9);
        assert_eq!(filled(17).walk_score(), 8 + 7 * 17);
        assert_eq!(filled(23).walk_score(), 15 + 7 * 23);
    }

    #[test]
    fn free_lines_balance() {
        // Every inner column without a ring queen needs one inner row without one.
        for n in 6..=12 {
            for sp in crate::enumerate::canonical(BoardSize::new(n).unwrap()) {
                let b = Blocking::new(&sp.pre);
                assert_eq!(b.rows.count_ones(), b.cols.count_ones(), "{}", sp.pre);
                assert_eq!(b.down >> (2 * b.m - 1), 0);
                assert_eq!(b.up >> (2 * b.m - 1), 0);
            }
        }
    }
}
