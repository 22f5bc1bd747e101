//! `queens sim`: checks, simulated boards over TCP, estimates.

use super::*;

/// The grouped walk's model counts every pre-placement of N = 12 as software does, and its
/// cycles (each member's share of its group's walk) are fewer than today's unit's.
#[test]
fn sim_check_groups_counts_each_pre_placement_and_shares_the_walks() {
    let grouped = json(&["sim", "check", "12", "--unit", "grouped", "--json"]);
    assert_eq!(grouped["engine"], "grouped model");
    assert_eq!(grouped["total"], 14_200);
    assert_eq!(grouped["subproblems"], 51_484);
    assert_eq!(grouped["mismatches"], 0, "{grouped}");
    let today = json(&["sim", "check", "12", "--unit", "plain", "--json"]);
    let (g, t) = (
        grouped["cycles"].as_u64().unwrap(),
        today["cycles"].as_u64().unwrap(),
    );
    assert!(g < t, "grouped {g} cycles against today's {t}");
    // The benchmark's grouped column: over all of N = 12, the mean share times the
    // pre-placements is every walk's cycles, as the model counted them.
    let bench = json(&["sim", "cycles", "--n", "12", "--unit", "grouped", "--json"]);
    assert_eq!(bench["unit_kind"], "grouped");
    let set = &bench["sets"][0];
    assert_eq!(
        (set["n"].as_u64(), set["subproblems"].as_u64()),
        (Some(12), Some(51_484))
    );
    let sum = set["mean"]["ours"].as_f64().unwrap() * 51_484.0;
    assert!((sum - g as f64).abs() < 1e-9 * g as f64, "{set}: {g}");
    assert!(set["vs_tud"]["value"].as_f64().unwrap() < 1.0, "{set}");
}

/// A host reaches the simulated board over TCP and gets a right answer for what it sends.
#[test]
fn sim_board_answers_over_tcp() {
    board_over_tcp("model");
}

/// The same with the emitted core under Verilator playing the board.
#[test]
fn verilated_sim_board_answers_over_tcp() {
    board_over_tcp("verilator");
}

fn board_over_tcp(engine: &str) {
    use queens_core::deframe::{Deframed, Deframer};
    use queens_core::frame;
    use queens_core::result::ResultRecord;
    use queens_core::{completions, enumerate::canonical, word};
    use std::io::{BufRead, BufReader, Read, Write};
    let mut child = common::queens()
        .args([
            "sim",
            "board",
            "--n",
            "10",
            "--solvers",
            "4",
            "--listen",
            "127.0.0.1:0",
            "--engine",
            engine,
            // Plain frames, read below as results.
            "--unit",
            "plain",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line.rsplit(' ').next().unwrap().trim().to_string();
    let size = BoardSize::new(10).unwrap();
    let subs: Vec<_> = canonical(size)
        .filter(|s| completions(&s.pre) > 0)
        .take(4)
        .collect();
    let mut conn = std::net::TcpStream::connect(&addr).unwrap();
    for sp in &subs {
        let w = word::encode_wire(&sp.pre).unwrap();
        conn.write_all(&frame::encode(&word::wire_to_bytes(size, w)))
            .unwrap();
    }
    let mut de = Deframer::new(ResultRecord::payload_len(size, true));
    let mut got = Vec::new();
    let mut buf = [0u8; 256];
    conn.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    while got.len() < subs.len() {
        let n = conn.read(&mut buf).expect("the board answers");
        assert!(n > 0, "the board closed the connection");
        de.push(&buf[..n], |d| match d {
            Deframed::Frame(p) => got.push(ResultRecord::decode(size, &p, true).unwrap()),
            other => panic!("{other:?}"),
        });
    }
    child.kill().unwrap();
    child.wait().unwrap();
    for sp in &subs {
        let w = word::encode_wire(&sp.pre).unwrap();
        let r = got
            .iter()
            .find(|r| r.wire == w)
            .expect("an answer for every word");
        assert_eq!(r.true_count().unwrap(), completions(&sp.pre));
    }
}

#[test]
fn sim_board_names_a_bad_option() {
    let out = queens(&["sim", "board", "--n", "10", "--faults", "drop=3"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("drop=3"));
    let out = queens(&["sim", "board", "--n", "10", "--clock", "fast"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("fast"));
}

#[test]
fn sim_estimate_turns_sampled_cycles_into_hours() {
    let v = json(&[
        "sim",
        "estimate",
        "--n",
        "12",
        "--sample",
        "51484",
        "--solvers",
        "1",
        "--clock",
        "1MHz",
        "--baud",
        "1000000",
        "--json",
    ]);
    assert_eq!(v["subproblems"], 51_484);
    assert_eq!(v["sampled"], 51_484);
    // The whole board sampled: the mean is the N = 12 cycle total (as the array runs the
    // subproblems) over their number.
    let total: u64 = queens_core::enumerate::canonical(queens_core::BoardSize::new(12).unwrap())
        .map(|sp| queens_sim::run_subproblem(&sp.pre).cycles)
        .sum();
    let mean = v["mean_cycles"].as_f64().unwrap();
    assert!(
        (mean * 51_484.0 - total as f64).abs() < 1.0,
        "{mean}, total {total}"
    );
    // One unit at 1 MHz: (cycles + the front end's dispatch of M = 8 per subproblem)
    // microseconds.
    let dispatch = queens_hdl::front::dispatch_cycles(8) as f64;
    let compute = v["compute_hours"].as_f64().unwrap() * 3600.0;
    assert!(
        (compute - (total as f64 + dispatch * 51_484.0) / 1e6).abs() < 1e-3,
        "{compute}"
    );
    // Result frames of 17 payload bytes (word 4, residues and count 7, cycles 6) + 2, at
    // 100,000 bytes/s.
    let link = v["link_hours"].as_f64().unwrap() * 3600.0;
    assert!((link - 51_484.0 * 19.0 / 1e5).abs() < 1e-3, "{link}");
}
