//! Several stages in series (rust-hdl simulation): every result comes back once, from the
//! unit it was given to, with the software count, its residues, and the model's cycles,
//! whatever order the units finish in.

use queens_core::enumerate::canonical;
use queens_core::{completions, Blocking, BoardSize};
use queens_hdl::rtl::RtlChain;
use queens_hdl::ArbiterKind;
use queens_sim::run_unit;

#[test]
fn chain_of_three_returns_every_result_once() {
    let subs: Vec<_> = canonical(BoardSize::new(9).unwrap()).collect();
    let blocks: Vec<Blocking> = subs.iter().map(|sp| Blocking::new(&sp.pre)).collect();
    let results = RtlChain::<5, 6, 9, 3>::new(ArbiterKind::Carry4).run_all(&blocks);
    let mut per_unit = [0usize; 3];
    for ((sp, b), r) in subs.iter().zip(&blocks).zip(&results) {
        let want = completions(&sp.pre);
        assert_eq!(r.count, want, "{}", sp.pre);
        assert_eq!(
            (r.mod13 as u64, r.mod15 as u64),
            (want % 13, want % 15),
            "{}",
            sp.pre
        );
        assert_eq!(r.cycles, run_unit(b).cycles, "{}", sp.pre);
        per_unit[r.unit] += 1;
    }
    assert!(per_unit.iter().all(|&k| k > 0), "every unit worked: {per_unit:?}");
}

/// Grouped stages in series: every group's records come back whole (a record per place code
/// in code order, then the end record), from the unit it was given to, as the model's.
#[test]
fn grouped_chain_of_three_returns_every_group_whole() {
    use queens_core::south::SouthWalk;
    use queens_hdl::rtl::RtlGroupedChain;
    let members = queens_sim::grouped::south_groups(BoardSize::new(9).unwrap());
    let walks: Vec<SouthWalk> = members.iter().map(SouthWalk::new).collect();
    let runs = RtlGroupedChain::<5, 6, 11, 3>::new(ArbiterKind::Carry4).run_all(&walks);
    let mut per_unit = [0usize; 3];
    for (p, (records, unit)) in members.iter().zip(&runs) {
        assert_eq!(
            records,
            &queens_sim::grouped::run_south_group(p).records(0),
            "{p}"
        );
        per_unit[*unit] += 1;
    }
    assert!(
        runs.iter().any(|(r, _)| r.len() > 2),
        "a group with more than one south side"
    );
    assert!(per_unit.iter().all(|&k| k > 0), "every unit worked: {per_unit:?}");
}
