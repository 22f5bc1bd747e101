//! `queens board check` against simulated boards in their own processes: a healthy board
//! passes in seconds with its units exact and its clock within 5%, asked where it answers
//! identification and inferred where it does not; each broken board fails with its cause.

use crate::common;

use common::{queens, SimBoard};

/// The check of `board` for N = `n`: its JSON report and whether it passed.
fn check(board: &SimBoard, n: u32) -> (serde_json::Value, bool) {
    check_with(board, &["--n", &n.to_string()])
}

/// The check of `board` with `args`.
fn check_with(board: &SimBoard, args: &[&str]) -> (serde_json::Value, bool) {
    let out = queens()
        .args(["board", "check", &board.link, "--json"])
        .args(args)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(out.status.success(), v["passed"] == true, "{v}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    (v, out.status.success())
}

/// A board of 4 units at 20 kHz for N = 12, with `extra` settings.
fn board(extra: &[&str]) -> SimBoard {
    let mut a = vec!["--solvers", "4", "--clock", "20kHz"];
    a.extend_from_slice(extra);
    SimBoard::tcp(12, &a)
}

fn clock_within(v: &serde_json::Value, hz: f64, share: f64) {
    let c = v["clock_hz"].as_f64().unwrap_or_else(|| panic!("no clock: {v}"));
    assert!(
        (c / hz - 1.0).abs() <= share,
        "clock {c} Hz, {hz} Hz expected: {v}"
    );
}

/// The failures' text, all in one.
fn failures(v: &serde_json::Value) -> String {
    v["failures"].to_string()
}

#[test]
fn a_healthy_board_passes_in_seconds_with_its_units_and_clock() {
    let b = board(&[]);
    let (v, ok) = check(&b, 12);
    assert!(ok, "{v}");
    assert_eq!(v["units"], 4);
    assert_eq!(v["units_source"], "answered");
    assert_eq!(v["ident"]["units"], 4);
    clock_within(&v, 20e3, 0.05);
    assert_eq!(v["known_answered"], v["known_sent"]);
    assert!(v["known_sent"].as_u64().unwrap() >= 16);
    assert!(v["seconds"].as_f64().unwrap() < 20.0, "{v}");
}

#[test]
fn a_board_that_does_not_say_gets_its_units_and_clock_inferred() {
    let b = board(&["--no-ident"]);
    let (v, ok) = check(&b, 12);
    assert!(ok, "{v}");
    assert!(v["ident"].is_null());
    assert_eq!(v["units"], 4, "{v}");
    assert_eq!(v["units_source"], "inferred");
    clock_within(&v, 20e3, 0.05);
}

#[test]
fn a_board_that_loses_and_corrupts_frames_is_named_a_link_fault() {
    let b = board(&["--faults", "corrupt=0.1,drop=0.1"]);
    let (v, ok) = check(&b, 12);
    assert!(!ok, "{v}");
    assert!(failures(&v).contains("the link lost frames"), "{v}");
}

#[test]
fn a_board_for_another_n_says_which() {
    let b = SimBoard::tcp(13, &["--solvers", "4", "--clock", "20kHz"]);
    let (v, ok) = check(&b, 12);
    assert!(!ok, "{v}");
    let f = failures(&v);
    assert!(
        f.contains("built for N = 13, not 12") && f.contains("--n 13"),
        "{v}"
    );
}

#[test]
fn a_board_at_half_its_clock_is_slower_than_built() {
    let b = board(&["--claim-clock", "40kHz"]);
    let (v, ok) = check(&b, 12);
    assert!(!ok, "{v}");
    assert!(failures(&v).contains("slower than built"), "{v}");
    clock_within(&v, 20e3, 0.05);
}

#[test]
fn a_board_with_fewer_units_than_it_claims_is_caught() {
    let b = board(&["--claim-units", "8"]);
    let (v, ok) = check(&b, 12);
    assert!(!ok, "{v}");
    assert!(
        failures(&v).contains("4 units answer; the board says it has 8"),
        "{v}"
    );
}

#[test]
fn a_lying_board_has_its_wrong_subproblems_named() {
    let b = board(&["--faults", "lie=0.3"]);
    let (v, ok) = check(&b, 12);
    assert!(!ok, "{v}");
    let wrong = v["wrong_counts"].as_array().unwrap();
    assert!(!wrong.is_empty(), "{v}");
    for w in wrong {
        assert_eq!(
            w["got"].as_u64().unwrap(),
            w["expected"].as_u64().unwrap() + 1,
            "{w}"
        );
    }
    assert!(failures(&v).contains("wrong counts (first: #"), "{v}");
}

#[test]
fn a_board_is_checked_against_the_design_json_it_was_built_from() {
    let b = board(&[]);
    let (v, ok) = check(&b, 12);
    assert!(ok, "{v}");
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, ident: &serde_json::Value| {
        let p = dir.path().join(name);
        let design = serde_json::json!({ "board": "sim", "n": 12, "ident": ident });
        std::fs::write(&p, design.to_string()).unwrap();
        p.to_str().unwrap().to_string()
    };
    // Its own design: N comes from the file, and the check passes.
    let same = write("same.json", &v["ident"]);
    let (v2, ok) = check_with(&b, &["--design", &same]);
    assert!(ok, "{v2}");
    assert_eq!(v2["n"], 12);
    // Another build of it: the fields that differ are named.
    let mut other = v["ident"].clone();
    other["units"] = 6.into();
    other["design_hash"] = (other["design_hash"].as_u64().unwrap() ^ 1).into();
    let other = write("other.json", &other);
    let (v3, ok) = check_with(&b, &["--design", &other]);
    assert!(!ok, "{v}");
    let f = failures(&v3);
    assert!(
        f.contains("the board is another design: units 4 (built: 6), design"),
        "{f}"
    );
    // A design.json from before identification: refused, naming the file and the field.
    let old = dir.path().join("old.json");
    std::fs::write(&old, r#"{"board": "ulx3s", "n": 12}"#).unwrap();
    let out = queens()
        .args(["board", "check", &b.link, "--design", old.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("old.json") && err.contains("`ident`"), "{err}");
}

#[test]
fn the_routed_ulx3s_netlist_answers_as_a_board() {
    // The netlist engine under the simulated board, answering through its UART pins: it says
    // what it was built as, and every known answer is right to the cycle. Its answers come
    // one at a time, paced by a UART simulated cycle by cycle behind a TCP port: a stream,
    // so its units and clock are taken as answered, not inferred.
    let b = SimBoard::start(&[
        "--n",
        "10",
        "--engine",
        "netlist",
        "--board",
        "ulx3s",
        "--listen",
        "127.0.0.1:0",
    ]);
    let (v, ok) = check(&b, 10);
    assert!(ok, "{v}");
    assert_eq!(v["ident"]["n"], 10, "{v}");
    assert_eq!(v["ident"]["units"], 2, "{v}");
    assert_eq!(v["ident"]["with_cycles"], true, "{v}");
    assert!(v["ident"]["clock_hz"].as_u64().unwrap() > 1_000_000, "{v}");
    assert_eq!(v["units_source"], "answered");
    assert_eq!(v["known_answered"], v["known_sent"]);
    assert_eq!(v["wrong_counts"].as_array().unwrap().len(), 0, "{v}");
    assert_eq!(v["wrong_cycles"].as_array().unwrap().len(), 0, "{v}");
}

/// Queens@TUD's board as the simulated board plays it (held to a recording of their VHDL):
/// every count checked, its cycle counts recognised as their unit's, nothing blamed on it.
#[test]
fn a_queens_at_tud_board_passes_and_is_named_one() {
    for extra in [&[][..], &["--no-cycles"][..]] {
        let mut a = vec!["--tud", "--solvers", "4"];
        a.extend_from_slice(extra);
        let b = SimBoard::tcp(10, &a);
        let (v, ok) = check(&b, 10);
        assert!(ok, "{extra:?}: {v}");
        assert!(v["ident"].is_null());
        assert_eq!(v["known_answered"], v["known_sent"], "{v}");
        assert!(v["wrong_counts"].as_array().unwrap().is_empty(), "{v}");
        if extra.is_empty() {
            assert_eq!(v["unit"]["unit"], "Queens@TUD", "{v}");
        }
        // Every probe frame accounted for: answered or lost (it drops what it has no room for).
        let p = &v["frames"]["probes"];
        assert_eq!(
            p["sent"].as_u64().unwrap(),
            p["answered"].as_u64().unwrap() + p["lost"].as_u64().unwrap(),
            "{v}"
        );
    }
}

/// Healthy boards across N, units and clocks pass, whatever bounds the measurement: the
/// clock is confirmed where the units set the pace and named unmeasurable where the link or
/// the host did, never "slower than built". (The wider sweep: `scripts/bench-board-check.sh`.)
#[test]
fn healthy_boards_pass_across_n_and_clock() {
    for (n, units, clock) in [
        (8, "4", "1MHz"),
        (10, "12", "50kHz"),
        (14, "12", "250MHz"),
        (17, "4", "1MHz"),
    ] {
        let b = SimBoard::tcp(n, &["--solvers", units, "--clock", clock]);
        let (v, ok) = check(&b, n);
        assert!(ok, "N = {n}, {units} units at {clock}: {v}");
        let source = v["clock_source"].as_str().unwrap();
        if source.contains("confirmed") || source.starts_with("measured") {
            let hz = v["ident"]["clock_hz"].as_f64().unwrap();
            clock_within(&v, hz, 0.05);
        }
        let f = &v["frames"]["known_answers"];
        assert_eq!(f["sent"], f["answered"], "N = {n}: {v}");
    }
}

/// With both cores kept busy beside it, a healthy board still passes.
#[test]
fn a_healthy_board_passes_beside_busy_cores() {
    let busy: Vec<_> = (0..2)
        .map(|_| {
            std::process::Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .spawn()
                .unwrap()
        })
        .collect();
    let b = board(&[]);
    let (v, ok) = check(&b, 12);
    for mut c in busy {
        let _ = c.kill();
        let _ = c.wait();
    }
    assert!(ok, "{v}");
}

/// A board of grouped units (issue 50) is checked in its own frames: the known answers go out
/// as group requests and are read member by member, with the grouped model's cycle shares;
/// the probes walk a group. Healthy, it passes with its units and clock; claiming twice its
/// clock, it is slower than built; lying for a south side, the wrong members are named; an
/// answer with a place code of no south side of its group is wrong for all its members.
#[test]
fn a_board_of_grouped_units_is_checked_in_group_frames() {
    let b = board(&["--unit", "grouped"]);
    let (v, ok) = check(&b, 12);
    assert!(ok, "{v}");
    assert_eq!(v["ident"]["unit"], "grouped");
    assert_eq!(v["units"], 4);
    clock_within(&v, 20e3, 0.05);
    assert_eq!(v["known_answered"], v["known_sent"]);
    assert_eq!(v["wrong_cycles"].as_array().map_or(0, Vec::len), 0, "{v}");

    let b = board(&["--unit", "grouped", "--claim-clock", "40kHz"]);
    let (v, ok) = check(&b, 12);
    assert!(!ok, "{v}");
    assert!(failures(&v).contains("slower than built"), "{v}");

    let b = board(&["--unit", "grouped", "--faults", "lie=1"]);
    let (v, ok) = check(&b, 12);
    assert!(!ok, "{v}");
    assert!(failures(&v).contains("wrong counts (first: #"), "{v}");

    let b = board(&["--unit", "grouped", "--faults", "misplace=1"]);
    let (v, ok) = check(&b, 12);
    assert!(!ok, "{v}");
    assert!(failures(&v).contains("wrong counts (first: #"), "{v}");
    let wrong = v["wrong_counts"].as_array().expect("wrong counts");
    assert!(!wrong.is_empty(), "{v}");
    // Inner column 0 in both rows.
    assert!(wrong.iter().all(|w| w["unknown_place"] == 0), "{v}");
}
