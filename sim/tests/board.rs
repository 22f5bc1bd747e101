//! The simulated board on the wire: every subproblem answered once with the right count, and
//! the fault injector does what it says.

use queens_core::deframe::{Deframed, Deframer};
use queens_core::enumerate::canonical;
use queens_core::frame;
use queens_core::result::ResultRecord;
use queens_core::UnitKind;
use queens_core::{word, BoardSize};
use queens_sim::board::{Board, BoardConfig, Faults};
use std::time::Instant;

fn config(n: u32, faults: &str) -> BoardConfig {
    BoardConfig {
        size: BoardSize::new(n).unwrap(),
        units: 8,
        clock_hz: None,
        with_cycles: true,
        unit: UnitKind::Plain,
        faults: faults.parse().unwrap(),
        seed: 7,
    }
}

/// Sends every subproblem (8 at a time) and returns the deframer's findings.
fn drive(board: &mut Board, n: u32) -> (Vec<ResultRecord>, usize) {
    let size = BoardSize::new(n).unwrap();
    let subs: Vec<_> = canonical(size).collect();
    let mut de = Deframer::new(ResultRecord::payload_len(size, true));
    let (mut results, mut bad) = (Vec::new(), 0);
    for chunk in subs.chunks(8) {
        for sp in chunk {
            let w = word::encode_wire(&sp.pre).unwrap();
            board.receive(&frame::encode(&word::wire_to_bytes(size, w)));
        }
        de.push(&board.poll(Instant::now()), |d| match d {
            Deframed::Frame(p) => results.push(ResultRecord::decode(size, &p, true).unwrap()),
            Deframed::BadCrc { .. } => bad += 1,
            Deframed::Skipped(_) | Deframed::Ident(_) => {}
        });
    }
    (results, bad)
}

#[test]
fn answers_every_subproblem_once_with_its_count() {
    let mut b = Board::new(config(10, ""));
    let (results, bad) = drive(&mut b, 10);
    assert_eq!(bad, 0);
    let size = BoardSize::new(10).unwrap();
    assert_eq!(
        results.len() as u64,
        queens_core::Enumerator::new(size).census().total()
    );
    let total: u64 = results
        .iter()
        .map(|r| {
            let pre = word::decode_wire(size, r.wire).unwrap();
            let sym = canonical(size).find(|s| s.pre == pre).unwrap().sym;
            sym.weight() as u64 * r.true_count().unwrap()
        })
        .sum();
    assert_eq!(total, 724);
}

#[test]
fn faults_corrupt_drop_and_duplicate_frames() {
    let size = BoardSize::new(9).unwrap();
    let all = queens_core::Enumerator::new(size).census().total() as usize;
    let (r, bad) = drive(&mut Board::new(config(9, "corrupt=1")), 9);
    assert_eq!((r.len(), bad > 0), (0, true), "every frame corrupted");
    let (r, _) = drive(&mut Board::new(config(9, "drop=1")), 9);
    assert!(r.is_empty(), "every frame dropped");
    let (r, _) = drive(&mut Board::new(config(9, "dup=1")), 9);
    assert_eq!(r.len(), 2 * all, "every frame twice");
    let mut b = Board::new(config(9, "drop=0.5"));
    let (r, _) = drive(&mut b, 9);
    assert!(r.len() > all / 4 && r.len() < 3 * all / 4, "{} of {all}", r.len());
    assert_eq!(b.stats.dropped as usize + r.len(), all);
}

#[test]
fn fault_lists_name_what_is_wrong() {
    assert_eq!("".parse::<Faults>().unwrap(), Faults::default());
    let f: Faults = "corrupt=0.01, drop=0.5,dup=0,reset=2.5".parse().unwrap();
    assert_eq!((f.corrupt, f.drop, f.dup), (0.01, 0.5, 0.0));
    assert_eq!(f.reset.unwrap().as_secs_f64(), 2.5);
    for (bad, says) in [
        ("corrupt=2", "corrupt=2"),
        ("drop", "drop"),
        ("flip=0.1", "flip=0.1"),
        ("reset=-1", "reset=-1"),
        // Beyond what a Duration holds, or so often that nothing would get out: refused.
        ("reset=1e308", "reset=1e308"),
        ("reset=inf", "reset=inf"),
        ("reset=NaN", "reset=NaN"),
        ("reset=1e-300", "reset=1e-300"),
    ] {
        let e = bad.parse::<Faults>().unwrap_err().to_string();
        assert!(e.contains(says), "{bad}: {e}");
    }
}

/// The board on a pseudo-terminal, opened by path the way the host opens a USB UART.
#[test]
fn serves_on_a_pseudo_terminal() {
    use std::io::{Read, Write};
    let (port, path) = queens_sim::pty::open().unwrap();
    std::thread::spawn(move || {
        let mut out = port.try_clone().unwrap();
        Board::new(config(10, "")).serve(port, &mut out)
    });
    let mut dev = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    let size = BoardSize::new(10).unwrap();
    let sp = canonical(size)
        .find(|s| queens_core::completions(&s.pre) > 0)
        .unwrap();
    let w = word::encode_wire(&sp.pre).unwrap();
    dev.write_all(&frame::encode(&word::wire_to_bytes(size, w)))
        .unwrap();
    let mut de = Deframer::new(ResultRecord::payload_len(size, true));
    let mut got = None;
    let mut buf = [0u8; 64];
    while got.is_none() {
        let n = dev.read(&mut buf).unwrap();
        de.push(&buf[..n], |d| {
            if let Deframed::Frame(p) = d {
                got = Some(ResultRecord::decode(size, &p, true).unwrap());
            }
        });
    }
    let r = got.unwrap();
    assert_eq!(r.wire, w);
    assert_eq!(r.true_count().unwrap(), queens_core::completions(&sp.pre));
}

/// A grouped board (issue 50) answers each group request with the grouped model's records,
/// says it is one when identified, and drops a plain pre-placement frame as corrupt; a lie
/// is every south record's count one off, the end record's residues to match, its frames
/// otherwise sound.
#[test]
fn a_grouped_board_answers_each_group_with_its_records() {
    use queens_core::group::{self, Body, GroupRecord};
    let size = BoardSize::new(9).unwrap();
    let cfg = BoardConfig {
        unit: UnitKind::Grouped,
        ..config(9, "")
    };
    assert_eq!(cfg.ident().unit, UnitKind::Grouped);
    let mut board = Board::new(cfg.clone());
    let members = queens_sim::grouped::south_groups(size);
    let plain = word::encode_wire(&members[0]).unwrap();
    board.receive(&frame::encode(&word::wire_to_bytes(size, plain)));
    assert!(board.poll(Instant::now()).is_empty());
    assert_eq!((board.stats.received, board.stats.bad_frames), (0, 1));
    let mut out = Vec::new();
    for chunk in members.chunks(8) {
        for p in chunk {
            board.receive(&group::request(p).unwrap());
        }
        out.extend(board.poll(Instant::now()));
    }
    let got = queens_sim::group_check::answers(size, &members, &out).unwrap();
    for (p, records) in members.iter().zip(&got) {
        let wire = group::group_wire(p).unwrap();
        assert_eq!(
            records,
            &queens_sim::grouped::run_south_group(p).records(wire),
            "{p}"
        );
    }

    let mut liar = Board::new(BoardConfig {
        unit: UnitKind::Grouped,
        ..config(9, "lie=1")
    });
    let busy = members
        .iter()
        .find(|p| queens_sim::grouped::run_south_group(p).places.len() > 1)
        .expect("a group with solutions");
    liar.receive(&group::request(busy).unwrap());
    let out = liar.poll(Instant::now());
    let wire = group::group_wire(busy).unwrap();
    let frames = out.chunks(GroupRecord::payload_len(size) + 2);
    let got: Vec<GroupRecord> = frames.map(|f| GroupRecord::decode(size, f).unwrap()).collect();
    let mut want = queens_sim::grouped::run_south_group(busy).records(wire);
    let souths = want.len() as u64 - 1;
    for r in want.iter_mut() {
        match &mut r.body {
            Body::South { count, .. } => *count += 1,
            Body::End { mod13, mod15, .. } => {
                *mod13 = ((*mod13 as u64 + souths) % 13) as u8;
                *mod15 = ((*mod15 as u64 + souths) % 15) as u8;
            }
            Body::Wrap { .. } => unreachable!("no count wraps at N = 9"),
        }
    }
    assert_eq!(got, want);
    // Its residues agree with its counts: only a check of the counts themselves catches it.
    let mut answer = group::Answer::new(wire);
    let whole = got.iter().map(|r| answer.push(r).unwrap()).last().unwrap();
    assert!(whole.is_some());
}

/// 1,100 units, past the 1,024 that 10-bit ids held: every id runs work and answers, those
/// past 1,023 as the others, and the count stays exact.
#[test]
fn a_board_of_1100_units_gives_every_unit_id_work() {
    let size = BoardSize::new(12).unwrap();
    let mut b = Board::new(BoardConfig {
        units: 1100,
        ..config(12, "")
    });
    let subs: Vec<_> = canonical(size).collect();
    assert!(subs.len() > 1100, "{} subproblems", subs.len());
    let mut de = Deframer::new(ResultRecord::payload_len(size, true));
    let mut results = 0;
    // A unit's worth at a time: each poll answers them all (no clock), and frees every id.
    for chunk in subs.chunks(1100) {
        for sp in chunk {
            let w = word::encode_wire(&sp.pre).unwrap();
            b.receive(&frame::encode(&word::wire_to_bytes(size, w)));
        }
        de.push(&b.poll(Instant::now()), |d| {
            results += matches!(d, Deframed::Frame(_)) as usize
        });
    }
    assert_eq!((results, b.stats.no_room), (subs.len(), 0));
    let answers = b.unit_answers();
    assert_eq!(answers.len(), 1100);
    assert!(answers.iter().all(|&a| a >= 1), "{answers:?}");
}
