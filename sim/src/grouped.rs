//! The grouped walk of issue 50, step 2 (not yet a circuit): one walk per (west, north, east)
//! with the south side's two rows left open, each solution tallied under the south side its
//! last two queens imply, so that one walk counts every pre-placement of the group. This is
//! the cycle model the grouped unit's engines will be held to; today's unit is
//! [`crate::model`]. The research behind it, and what it saves at N = 27:
//! docs/design/unit.md, "More than one pre-placement per walk".

use crate::model::{Cell, Grid, Unit};
use queens_core::board::PairTable;
use queens_core::group::GroupRecord;
use queens_core::Preplacement;

/// One walk of a south group: its cycles, start to done, and the completions it found per
/// south pair index (as [`queens_core::sweep::Sweep::souths`] gives them; entries whose ring is
/// not canonical are walked and counted too, and a caller records only its group's members).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupRun {
    pub cycles: u64,
    pub souths: Vec<u64>,
}

/// The queens of `member`'s ring that its group fixes: all but the south side's own (the
/// queens of rows 0 and 1 off the corners, which the walk places).
fn fixed_of(member: &Preplacement) -> Vec<Cell> {
    let n1 = member.size().n() - 1;
    member
        .queens()
        .into_iter()
        .filter(|&(x, y)| y >= 2 || x < 2 || x > n1 - 2)
        .collect()
}

/// The grid of the south group of `member` (any of its members): rows N-3 down to 0 (line i
/// is row N-3-i), each with the inner columns 2..=N-3 as positions (position j is column
/// 2+j); a row that a west or east queen holds is filled.
pub fn south_grid(member: &Preplacement) -> Grid {
    let n1 = member.size().n() - 1;
    // Seen with rows as lines, north first: (x, y) -> (N-1-y, x).
    let fixed: Vec<Cell> = fixed_of(member).into_iter().map(|(x, y)| (n1 - y, x)).collect();
    Grid::new(&fixed, (2, n1), (2, n1 - 2))
}

/// Walks the south group of `member` (any of its members) with today's step (the held
/// uncle) on its grid.
pub fn run_south_group(member: &Preplacement, table: &PairTable) -> GroupRun {
    let size = member.size();
    let n1 = size.n() - 1;
    let fixed = fixed_of(member);
    // A south row a west or east queen holds keeps that queen's column.
    let held = |row: u32| fixed.iter().find(|c| c.1 == row).map(|c| c.0);
    let mut souths = vec![0; size.pairs() as usize];
    let cycles = Unit::on_grid(&south_grid(member), false).run_with(|pos, _| {
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

impl GroupRun {
    /// The records a board of grouped units sends for this walk of the group of wire word
    /// `wire`: one per south side with a completion, in pair-index order, then the end record.
    pub fn records(&self, wire: u64) -> Vec<GroupRecord> {
        let mut out: Vec<GroupRecord> = (0u32..)
            .zip(&self.souths)
            .filter(|(_, &c)| c > 0)
            .map(|(s, &c)| GroupRecord::south(wire, s, c))
            .collect();
        out.push(GroupRecord::end(wire, out.len() as u32, self.cycles));
        out
    }
}
