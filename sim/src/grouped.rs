//! The grouped walk of issue 50, step 2: one walk per (west, north, east) with the south
//! side's two rows left open ([`queens_core::south`]), each solution tallied under the place
//! code of its last two queens, so that one walk counts every pre-placement of the group. This
//! is the cycle model the grouped unit's engines are held to (the rust-hdl unit so far:
//! `queens_hdl::rtl`); today's unit is [`crate::model`]. The research behind it, and what it
//! saves at N = 27: docs/design/unit.md, "More than one pre-placement per walk".

use crate::model::{Grid, Unit};
use queens_core::board::PairTable;
use queens_core::group::GroupRecord;
use queens_core::south::SouthWalk;
use queens_core::Preplacement;
use std::collections::BTreeMap;

/// One walk of a south group: its cycles, start to done, and the completions it found per
/// place code (entries whose ring is not canonical are walked and counted too, and a caller
/// records only its group's members).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupRun {
    pub cycles: u64,
    pub places: BTreeMap<u32, u64>,
}

/// One member of every south group of `size`, in canonical order: the canonical entries that
/// share a west, north and east side follow one another in that order.
pub fn south_groups(size: queens_core::BoardSize) -> Vec<Preplacement> {
    let table = PairTable::new(size);
    let mut firsts: Vec<_> = queens_core::enumerate::canonical(size).map(|sp| sp.pre).collect();
    firsts.dedup_by_key(|p| p.side_indices(&table)[..3].to_vec());
    firsts
}

/// The grid of a south group's walk (for the model's unit).
pub fn south_grid(walk: &SouthWalk) -> Grid {
    Grid {
        l: walk.l,
        open: walk.open_table(),
        filled: walk.cols,
    }
}

/// Walks the south group of `member` (any of its members) with today's step (the held
/// uncle) on its grid.
pub fn run_south_group(member: &Preplacement) -> GroupRun {
    let walk = SouthWalk::new(member);
    let mut places = BTreeMap::new();
    let cycles = Unit::on_grid(&south_grid(&walk), false).run_with(|pos, _| {
        let l = pos.len();
        *places
            .entry(SouthWalk::place_code(pos[l - 2], pos[l - 1]))
            .or_insert(0) += 1;
    });
    GroupRun { cycles, places }
}

impl GroupRun {
    /// The completions per south pair index, as [`queens_core::sweep::Sweep::souths`] gives
    /// them.
    pub fn souths(&self, member: &Preplacement, table: &PairTable) -> Vec<u64> {
        let walk = SouthWalk::new(member);
        let mut out = vec![0; member.size().pairs() as usize];
        for (&code, &count) in &self.places {
            let s = walk
                .south(code, table)
                .expect("a solution's place code names a south side");
            out[s as usize] += count;
        }
        out
    }

    /// The records a board of grouped units sends for this walk of the group of wire word
    /// `wire`: one per place code with a completion, in code order, then the end record.
    pub fn records(&self, wire: u64) -> Vec<GroupRecord> {
        let places: Vec<(u32, u64)> = self.places.iter().map(|(&code, &c)| (code, c)).collect();
        GroupRecord::answer(wire, &places, self.cycles)
    }
}
