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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::BoardSize;

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
