//! The cycle model against the software counter, and its cycle totals against the
//! Queens@TUD unit measured the same way (one unit, load cycles excluded).

use queens_core::enumerate::canonical;
use queens_core::{BoardSize, Subproblem};
use queens_sim::{check, ModelEngine};

fn all(n: u32) -> Vec<(u64, Subproblem)> {
    canonical(BoardSize::new(n).unwrap())
        .enumerate()
        .map(|(i, s)| (i as u64, s))
        .collect()
}

#[test]
fn model_counts_match_software_for_8_to_13() {
    for n in 8..=13 {
        let r = check(&ModelEngine, BoardSize::new(n).unwrap(), &all(n)).unwrap();
        assert_eq!(r.mismatch_count, 0, "N = {n}: {:?}", r.mismatches.first());
        assert_eq!(
            r.tally.total(),
            queens_core::plain::plain_count(n) as u128,
            "N = {n}"
        );
    }
}

#[test]
fn model_needs_at_most_six_tenths_of_the_reference_cycles() {
    // Queens@TUD unit: 1,086,846 cycles for all of N = 12, 6,608,013 for N = 13, and
    // 2,936,252 for the first 1,337 canonical subproblems of N = 17 (its VHDL, simulated).
    for (n, take, reference) in [
        (12, usize::MAX, 1_086_846u64),
        (13, usize::MAX, 6_608_013),
        (17, 1_337, 2_936_252),
    ] {
        let subs: Vec<_> = canonical(BoardSize::new(n).unwrap())
            .take(take)
            .enumerate()
            .map(|(i, s)| (i as u64, s))
            .collect();
        let r = check(&ModelEngine, BoardSize::new(n).unwrap(), &subs).unwrap();
        assert_eq!(r.mismatch_count, 0, "N = {n}");
        assert!(
            r.cycles * 10 <= reference * 6,
            "N = {n}: {} cycles, reference {reference}",
            r.cycles
        );
    }
}
