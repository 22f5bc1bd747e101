//! rust-hdl's simulator on a unit of the width a subproblem or group needs
//! ([`queens_hdl::rtl`]'s units, stepped by hand). The choice of width is made here, so that
//! each width's simulation is compiled, optimised, in this crate: `queens-hdl` builds without
//! optimisation (its code is mostly the circuits' Verilog, which only has to be written).

use queens_core::group::GroupRecord;
use queens_core::south::SouthWalk;
use queens_core::Blocking;
use queens_hdl::rtl::{RtlGroupedUnit, RtlRun, RtlUnit};
use queens_hdl::ArbiterKind;

/// Walks south groups, one after another, through a single grouped unit: each group's
/// records (see [`RtlGroupedUnit::run`]) for the group word 0.
pub fn run_south_groups(walks: &[SouthWalk], kind: ArbiterKind) -> Vec<Vec<GroupRecord>> {
    let Some(first) = walks.first() else {
        return Vec::new();
    };
    queens_hdl::with_grouped_width!(first.m as usize, |M, M1, D| {
        let mut unit = RtlGroupedUnit::<M, M1, D>::new(kind);
        walks.iter().map(|w| unit.run(w, 0)).collect()
    })
}

/// Runs one subproblem through a freshly built unit of the right width.
pub fn run_blocking(b: &Blocking, kind: ArbiterKind) -> RtlRun {
    queens_hdl::with_width!(b.m as usize, |M, M1, D| RtlUnit::<M, M1, D>::new(kind).run(b))
}

/// Runs subproblems of one board, one after another, through a single unit (built and
/// checked once; each start resets it and each load rewrites the ring's blocking).
pub fn run_many(blocks: &[Blocking], kind: ArbiterKind) -> Vec<RtlRun> {
    let Some(first) = blocks.first() else {
        return Vec::new();
    };
    queens_hdl::with_width!(first.m as usize, |M, M1, D| {
        let mut unit = RtlUnit::<M, M1, D>::new(kind);
        blocks.iter().map(|b| unit.run(b)).collect()
    })
}
