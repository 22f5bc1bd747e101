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
fn model_needs_fewer_cycles_than_the_reference_unit() {
    // Queens@TUD unit: 1,086,846 cycles for all of N = 12, 6,608,013 for N = 13.
    for (n, reference) in [(12, 1_086_846u64), (13, 6_608_013)] {
        let r = check(&ModelEngine, BoardSize::new(n).unwrap(), &all(n)).unwrap();
        assert!(
            r.cycles < reference,
            "N = {n}: {} cycles, reference {reference}",
            r.cycles
        );
    }
}
