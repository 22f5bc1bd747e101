//! Bad arguments and hostile surroundings: every numeric option is range-checked before
//! anything runs and named with its value when wrong; a closed standard output ends a
//! command quietly; nothing panics.

use crate::common;

use common::queens;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Output, Stdio};

fn out(args: &[&str]) -> Output {
    queens().args(args).output().expect("queens runs")
}

/// Fails (without a panic or a signal) and says each of `words` on standard error.
fn fails_with(out: &Output, words: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.code().is_some(), "killed by a signal: {err}");
    common::fails_with(out, words);
}

#[test]
fn numeric_options_are_range_checked_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let c = format!("{d}/c");
    let e = format!("{d}/e");
    let cases: &[(&[&str], &[&str])] = &[
        // Division by zero in the UART divisor.
        (&["hdl", "emit", "--out", &e, "--baud", "0"], &["--baud", "'0'"]),
        (
            &["hdl", "emit", "--out", &e, "--baud", "18446744073709551615"],
            &["--baud"],
        ),
        (
            &["hdl", "emit", "--out", &e, "--solvers", "0"],
            &["--solvers", "'0'"],
        ),
        (
            &["hdl", "emit", "--out", &e, "--clock-hz", "0"],
            &["--clock-hz", "'0'"],
        ),
        (
            &["hdl", "emit", "--out", &e, "--n", "99"],
            &["'99'", "6 <= N <= 32"],
        ),
        (&["hdl", "fit", "--board", "vc707", "--n", "5"], &["--n", "'5'"]),
        (
            &["hdl", "report", "--target-mhz", "NaN"],
            &["--target-mhz", "NaN"],
        ),
        // Duration::from_secs_f64 overflows.
        (
            &["run", "8", "--campaign", &c, "--timeout", "1e308"],
            &["--timeout", "1e308"],
        ),
        (
            &["run", "8", "--campaign", &c, "--timeout", "0"],
            &["--timeout", "'0'"],
        ),
        (
            &["run", "8", "--campaign", &c, "--timeout", "NaN"],
            &["--timeout", "NaN"],
        ),
        (
            &["run", "8", "--campaign", &c, "--sim-faults", "reset=1e308"],
            &["--sim-faults", "reset=1e308"],
        ),
        (
            &["run", "8", "--campaign", &c, "--lease", "1e308"],
            &["--lease", "1e308"],
        ),
        (
            &["run", "8", "--campaign", &c, "--sim-clock", "0.001Hz"],
            &["--sim-clock", "0.001Hz"],
        ),
        // 64 GiB of unit state; no units at all (hung).
        (
            &["run", "8", "--campaign", &c, "--solvers", "4294967295"],
            &["--solvers", "4294967295"],
        ),
        (
            &["run", "8", "--campaign", &c, "--solvers", "0"],
            &["--solvers", "'0'"],
        ),
        (
            &["run", "8", "--campaign", &c, "--margin", "18446744073709551615"],
            &["--margin"],
        ),
        (
            &["run", "8", "--campaign", &c, "--link", "sim:4294967295"],
            &["sim:4294967295", "1 to 4096"],
        ),
        (&["run", "40"], &["'40'", "6 <= N <= 32"]),
        // A vector of 2^64 columns.
        (
            &["db", "plot", &c, "--out", &e, "--columns", "18446744073709551615"],
            &["--columns"],
        ),
        (
            &["db", "plot", &c, "--out", &e, "--columns", "0"],
            &["--columns", "'0'"],
        ),
        (&["db", "verify", &c, "--sample", "0"], &["--sample", "'0'"]),
        (&["db", "stats", &c, "--n", "4294967295"], &["--n", "4294967295"]),
        (
            &["db", "bench", "postgres://q@127.0.0.1:1/q", "--hosts", "100000"],
            &["--hosts"],
        ),
        // A hundred thousand threads.
        (
            &["count", "8", "--threads", "100000"],
            &["--threads", "100000", "per core"],
        ),
        (&["count", "8", "--threads", "0"], &["--threads", "'0'"]),
        (&["subproblems", "8", "--threads", "100000"], &["--threads"]),
        (
            &["db", "verify", &c, "--threads", "18446744073709551615"],
            &["--threads"],
        ),
        (&["sim", "cycles", "--threads", "100000"], &["--threads"]),
        (
            &["sim", "estimate", "--n", "8", "--threads", "100000"],
            &["--threads", "100000", "per core"],
        ),
        (&["sim", "check", "8", "--threads", "100000"], &["--threads"]),
        (
            &["sim", "board", "--n", "8", "--solvers", "4294967295"],
            &["--solvers", "4294967295"],
        ),
        (
            &["sim", "board", "--n", "8", "--clock", "1e-300Hz"],
            &["--clock", "1e-300Hz"],
        ),
        (
            &["sim", "board", "--n", "8", "--faults", "reset=1e-300"],
            &["--faults", "reset=1e-300"],
        ),
        (
            &["sim", "check", "8", "--engine", "verilator", "--solvers", "0"],
            &["--solvers", "'0'"],
        ),
        (
            &["sim", "check", "12", "--unit", "grouped", "--engine", "verilator"],
            &["--unit: grouped units at N = 12", "8 to 11, 27 and 28"],
        ),
    ];
    for (args, words) in cases {
        let o = out(args);
        fails_with(&o, words);
        // Refused before anything was done.
        assert!(!Path::new(&c).exists(), "{args:?} made a campaign");
        assert!(!Path::new(&e).exists(), "{args:?} wrote {e}");
    }
}

/// `run --solvers 0` used to hang with a misleading message; now it is refused at once.
#[test]
fn run_with_no_units_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    let start = std::time::Instant::now();
    let o = queens()
        .args(["run", "8", "--solvers", "0", "--campaign"])
        .arg(&c)
        .output()
        .unwrap();
    fails_with(&o, &["--solvers", "1..=4096"]);
    assert!(start.elapsed().as_secs() < 10);
    assert!(!c.exists());
}

/// Runs `args` with standard output closed before it writes: it ends by SIGPIPE as any Unix
/// filter does, saying nothing.
fn closed_stdout(args: &[&str]) {
    // The read end is closed before the child starts: closing it after the spawn races the
    // child, which may have written a short output into the pipe's buffer by then.
    let mut fds = [0; 2];
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors were just made by pipe(2) and are owned here alone.
    let (reader, writer) = unsafe {
        use std::os::fd::FromRawFd;
        (
            std::os::fd::OwnedFd::from_raw_fd(fds[0]),
            std::os::fd::OwnedFd::from_raw_fd(fds[1]),
        )
    };
    drop(reader);
    let o = queens()
        .args(args)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(
        !err.contains("Broken pipe") && !err.contains("rror"),
        "{args:?}: {err}"
    );
    assert_eq!(
        o.status.signal(),
        Some(libc::SIGPIPE),
        "{args:?}: {:?} {err}",
        o.status
    );
}

#[test]
fn a_closed_stdout_ends_every_printing_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    let cs = c.to_str().unwrap();
    // The run itself prints at the end: its work is done and kept all the same.
    closed_stdout(&["run", "9", "--campaign", cs]);
    let s = out(&["db", "stats", "--json", cs]);
    assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    let s: serde_json::Value = serde_json::from_slice(&s.stdout).unwrap();
    assert_eq!(
        (s["complete"].as_bool(), s["total"].as_u64()),
        (Some(true), Some(352))
    );
    closed_stdout(&["run", "9", "--json", "--campaign", cs]);
    closed_stdout(&["db", "stats", cs]);
    closed_stdout(&["db", "stats", "--json", cs]);
    closed_stdout(&["db", "verify", cs]);
    closed_stdout(&[
        "db",
        "plot",
        cs,
        "--out",
        dir.path().join("p.svg").to_str().unwrap(),
    ]);
    closed_stdout(&["count", "8"]);
    closed_stdout(&["count", "8", "--json"]);
    closed_stdout(&["subproblems", "8"]);
    closed_stdout(&["subproblems", "8", "--json"]);
    closed_stdout(&["subproblems", "8", "--stats"]);
    closed_stdout(&[
        "subproblems",
        "8",
        "--out",
        dir.path().join("s").to_str().unwrap(),
    ]);
    closed_stdout(&["sim", "check", "8"]);
    closed_stdout(&["sim", "estimate", "--n", "8", "--sample", "4"]);
    closed_stdout(&[
        "hdl",
        "emit",
        "--out",
        dir.path().join("e").to_str().unwrap(),
        "--n",
        "8",
    ]);
}

/// A board file whose name is a path (`../x`, an absolute one) made `hdl emit` write
/// `x.xdc` outside --out: now the file is refused, naming file, field and value, and
/// nothing is written.
#[test]
fn a_board_name_is_a_name_not_a_path() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../boards/vc707.toml")).unwrap();
    let abs = dir.path().join("abs").display().to_string();
    let out = dir.path().join("a").join("out");
    for bad in ["../x", abs.as_str()] {
        let file = dir.path().join("my.toml");
        std::fs::write(
            &file,
            text.replacen("name = \"vc707\"", &format!("name = {bad:?}"), 1),
        )
        .unwrap();
        let o = queens()
            .args(["hdl", "emit", "--solvers", "2", "--board"])
            .arg(&file)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        fails_with(&o, &["my.toml", "field name", &format!("{bad:?}")]);
    }
    assert!(!out.exists());
    assert!(!dir.path().join("a").join("x.xdc").exists());
    assert!(!Path::new(&format!("{abs}.xdc")).exists());
}
