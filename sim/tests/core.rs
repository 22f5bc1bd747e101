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

#[test]
fn core_answers_a_request_once_and_ignores_one_with_the_wrong_crc() {
    use queens_core::deframe::{Deframed, Deframer};
    use queens_core::ident;
    // N = 8: M = 4, D = 7, W = 24.
    let size = BoardSize::new(8).unwrap();
    let mut core = queens_hdl::rtl::RtlCore::<4, 5, 7, 24, 2>::new(queens_hdl::ArbiterKind::Adder, true);
    let good = ident::request(size);
    let mut bad = good.clone();
    *bad.last_mut().unwrap() ^= 0x0F;
    let mut input: std::collections::VecDeque<u8> = bad.into_iter().chain(good).collect();
    let mut out = Vec::new();
    for _ in 0..2_000 {
        let (taken, tx) = core.step(input.front().copied());
        if taken {
            input.pop_front();
        }
        out.extend(tx);
    }
    assert!(input.is_empty() && core.idle());
    let mut seen = Vec::new();
    Deframer::new(queens_core::result::ResultRecord::payload_len(size, true))
        .with_ident()
        .push(&out, |d| seen.push(d));
    assert_eq!(seen, vec![Deframed::Ident(core.ident())], "{out:02x?}");
    assert_eq!(out, core.ident().encode());
}

#[test]
fn core_beyond_its_sizes_names_the_engine_that_runs_them() {
    use queens_sim::check::RTL_CORE_MAX_N;
    use queens_sim::Engine;
    let size = BoardSize::new(RTL_CORE_MAX_N + 1).unwrap();
    let sub = canonical(size).next().unwrap();
    let e = RtlCoreEngine {
        arbiter: queens_hdl::ArbiterKind::Adder,
    };
    let err = e.run(size, &[sub]).unwrap_err();
    assert!(
        err.contains("verilator") && err.contains(&format!("not {}", size.n())),
        "{err}"
    );
}
