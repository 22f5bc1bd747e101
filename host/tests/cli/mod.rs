//! The `queens` binary as a user runs it.

mod hdl;
mod sim;

use crate::common;

use queens_core::{BoardSize, Entry};
use std::process::Output;

fn queens(args: &[&str]) -> Output {
    common::queens().args(args).output().expect("queens runs")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = queens(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn count_reports_total_and_classes() {
    let v = json(&["count", "12", "--json", "--threads", "1"]);
    assert_eq!(v["n"], 12);
    assert_eq!(v["total"], 14_200);
    assert_eq!(v["preplacements"], 51_484);
    assert_eq!(v["classes"]["NONE"]["preplacements"], 51_301);
    assert_eq!(v["classes"]["NONE"]["solutions"], 1_764);
    assert_eq!(v["classes"]["NONE"]["weight"], 8);
    assert_eq!(v["classes"]["POINT"]["solutions"], 20);
    assert_eq!(v["classes"]["ROTATE"]["weight"], 2);
    assert!(v["seconds"].as_f64().unwrap() >= 0.0);
}

#[test]
fn count_table_names_q() {
    let out = queens(&["count", "10"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("Q(10) = 724\n"), "{text}");
}

#[test]
fn stats_json_matches_census() {
    let v = json(&["subproblems", "16", "--stats", "--json"]);
    assert_eq!(v["n"], 16);
    assert_eq!(v["preplacements"], 3_073_215);
    assert_eq!(v["classes"]["POINT"]["preplacements"], 1_514);
    assert_eq!(v["classes"]["POINT"]["weight"], 4);
    assert!(v["classes"]["POINT"].get("solutions").is_none());
}

#[test]
fn bad_board_size_is_a_clear_error() {
    let out = queens(&["count", "40"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("N = 40") && err.contains("6 <= N <= 32"), "{err}");
}

#[test]
fn campaign_file_holds_every_subproblem_in_order() {
    let dir = std::env::temp_dir().join(format!("queens-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("q11.campaign");
    let _ = std::fs::remove_file(&path);
    let p = path.to_str().unwrap();
    let out = queens(&["subproblems", "11", "--out", p]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes.len(), 14_666 * 16);
    let size = BoardSize::new(11).unwrap();
    let listed: Vec<Entry> = queens_core::enumerate::canonical(size)
        .map(|sp| Entry::fresh(sp.pre, sp.sym))
        .collect();
    for (i, chunk) in bytes.chunks(16).enumerate() {
        let e = Entry::decode(size, chunk.try_into().unwrap()).unwrap();
        assert_eq!(e, listed[i], "entry {i}");
        assert!(e.solution.is_none() && e.handed_out.is_none());
    }
    // A second write must not clobber a campaign that may hold results.
    let again = queens(&["subproblems", "11", "--out", p]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn listing_prints_words() {
    let out = queens(&["subproblems", "8"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let expect = queens_core::Enumerator::new(BoardSize::new(8).unwrap())
        .census()
        .total();
    assert_eq!(lines.len() as u64, expect);
    assert!(lines[0].trim_start().starts_with("0 w("), "{}", lines[0]);
}

/// A design that routes in seconds: N = 8, one unit.
const SMALL_PNR: &[&str] = &["--n", "8", "--solvers", "1"];
