//! rust-hdl's simulation of the unit against the cycle model: the same count and the same
//! number of cycles for every canonical subproblem.

use queens_core::enumerate::canonical;
use queens_core::{Blocking, BoardSize};
use queens_hdl::ArbiterKind;
use queens_sim::rtl::run_blocking;
use queens_sim::run_unit;
use rayon::prelude::*;

fn agree(n: u32, kind: ArbiterKind) {
    let subs: Vec<_> = canonical(BoardSize::new(n).unwrap()).collect();
    let bad: Vec<String> = subs
        .par_iter()
        .filter_map(|sp| {
            let b = Blocking::new(&sp.pre);
            let rtl = run_blocking(&b, kind);
            let model = run_unit(&b);
            let want = queens_core::completions(&sp.pre);
            (rtl.solutions != want || rtl.cycles != model.cycles).then(|| {
                format!(
                    "{}: rtl {} sol / {} cyc, model {} cyc, software {} sol",
                    sp.pre, rtl.solutions, rtl.cycles, model.cycles, want
                )
            })
        })
        .collect();
    assert!(
        bad.is_empty(),
        "N = {n}, {kind:?}: {} disagree, first: {}",
        bad.len(),
        bad[0]
    );
}

#[test]
fn rtl_unit_agrees_for_8() {
    agree(8, ArbiterKind::Adder);
}

#[test]
fn rtl_unit_agrees_for_9_to_11() {
    for n in 9..=11 {
        agree(n, ArbiterKind::Adder);
    }
}

#[test]
fn one_unit_reused_for_many_subproblems_agrees() {
    let blocks: Vec<Blocking> = canonical(BoardSize::new(9).unwrap())
        .map(|sp| Blocking::new(&sp.pre))
        .collect();
    let runs = queens_sim::rtl::run_many(&blocks, ArbiterKind::Carry4);
    for (b, r) in blocks.iter().zip(&runs) {
        let m = run_unit(b);
        assert_eq!((r.solutions, r.cycles), (m.solutions, m.cycles), "{b:?}");
    }
}

fn groups_agree(n: u32, kind: ArbiterKind) {
    use queens_core::south::SouthWalk;
    let members = queens_sim::grouped::south_groups(BoardSize::new(n).unwrap());
    let walks: Vec<SouthWalk> = members.iter().map(SouthWalk::new).collect();
    let runs: Vec<_> = walks
        .par_chunks(16)
        .flat_map_iter(|chunk| queens_sim::rtl::run_south_groups(chunk, kind))
        .collect();
    assert_eq!(runs.len(), members.len());
    assert!(
        runs.iter().any(|r| r.len() > 1),
        "N = {n}: no solution in any group"
    );
    for (p, rtl) in members.iter().zip(&runs) {
        let model = queens_sim::grouped::run_south_group(p).records(0);
        assert_eq!(rtl, &model, "N = {n}, {kind:?}, the group of {p}");
    }
}

/// N = 8 and 9 in the adder form run through the whole core as well
/// (`grouped::grouped_cores_in_rtl_and_verilator_answer_every_group_of_8_to_11_as_the_model`).
#[test]
fn rtl_grouped_unit_and_tally_agree_on_every_south_group_of_10_and_11() {
    for n in [10, 11] {
        groups_agree(n, ArbiterKind::Adder);
    }
    groups_agree(9, ArbiterKind::Carry4);
}
