//! The whole core in rust-hdl's simulator: frames in, frames out, every count checked.

use queens_core::enumerate::canonical;
use queens_core::BoardSize;
use queens_sim::check::RtlCoreEngine;
use queens_sim::{check, ModelEngine};

#[test]
fn core_counts_every_subproblem_of_n8_like_software_and_model() {
    let size = BoardSize::new(8).unwrap();
    let subs: Vec<_> = canonical(size).enumerate().map(|(i, s)| (i as u64, s)).collect();
    let t = std::time::Instant::now();
    let r = check(
        &RtlCoreEngine {
            arbiter: queens_hdl::ArbiterKind::Adder,
        },
        size,
        &subs,
    )
    .unwrap();
    eprintln!("{} subproblems in {:?}", subs.len(), t.elapsed());
    assert_eq!(r.mismatch_count, 0, "{:?}", r.mismatches);
    assert_eq!(r.tally.total(), 92);
    let model = check(&ModelEngine, size, &subs).unwrap();
    for (i, (a, b)) in r.runs.iter().zip(&model.runs).enumerate() {
        assert_eq!(a, b, "subproblem {i}");
    }
}
