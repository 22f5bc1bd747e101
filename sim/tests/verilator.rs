//! The emitted Verilog under Verilator: the whole core (frames in as bytes, frame parser, an
//! array of many units, framer, frames out as bytes) against software and the cycle model.

use queens_core::enumerate::canonical;
use queens_core::BoardSize;
use queens_hdl::ArbiterKind;
use queens_sim::check::VerilatorEngine;
use queens_sim::{check, ModelEngine};

fn all(n: u32) -> (BoardSize, Vec<(u64, queens_core::Subproblem)>) {
    let size = BoardSize::new(n).unwrap();
    (
        size,
        canonical(size).enumerate().map(|(i, s)| (i as u64, s)).collect(),
    )
}

#[test]
fn emitted_core_counts_n8_to_n12_like_software_with_the_model_cycles() {
    for n in 8..=12 {
        let (size, subs) = all(n);
        let t = std::time::Instant::now();
        let engine = VerilatorEngine::new(ArbiterKind::Carry4, 16);
        let r = check(&engine, size, &subs).unwrap();
        eprintln!("N = {n}: {} subproblems in {:?}", subs.len(), t.elapsed());
        assert_eq!(r.mismatch_count, 0, "N = {n}: {:?}", r.mismatches);
        let model = check(&ModelEngine, size, &subs).unwrap();
        assert_eq!(r.tally.total(), model.tally.total());
        for (i, (a, b)) in r.runs.iter().zip(&model.runs).enumerate() {
            assert_eq!(a, b, "N = {n}, subproblem {i}: verilator vs model");
        }
    }
}
