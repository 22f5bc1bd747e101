//! The whole core in rust-hdl's simulator: frames in, frames out, every count checked.

use queens_core::enumerate::canonical;
use queens_core::BoardSize;
use queens_core::UnitKind;
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

/// Every group of N = 8 through a core of two grouped stages as frames: each group's records,
/// taken out of the byte stream, are the model's. With `room` the front end holds the chain
/// while that many records are queued, and the framer is stalled three cycles in four.
fn grouped_core_answers_as_the_model(room: Option<usize>) {
    use queens_core::group::{self, GroupRecord};
    let size = BoardSize::new(8).unwrap();
    let members = queens_sim::grouped::south_groups(size);
    let ident =
        queens_hdl::emit::CoreConfig::new(8, 2, UnitKind::Grouped, queens_hdl::ArbiterKind::Adder, true)
            .unwrap()
            .ident();
    let mut core =
        queens_hdl::rtl::RtlGroupedCore::<4, 5, 9, 24, 2>::new(queens_hdl::ArbiterKind::Adder, &ident, room);
    let mut input: std::collections::VecDeque<u8> =
        members.iter().flat_map(|p| group::request(p).unwrap()).collect();
    let mut out = Vec::new();
    let mut cycle = 0u64;
    while !(input.is_empty() && core.idle()) {
        let ready = room.is_none() || cycle % 4 == 0;
        let (taken, tx) = core.step_ready(input.front().copied(), ready);
        if taken {
            input.pop_front();
        }
        out.extend(tx);
        cycle += 1;
        assert!(cycle < 5_000_000, "the core never went idle");
    }
    let flen = GroupRecord::payload_len(size) + 2;
    assert_eq!(out.len() % flen, 0, "whole record frames");
    let mut got: std::collections::HashMap<u64, Vec<GroupRecord>> = Default::default();
    for frame in out.chunks(flen) {
        let r = GroupRecord::decode(size, frame).expect("a record frame");
        got.entry(r.wire).or_default().push(r);
    }
    assert_eq!(got.len(), members.len(), "an answer for every group");
    for p in &members {
        let wire = group::group_wire(p).unwrap();
        let want = queens_sim::grouped::run_south_group(p).records(wire);
        assert_eq!(got.get(&wire), Some(&want), "the group of {p}");
    }
}

#[test]
fn grouped_core_answers_every_group_of_n8_as_the_model() {
    grouped_core_answers_as_the_model(None);
}

#[test]
fn grouped_core_holds_its_chain_when_its_record_queue_fills() {
    grouped_core_answers_as_the_model(Some(2));
}
