//! The model against docs/spec/known-counts.md: known Q(N), and per-class pre-placement counts
//! and solution sums of the coronal (L = 2) decomposition.

use queens_core::count::count;
use queens_core::plain::plain_count;
use queens_core::{BoardSize, Enumerator, Symmetry};
use std::sync::atomic::AtomicU64;

/// Q(N) for N = 1..=27 (docs/spec/known-counts.md).
const Q: [u128; 28] = [
    0,
    1,
    0,
    0,
    2,
    10,
    4,
    40,
    92,
    352,
    724,
    2_680,
    14_200,
    73_712,
    365_596,
    2_279_184,
    14_772_512,
    95_815_104,
    666_090_624,
    4_968_057_848,
    39_029_188_884,
    314_666_222_712,
    2_691_008_701_644,
    24_233_937_684_440,
    227_514_171_973_736,
    2_207_893_435_808_352,
    22_317_699_616_364_044,
    234_907_967_154_122_528,
];

/// N, pre NONE, POINT, ROTATE, sol NONE, POINT, ROTATE (docs/spec/known-counts.md).
const CLASSES: [(u32, [u64; 3], [u64; 3]); 8] = [
    (10, [3_696, 38, 5], [89, 3, 0]),
    (11, [14_614, 47, 5], [329, 12, 0]),
    (12, [51_301, 170, 13], [1_764, 20, 4]),
    (13, [163_839, 191, 13], [9_193, 40, 4]),
    (14, [473_312, 574, 25], [45_628, 143, 0]),
    (15, [1_257_054, 615, 25], [284_701, 394, 0]),
    (16, [3_071_660, 1_514, 41], [1_845_719, 1_674, 32]),
    (17, [6_997_422, 1_583, 41], [11_974_535, 4_566, 280]),
];

fn size(n: u32) -> BoardSize {
    BoardSize::new(n).unwrap()
}

#[test]
fn both_counters_agree_with_known_q_for_6_to_14() {
    for n in 6..=14 {
        let t = count(size(n), &AtomicU64::new(0));
        assert_eq!(t.total(), Q[n as usize], "pre-placement counter, N = {n}");
        assert_eq!(plain_count(n) as u128, Q[n as usize], "plain counter, N = {n}");
    }
}

#[test]
fn plain_counter_small_boards() {
    for n in 1..=9 {
        assert_eq!(plain_count(n) as u128, Q[n as usize], "N = {n}");
    }
}

#[test]
fn classes_match_reference_for_10_to_14() {
    for &(n, pre, sol) in CLASSES.iter().filter(|c| c.0 <= 14) {
        let t = count(size(n), &AtomicU64::new(0));
        assert_eq!(t.preplacements, pre, "pre-placements per class, N = {n}");
        assert_eq!(t.solutions, sol, "solutions per class, N = {n}");
    }
}

#[test]
fn census_matches_reference_up_to_17() {
    for &(n, pre, _) in &CLASSES {
        let c = Enumerator::new(size(n)).census();
        assert_eq!(c.count, pre, "census N = {n}");
        assert_eq!(c.get(Symmetry::None), pre[0]);
    }
}

/// N = 15, 16: a few seconds, so the test profile is optimised (see Cargo.toml).
#[test]
fn classes_match_reference_for_15_and_16() {
    for &(n, pre, sol) in CLASSES.iter().filter(|c| (15..=16).contains(&c.0)) {
        let t = count(size(n), &AtomicU64::new(0));
        assert_eq!(t.preplacements, pre, "pre-placements per class, N = {n}");
        assert_eq!(t.solutions, sol, "solutions per class, N = {n}");
        assert_eq!(t.total(), Q[n as usize]);
        assert_eq!(plain_count(n) as u128, Q[n as usize]);
    }
}
