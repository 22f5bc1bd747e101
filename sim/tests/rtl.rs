//! rust-hdl's simulation of the unit against the cycle model: the same count and the same
//! number of cycles for every canonical subproblem.

use queens_core::enumerate::canonical;
use queens_core::{Blocking, BoardSize};
use queens_hdl::rtl::run_blocking;
use queens_hdl::ArbiterKind;
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
    let runs = queens_hdl::rtl::run_many(&blocks, ArbiterKind::Carry4);
    for (b, r) in blocks.iter().zip(&runs) {
        let m = run_unit(b);
        assert_eq!((r.solutions, r.cycles), (m.solutions, m.cycles), "{b:?}");
    }
}
