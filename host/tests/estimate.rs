//! `queens sim estimate`: how it finds the mean unit cycles (sampled by the cycle model, or
//! Knuth's probes), how sure it says it is, and where its unit count comes from.

use queens_core::enumerate::canonical;
use queens_core::BoardSize;
use std::process::Output;

use crate::common;

fn queens(args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Output {
    let mut c = common::queens();
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("queens runs")
}

fn json(args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> serde_json::Value {
    let out = queens(args, env);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn f(v: &serde_json::Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} in {v}"))
}

#[test]
fn probes_agree_with_the_model_within_their_stated_error() {
    // N = 14: the model's mean over every subproblem is cheap, and the truth to hit.
    let size = BoardSize::new(14).unwrap();
    let (sum, count) = canonical(size)
        .map(|sp| queens_sim::run_subproblem(&sp.pre).cycles)
        .fold((0u64, 0u64), |(s, k), c| (s + c, k + 1));
    let truth = sum as f64 / count as f64;
    let args = |method| {
        vec![
            "sim", "estimate", "--n", "14", "--method", method, "--sample", "4096", "--json",
        ]
    };
    let probe = json(&args("probe"), &[]);
    assert_eq!(probe["method"], "probe");
    assert_eq!(probe["sampled"], 4096);
    assert_eq!(probe["probes_per_subproblem"], 64);
    let (mean, se) = (f(&probe, "mean_cycles"), f(&probe, "mean_cycles_stderr"));
    assert!(se > 0.0 && se < 0.05 * mean, "{probe}");
    assert!((f(&probe, "relative_stderr") - se / mean).abs() < 1e-9, "{probe}");
    // Within three of its standard errors of the mean over the whole board.
    assert!(
        (mean - truth).abs() <= 3.0 * se,
        "probe {mean} ± {se}, truth {truth}"
    );
    // On the same sample, exactly by the model: the probes' own error is a small part of the
    // stated one (the rest is the sample's).
    let sampled = json(&args("sampled"), &[]);
    assert_eq!(sampled["method"], "sampled");
    assert_eq!(sampled["probes_per_subproblem"], 0);
    let exact = f(&sampled, "mean_cycles");
    assert!(
        (mean - exact).abs() <= se,
        "probe {mean} ± {se}, model on the sample {exact}"
    );
    // The interval holds the estimate and is as wide as the error says.
    let (lo, h, hi) = (
        f(&probe, "hours_low"),
        f(&probe, "hours"),
        f(&probe, "hours_high"),
    );
    assert!(lo <= h && h <= hi, "{probe}");
    assert!(probe["interval"].as_str().unwrap().contains("95%"));
}

#[test]
fn auto_takes_the_model_when_cheap_and_probes_otherwise() {
    let v = json(&["sim", "estimate", "--n", "10", "--json"], &[]);
    assert_eq!(v["method"], "sampled");
    assert_eq!(v["sampled"], 256);
    assert_eq!(v["units_source"], "tud-vc707");
    // N = 20 has a mean of tens of thousands of cycles: 200,000 subproblems would keep the
    // model (one thread) busy for more than its budget of 10 s.
    let v = json(
        &[
            "sim",
            "estimate",
            "--n",
            "20",
            "--sample",
            "200000",
            "--probes",
            "2",
            "--baud",
            "1000000000",
            "--threads",
            "1",
            "--json",
        ],
        &[],
    );
    assert_eq!(v["method"], "probe");
    assert_eq!(v["sampled"], 200_000);
    assert_eq!(v["probes_per_subproblem"], 2);
    // Solver-bound (a fast link): the interval is the mean cycles' error.
    assert_eq!(v["limit"], "solver");
    assert!(
        f(&v, "hours_low") < f(&v, "hours") && f(&v, "hours") < f(&v, "hours_high"),
        "{v}"
    );
    // The text says how, and how sure.
    let out = queens(&["sim", "estimate", "--n", "16", "--method", "probe"], &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        text.contains("probe: Knuth's estimator") && text.contains("95%"),
        "{text}"
    );
}

#[test]
fn a_board_without_a_fit_says_it_uses_the_reference_units() {
    // No yosys on the PATH and an empty cache: no fit, so the board file's 325 units, said so.
    let cache = tempfile::tempdir().unwrap();
    let bin = tempfile::tempdir().unwrap();
    let v = json(
        &["sim", "estimate", "--board", "vc707", "--n", "12", "--json"],
        &[
            ("PATH", bin.path().as_os_str()),
            ("QUEENS_FIT_CACHE", cache.path().as_os_str()),
        ],
    );
    assert_eq!(v["units"], 325);
    assert!(
        v["units_source"].as_str().unwrap().contains("reference units"),
        "{v}"
    );
    let v = json(
        &[
            "sim",
            "estimate",
            "--board",
            "vc707",
            "--n",
            "12",
            "--solvers",
            "7",
            "--json",
        ],
        &[("QUEENS_FIT_CACHE", cache.path().as_os_str())],
    );
    assert_eq!(
        (v["units"].as_u64(), v["units_source"].as_str()),
        (Some(7), Some("--solvers"))
    );
}

#[test]
fn a_board_takes_our_fit_and_caches_it() {
    // Two yosys runs at N = 8 (about 20 s each), of grouped units (issue 50): their stage
    // and front end, and each pre-placement's share of its group's walk.
    let cache = tempfile::tempdir().unwrap();
    let env = [("QUEENS_FIT_CACHE", cache.path().as_os_str())];
    let args = [
        "sim", "estimate", "--board", "kc705", "--n", "8", "--unit", "grouped", "--json",
    ];
    let first = json(&args, &env);
    let fit = json(
        &[
            "hdl", "fit", "--board", "kc705", "--n", "8", "--unit", "grouped", "--json",
        ],
        &[],
    );
    assert_eq!(first["unit_kind"], "grouped");
    assert_eq!(fit["unit_kind"], "grouped");
    assert_eq!(fit["device_ram18"], 890);
    // All 179 pre-placements of N = 8, each its share: the mean is the groups' walks over
    // the pre-placements.
    assert_eq!(first["sampled"], 179, "{first}");
    let walks: u64 = queens_sim::grouped::south_groups(BoardSize::new(8).unwrap())
        .iter()
        .map(|m| queens_sim::grouped::run_south_group(m).cycles)
        .sum();
    assert!(
        (f(&first, "mean_cycles") * 179.0 - walks as f64).abs() < 1e-6 * walks as f64,
        "{first}"
    );
    assert_eq!(first["units"], fit["units"], "{first}\n{fit}");
    assert_eq!(
        first["units_source"].as_str().unwrap(),
        format!("our fit, limited by {}", fit["limit"].as_str().unwrap())
    );
    assert_ne!(fit["units"], fit["reference_units"]);
    let again = json(&args, &env);
    assert_eq!(again["units"], fit["units"]);
    assert!(
        again["units_source"].as_str().unwrap().ends_with("; cached"),
        "{again}"
    );
}
