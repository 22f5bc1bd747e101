//! The emitted Verilog under Verilator: the whole core (frames in as bytes, frame parser, an
//! array of many units, framer, frames out as bytes) against software and the cycle model.

use queens_core::enumerate::canonical;
use queens_core::BoardSize;
use queens_core::UnitKind;
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

/// One run of a built board on `input`: what it sent, once it has exited well.
fn serve_once(board: &queens_sim::verilator::Verilated, input: Vec<u8>) -> Vec<u8> {
    use std::io::{Read, Write};
    let mut child = board.spawn(None).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let mut out = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    writer.join().unwrap().unwrap();
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    assert!(child.wait().unwrap().success(), "harness: {err}");
    out
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

/// The UART on its pins: frames go in bit by bit at 8 clock cycles per bit (and at 24, so
/// that the receiver's sample divider counts) and the results come back the same way; a frame
/// with a flipped bit is dropped whole and the frames after it still count.
#[test]
fn uart_top_answers_good_frames_and_drops_a_corrupted_one() {
    use queens_core::deframe::{Deframed, Deframer};
    use queens_core::frame;
    use queens_core::result::ResultRecord;
    use queens_core::{completions, word};
    use queens_hdl::emit::CoreConfig;
    use queens_sim::verilator::{Top, Verilated};

    let size = BoardSize::new(9).unwrap();
    // Half with solutions, half without.
    let (with, without): (Vec<_>, Vec<_>) = canonical(size).partition(|sp| completions(&sp.pre) > 0);
    let subs: Vec<_> = with
        .into_iter()
        .take(10)
        .chain(without.into_iter().take(10))
        .collect();
    for cycles_per_sample in [1, 3] {
        let cfg = CoreConfig::new(9, 8, UnitKind::Plain, ArbiterKind::Adder, true).unwrap();
        let board = Verilated::build(cfg, Top::Uart { cycles_per_sample }, false).unwrap();
        let mut input = vec![0x00, 0x13, 0x55]; // line noise
        let corrupted = 7;
        for (i, sp) in subs.iter().enumerate() {
            let mut f = frame::encode(&word::wire_to_bytes(size, word::encode_wire(&sp.pre).unwrap()));
            if i == corrupted {
                f[2] ^= 0x10;
            }
            input.extend(f);
        }
        let out = serve_once(&board, input);

        let mut results = Vec::new();
        Deframer::new(ResultRecord::payload_len(size, true)).push(&out, |d| match d {
            Deframed::Frame(p) => results.push(ResultRecord::decode(size, &p, true).unwrap()),
            other => panic!("the board sent something that is not a good frame: {other:?}"),
        });
        let mut want: Vec<(u64, u64)> = subs
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != corrupted)
            .map(|(_, sp)| (word::encode_wire(&sp.pre).unwrap(), completions(&sp.pre)))
            .collect();
        let mut got: Vec<(u64, u64)> = results
            .iter()
            .map(|r| (r.wire, r.true_count().unwrap()))
            .collect();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{cycles_per_sample} cycles per sample");
    }
}

/// The PCIe top's core behind its AXI4-Stream adapters, driven as XDMA would: beats of 1 to
/// 16 bytes with gaps in, a ready that comes and goes out; every subproblem of N = 10 comes
/// back once with the software count, in packets that each hold one whole frame (the harness
/// fails on any TLAST that does not end a frame).
#[test]
fn stream_top_counts_n10_through_axi4_stream_beats() {
    use queens_core::deframe::{Deframed, Deframer};
    use queens_core::frame;
    use queens_core::result::ResultRecord;
    use queens_core::{completions, word};
    use queens_hdl::emit::CoreConfig;
    use queens_sim::verilator::{Top, Verilated};

    let (size, subs) = all(10);
    let cfg = CoreConfig::new(10, 8, UnitKind::Plain, ArbiterKind::Carry4, true).unwrap();
    let board = Verilated::build(cfg, Top::Stream, false).unwrap();
    let mut input = Vec::new();
    for (_, sp) in &subs {
        input.extend(frame::encode(&word::wire_to_bytes(
            size,
            word::encode_wire(&sp.pre).unwrap(),
        )));
    }
    let out = serve_once(&board, input);
    let mut got = Vec::new();
    Deframer::new(ResultRecord::payload_len(size, true)).push(&out, |d| match d {
        Deframed::Frame(p) => {
            let r = ResultRecord::decode(size, &p, true).unwrap();
            got.push((r.wire, r.true_count().unwrap()));
        }
        other => panic!("not a good frame: {other:?}"),
    });
    let mut want: Vec<(u64, u64)> = subs
        .iter()
        .map(|(_, sp)| (word::encode_wire(&sp.pre).unwrap(), completions(&sp.pre)))
        .collect();
    want.sort();
    got.sort();
    assert_eq!(got.len(), 3_739);
    assert_eq!(got, want);
}

/// A mis-wired core (the decoder's rising diagonals shifted by one) fails the check, and the
/// report names the first subproblem that differs.
#[test]
fn checker_catches_a_miswired_core() {
    use queens_hdl::emit::{core_verilog, CoreConfig};
    let (size, subs) = all(9);
    let cfg = CoreConfig::new(9, 4, UnitKind::Plain, ArbiterKind::Adder, true).unwrap();
    let good = core_verilog(&cfg, "queens_core");
    // The decoder places a ring queen's rising diagonal at bit y - x + M - 1, the base of
    // its own index (the other vectors' bases are 0).
    let from = format!("localparam  base = 8'h{:x};", 5 - 1);
    let to = format!("localparam  base = 8'h{:x};", 5 - 2);
    assert_eq!(
        good.matches(&from).count(),
        1,
        "the decoder's diagonal offset is where the test expects it"
    );
    let mut engine = VerilatorEngine::new(ArbiterKind::Adder, 4);
    engine.design = Some(good.replace(&from, &to));
    let r = check(&engine, size, &subs).unwrap();
    assert!(r.mismatch_count > 0);
    let first = &r.mismatches[0];
    assert_ne!(first.expected, first.got);
    // The first mismatch is the first subproblem whose count differs from software.
    let model = check(&ModelEngine, size, &subs).unwrap();
    let first_differing = r
        .runs
        .iter()
        .zip(&model.runs)
        .position(|(a, b)| a.solutions != b.solutions);
    assert_eq!(Some(first.index as usize), first_differing);
}
