//! Queens@TUD's board model against their VHDL: the recording of their whole UART board
//! under GHDL (sim/tud/board/, made by sim/tud/record-board.sh) replayed through the model,
//! frame for frame.

use queens_core::deframe::{Deframed, Deframer};
use queens_core::result::ResultRecord;
use queens_core::BoardSize;
use queens_sim::tud_board::{TudBoard, TudConfig};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tud/board/");

/// The stimulus: (cycle, bytes) groups, and the cycle the recording ends.
fn stimulus() -> (Vec<(u64, Vec<u8>)>, u64) {
    let text = std::fs::read_to_string(format!("{DIR}stimulus.txt")).unwrap();
    let mut groups = Vec::new();
    let mut end = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut f = line.split_whitespace();
        end = f.next().unwrap().parse().unwrap();
        if let Some(hex) = f.next() {
            let bytes = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            groups.push((end, bytes));
        }
    }
    (groups, end)
}

/// Recorded frames: (cycle of the CRC byte's stop bit, payload).
fn recorded(name: &str) -> Vec<(u64, Vec<u8>)> {
    let text = std::fs::read_to_string(format!("{DIR}{name}")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (c, p) = l.split_once(' ').unwrap();
            let p = (0..p.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&p[i..i + 2], 16).unwrap())
                .collect();
            (c.parse().unwrap(), p)
        })
        .collect()
}

fn replay(with_cycles: bool, name: &str) {
    let size = BoardSize::new(10).unwrap();
    // As recorded: 4 solvers, 1.8432 MHz, 115,200 baud (16 cycles a bit).
    let cfg = TudConfig::new(size, 4, with_cycles, 1_843_200.0, 115_200);
    let mut board = TudBoard::new(cfg);
    let (groups, end) = stimulus();
    for (at, bytes) in &groups {
        board.receive(*at, bytes);
    }
    let out = board.run_to(end);
    let plen = ResultRecord::payload_len(size, with_cycles);
    let mut de = Deframer::new(plen);
    let mut got = Vec::new();
    for (at, b) in out {
        de.push(&[b], |d| match d {
            Deframed::Frame(p) => got.push((at, p)),
            other => panic!("{other:?}"),
        });
    }
    let want = recorded(name);
    assert_eq!(got.len(), want.len(), "frames answered");
    // Every frame leaves within one bit of the line (16 cycles) of the recording.
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            g.0.abs_diff(w.0) <= 16,
            "frame {k}: at cycle {} (recorded {})",
            g.0,
            w.0
        );
    }
    // Each phase answers the same frames, the paced one in the same order; in a backlog the
    // order in which waiting solvers' results leave is their funnels' arbitration, which the
    // model only approximates.
    let (paced_end, _) = groups[groups.len() - 2];
    let phases = |f: &[(u64, Vec<u8>)]| {
        let mut p = vec![Vec::new(); 3];
        for (at, payload) in f {
            let k = match *at {
                t if t < paced_end => 0,
                t if t < groups[groups.len() - 1].0 => 1,
                _ => 2,
            };
            p[k].push(payload.clone());
        }
        p
    };
    let (mut g, mut w) = (phases(&got), phases(&want));
    assert_eq!(g[0], w[0], "the paced phase, frame for frame");
    assert_eq!(g[0].len(), 3739, "every subproblem of N = 10 answered");
    for k in 1..3 {
        g[k].sort();
        w[k].sort();
        assert_eq!(g[k], w[k], "burst {k}: the frames answered");
    }
    // The bursts lose what the recording lost: 52 copies, then 40 subproblems at once.
    let lost = (52 - g[1].len(), 40 - g[2].len());
    assert_eq!(lost, if with_cycles { (9, 1) } else { (0, 0) });
}

#[test]
fn the_model_sends_what_their_board_sent_with_cycle_counters() {
    replay(true, "frames-cycles.txt");
}

#[test]
fn the_model_sends_what_their_board_sent_without_cycle_counters() {
    replay(false, "frames-plain.txt");
}
