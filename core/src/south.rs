//! The walk of a south group (issue 50): the pre-placements that share a west, north and
//! east side, walked once with the south side's two rows left open.
//!
//! The walk's lines are the rows N-3 down to 0 (line i is row N-3-i), each with the inner
//! columns 2..=N-3 as its positions (position j is column 2+j): l = N-2 lines of m = N-4
//! positions. The blocking vectors are those of [`crate::Blocking`] on that grid: the queens
//! the group fixes (its three sides, and a south corner queen, which belongs to the west or
//! east side too) on its positions, lines and diagonals. A solution's south side is read off
//! the places of its last two queens, as a *place code*: what a grouped unit tallies by, and
//! what its records carry (docs/spec/protocol.md, "Group frames").

use crate::board::PairTable;
use crate::preplacement::Preplacement;

/// Bits of one line's place in a place code.
pub const PLACE_BITS: u32 = 5;
/// The place of a line whose queen the group fixes (a south corner queen): no inner column.
pub const HELD: u32 = 30;

/// The blocking of a south group's walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SouthWalk {
    /// Positions per line, N - 4.
    pub m: u32,
    /// Lines, N - 2.
    pub l: u32,
    /// Bit j: position j's column holds a fixed queen.
    pub rows: u32,
    /// Bit i: line i holds a fixed queen (a west or east queen in that row).
    pub cols: u32,
    /// Bit i + j (0..=l+m-2): that falling diagonal holds a fixed queen.
    pub down: u64,
    /// Bit j - i + l - 1 (0..=l+m-2): that rising diagonal holds a fixed queen.
    pub up: u64,
    /// The column of a fixed queen in row 1 and in row 0 (the last two lines), if any.
    held: [Option<u32>; 2],
    n1: u32,
}

/// The queens of `member`'s ring that its group fixes: all but the south side's own off the
/// corners (its queens in rows 0 and 1 at inner columns, which the walk places).
pub fn fixed_queens(member: &Preplacement) -> Vec<(u32, u32)> {
    let n1 = member.size().n() - 1;
    member
        .queens()
        .into_iter()
        .filter(|&(x, y)| y >= 2 || x < 2 || x > n1 - 2)
        .collect()
}

impl SouthWalk {
    /// The walk of the group of `member` (any of its members: the south side is ignored).
    pub fn new(member: &Preplacement) -> Self {
        let n = member.size().n();
        let (m, l) = (n - 4, n - 2);
        let mut w = SouthWalk {
            m,
            l,
            rows: 0,
            cols: 0,
            down: 0,
            up: 0,
            held: [None; 2],
            n1: n - 1,
        };
        for (x, y) in fixed_queens(member) {
            if y < 2 {
                w.held[1 - y as usize] = Some(x);
            }
            let (i, j) = ((n - 3) as i32 - y as i32, x as i32 - 2);
            if (0..m as i32).contains(&j) {
                w.rows |= 1 << j;
            }
            if (0..l as i32).contains(&i) {
                w.cols |= 1 << i;
            }
            let diagonals = 0..(l + m - 1) as i32;
            if diagonals.contains(&(i + j)) {
                w.down |= 1 << (i + j);
            }
            let u = j - i + l as i32 - 1;
            if diagonals.contains(&u) {
                w.up |= 1 << u;
            }
        }
        w
    }

    /// Open positions of line i (zero for a line a fixed queen fills).
    pub fn open(&self, i: u32) -> u32 {
        if self.cols >> i & 1 != 0 {
            return 0;
        }
        let att = (self.down >> i) | (self.up >> (self.l - 1 - i));
        ((1 << self.m) - 1) & !self.rows & !(att as u32)
    }

    /// [`open`](Self::open) of every line, indexed by line.
    pub fn open_table(&self) -> [u32; 32] {
        std::array::from_fn(|i| {
            if (i as u32) < self.l {
                self.open(i as u32)
            } else {
                0
            }
        })
    }

    /// The place code of a solution whose queens in rows 1 and 0 stand at positions `prev`
    /// and `last` (`None` for a row the group fixes): row 1's place above row 0's.
    pub fn place_code(prev: Option<u32>, last: Option<u32>) -> u32 {
        prev.unwrap_or(HELD) << PLACE_BITS | last.unwrap_or(HELD)
    }

    /// The south side's pair index of place code `code`, if it names a south side this group
    /// can complete with (each place an inner position or [`HELD`] for a row the group fixes).
    pub fn south(&self, code: u32, table: &PairTable) -> Option<u32> {
        let column = |place: u32, held: Option<u32>| match (place, held) {
            (HELD, Some(x)) => Some(x),
            (p, None) if p < self.m => Some(2 + p),
            _ => None,
        };
        let x1 = column(code >> PLACE_BITS & ((1 << PLACE_BITS) - 1), self.held[0])?;
        let x0 = column(code & ((1 << PLACE_BITS) - 1), self.held[1])?;
        if code >> (2 * PLACE_BITS) != 0 {
            return None;
        }
        // A south side (a, b) has its queens at columns N-1-a (row 0) and N-1-b (row 1).
        table.index(self.n1 - x0, self.n1 - x1)
    }
}
