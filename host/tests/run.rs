//! `queens run` end to end against simulated boards in their own processes: over TCP, over
//! pseudo-terminals through the serial transport, over FIFOs standing in for the XDMA
//! devices; with faults, resets and a host killed twice.

use crate::common;

use common::{fails_with, queens, SimBoard as Board};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

const Q: [u128; 15] = [
    1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2_680, 14_200, 73_712, 365_596,
];

fn run(n: u32, campaign: &Path, links: &[&str], extra: &[&str]) -> Output {
    let mut c = queens();
    c.args(["run", &n.to_string(), "--json", "--campaign"])
        .arg(campaign);
    for l in links {
        c.args(["--link", l]);
    }
    c.args(extra).output().expect("queens runs")
}

fn report(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "run failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

fn exact_on(boards: impl Fn(u32) -> Vec<Board>) {
    let dir = tempfile::tempdir().unwrap();
    for n in 8..=14u32 {
        let b = boards(n);
        let links: Vec<&str> = b.iter().map(|b| b.link.as_str()).collect();
        let units = b[0].units.to_string();
        // A fixed, generous timeout: these boards lose nothing, and a loaded machine that
        // stalls a board process for longer than the adaptive timeout would otherwise
        // (harmlessly) resend work, which the assertion below is not about.
        let extra = ["--solvers", &units, "--timeout", "60"];
        let r = report(&run(n, &dir.path().join(format!("q{n}")), &links, &extra));
        assert_eq!(
            r["total"].as_u64().unwrap() as u128,
            Q[n as usize],
            "N = {n} on {links:?}"
        );
        assert_eq!(r["complete"], true);
        assert_eq!(r["solved"], r["subproblems"]);
        // A board is never sent more than it holds, so nothing is sent twice.
        assert_eq!(r["reissued"], 0, "N = {n}: {r}");
        // Every board took part (small N have fewer subproblems than the boards hold).
        if n >= 11 {
            for l in r["links"].as_array().unwrap() {
                assert!(l["solved"].as_u64().unwrap() > 0, "N = {n}: {l}");
            }
        }
    }
}

#[test]
fn exact_over_tcp_one_board() {
    exact_on(|n| vec![Board::tcp(n, &["--solvers", "64"])]);
}

#[test]
fn exact_over_tcp_three_boards() {
    exact_on(|n| (0..3).map(|_| Board::tcp(n, &["--solvers", "16"])).collect());
}

#[test]
fn exact_over_serial_ptys_one_board() {
    exact_on(|n| vec![Board::pty(n)]);
}

#[test]
fn exact_over_serial_ptys_three_boards() {
    exact_on(|n| (0..3).map(|_| Board::pty(n)).collect());
}

#[test]
fn exact_over_xdma_style_character_devices() {
    use queens_sim::board::{Board, BoardConfig};
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("xdma0");
    let h2c = PathBuf::from(format!("{}_h2c_0", base.display()));
    let c2h = PathBuf::from(format!("{}_c2h_0", base.display()));
    for p in [&h2c, &c2h] {
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string and mode.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }
    let (h, c) = (h2c.clone(), c2h.clone());
    std::thread::spawn(move || {
        let input = std::fs::File::open(h).unwrap();
        let mut output = std::fs::OpenOptions::new().write(true).open(c).unwrap();
        let mut b = Board::new(BoardConfig {
            size: queens_core::BoardSize::new(11).unwrap(),
            units: 8,
            clock_hz: None,
            with_cycles: false,
            unit: queens_core::UnitKind::Plain,
            faults: Default::default(),
            seed: 1,
        });
        let _ = b.serve(input, &mut output);
    });
    let link = format!("pcie:{}", base.display());
    let r = report(&run(11, &dir.path().join("q11"), &[&link], &["--solvers", "8"]));
    assert_eq!(r["total"], 2_680);
    assert_eq!(r["links"][0]["cycles"], false, "Queens@TUD frames recognised");
}

/// 1% corrupted, 1% dropped, 0.5% duplicated frames, a board reset every 2 s, and the host
/// killed twice: the campaign still ends with Q(12), each subproblem solved once.
#[test]
fn fault_campaign_survives_resets_and_two_kills() {
    let dir = tempfile::tempdir().unwrap();
    let campaign = dir.path().join("q12.campaign");
    let board = Board::tcp(
        12,
        &[
            "--solvers",
            "8",
            "--clock",
            "30kHz",
            "--faults",
            "corrupt=0.01,drop=0.01,dup=0.005,reset=2",
            "--seed",
            "7",
        ],
    );
    let host = || {
        let mut c = queens();
        c.args([
            "run",
            "12",
            "--json",
            "--solvers",
            "8",
            "--link",
            &board.link,
            "--campaign",
        ])
        .arg(&campaign)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
        c
    };
    // Each host is killed once the campaign has gained a fifth of its entries: a kill mid-run
    // on a machine of any speed or load (a fixed delay killed after the end on a quiet one).
    let mut solved_at_kill = Vec::new();
    for k in 1..=2 {
        let mut h = host().spawn().unwrap();
        let deadline = Instant::now() + Duration::from_secs(120);
        while solved_now(&campaign) < k * 51_484 / 5 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        h.kill().unwrap(); // SIGKILL
        h.wait().unwrap();
        let s = stats(&campaign);
        solved_at_kill.push(s["solved"].as_u64().unwrap());
    }
    assert!(solved_at_kill[0] > 0, "work was done before the first kill");
    assert!(
        solved_at_kill[1] > solved_at_kill[0],
        "and resumed after it: {solved_at_kill:?}"
    );
    let start = Instant::now();
    let out = host().output().unwrap();
    let r = report(&out);
    eprintln!(
        "fault campaign: solved before kills {solved_at_kill:?}; last run {:.1} s: {} reissued, {} rejected frames, {} duplicates, {} unknown",
        start.elapsed().as_secs_f64(),
        r["reissued"],
        r["rejected_frames"],
        r["duplicates"],
        r["unknown"]
    );
    assert_eq!(r["total"], 14_200);
    assert_eq!(r["solved_before"], solved_at_kill[1]);
    assert!(
        r["reissued"].as_u64().unwrap() > 0 && r["rejected_frames"].as_u64().unwrap() > 0,
        "{r}"
    );
    // Every entry is solved once with the count software finds.
    let s = stats(&campaign);
    assert_eq!(
        (s["solved"].as_u64(), s["pending"].as_u64()),
        (Some(51_484), Some(0))
    );
    let v = queens()
        .args(["db", "verify", "--sample", "200000", "--json"])
        .arg(&campaign)
        .output()
        .unwrap();
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stdout));
    let v: serde_json::Value = serde_json::from_slice(&v.stdout).unwrap();
    assert_eq!(v["checked"], 51_484);
}

/// A board that goes away mid-run (a pulled cable, a crashed board server) and comes back on
/// the same address: the host reopens the link and finishes exactly.
#[test]
fn a_lost_link_is_reopened() {
    let dir = tempfile::tempdir().unwrap();
    let slow = ["--solvers", "4", "--clock", "50kHz"];
    let mut first = Board::logged(&[&["--n", "12", "--listen", "127.0.0.1:0"], &slow[..]].concat());
    let addr = first.link.strip_prefix("tcp:").unwrap().to_string();
    let mut host = queens()
        .args([
            "run",
            "12",
            "--json",
            "--solvers",
            "4",
            "--link",
            &first.link,
            "--campaign",
        ])
        .arg(dir.path().join("c"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Lost with work in flight: the whole run takes about 5 s on these boards. Waiting for
    // the first answers in the store (not a fixed time) keeps a slow machine from dropping
    // the board before the host has sent it anything.
    first.wait_for_host();
    let campaign = dir.path().join("c");
    let deadline = Instant::now() + Duration::from_secs(120);
    while solved_now(&campaign) == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(first);
    std::thread::sleep(Duration::from_millis(500));
    let mut args = vec!["--n", "12", "--listen", addr.as_str()];
    args.extend_from_slice(&slow);
    let _second = Board::start(&args);
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(host.stdout.as_mut().unwrap(), &mut s).unwrap();
        (host.wait().unwrap(), s)
    })
    .join()
    .unwrap();
    assert!(out.0.success());
    let r: serde_json::Value = serde_json::from_str(&out.1).unwrap();
    assert_eq!(r["total"], 14_200);
    assert!(
        r["reissued"].as_u64().unwrap() > 0,
        "the lost board's work was sent again: {r}"
    );
}

/// Entries solved so far, as `db stats` reads them beside a running host (0 before the
/// campaign is made).
fn solved_now(campaign: &Path) -> u64 {
    let out = queens()
        .args(["db", "stats", "--json"])
        .arg(campaign)
        .output()
        .unwrap();
    serde_json::from_slice::<serde_json::Value>(&out.stdout)
        .ok()
        .and_then(|v| v["solved"].as_u64())
        .unwrap_or(0)
}

fn stats(campaign: &Path) -> serde_json::Value {
    let out = queens()
        .args(["db", "stats", "--json"])
        .arg(campaign)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_campaign_of_another_n_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    report(&run(9, &c, &[], &[]));
    fails_with(&run(10, &c, &[], &[]), &["campaign of N = 9", "not of N = 10"]);
}

#[test]
fn a_corrupted_campaign_names_the_entry() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    report(&run(9, &c, &[], &[]));
    let mut bytes = std::fs::read(&c).unwrap();
    bytes[16 * 40 + 2] ^= 0x08; // a coordinate bit of entry 40
    std::fs::write(&c, &bytes).unwrap();
    fails_with(&run(9, &c, &[], &[]), &["entry 40", "corrupted"]);
    fails_with(
        &queens().args(["db", "stats"]).arg(&c).output().unwrap(),
        &["entry 40 (byte 640)"],
    );
    // A solved count whose digits no longer fit it.
    bytes[16 * 40 + 2] ^= 0x08;
    bytes[16 * 41 + 9] = (bytes[16 * 41 + 9] & 0xF0) | (((bytes[16 * 41 + 9] & 0x0F) + 1) % 13);
    std::fs::write(&c, &bytes).unwrap();
    fails_with(
        &queens().args(["db", "stats"]).arg(&c).output().unwrap(),
        &["entry 41", "disagrees with its digits"],
    );
}

#[test]
fn a_campaign_in_use_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    let board = Board::tcp(12, &["--solvers", "2", "--clock", "10kHz"]);
    let mut first = queens()
        .args([
            "run",
            "12",
            "--json",
            "--solvers",
            "2",
            "--link",
            &board.link,
            "--campaign",
        ])
        .arg(&c)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !c.exists() && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    fails_with(&run(12, &c, &[], &[]), &["in use by another queens process"]);
    first.kill().unwrap();
    first.wait().unwrap();
}

#[test]
fn missing_and_busy_ports_are_named() {
    let dir = tempfile::tempdir().unwrap();
    fails_with(
        &run(9, &dir.path().join("a"), &["serial:/dev/ttyQUEENS9"], &[]),
        &["serial:/dev/ttyQUEENS9", "no such serial port"],
    );
    let b = Board::pty(9);
    fails_with(
        &run(9, &dir.path().join("b"), &[&b.link, &b.link], &[]),
        &["cannot open", "busy"],
    );
    fails_with(
        &run(9, &dir.path().join("c"), &["usb:3"], &[]),
        &["usb:3", "expected serial:"],
    );
}

#[test]
fn db_commands_report_verify_and_draw() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    report(&run(10, &c, &["sim:4"], &[]));
    let s = stats(&c);
    assert_eq!(
        (s["n"].as_u64(), s["total"].as_u64(), s["complete"].as_bool()),
        (Some(10), Some(724), Some(true))
    );
    assert_eq!(s["classes"]["NONE"]["solutions"], 89);
    assert_eq!(s["sessions"].as_array().unwrap().len(), 1);
    // A solved count altered (digits kept consistent) is found by verify.
    let mut bytes = std::fs::read(&c).unwrap();
    let k = (0..bytes.len() / 16)
        .find(|&k| {
            u64::from_be_bytes(bytes[16 * k + 8..16 * k + 16].try_into().unwrap()) & 0xFFF_FFFF_FFFF > 0
        })
        .unwrap();
    let w2 = u64::from_be_bytes(bytes[16 * k + 8..16 * k + 16].try_into().unwrap());
    let count = (w2 & 0xFFF_FFFF_FFFF) + 1;
    let w2 = (w2 >> 52) << 52 | (count % 13) << 48 | (count % 15) << 44 | count;
    bytes[16 * k + 8..16 * k + 16].copy_from_slice(&w2.to_be_bytes());
    std::fs::write(&c, &bytes).unwrap();
    let v = queens()
        .args(["db", "verify", "--sample", "5000"])
        .arg(&c)
        .output()
        .unwrap();
    assert!(!v.status.success());
    let text = String::from_utf8_lossy(&v.stdout);
    assert!(
        text.contains(&format!("entry {k} ")) && text.contains("solver 1 (sim:4)"),
        "{text}"
    );
    let svg = dir.path().join("c.svg");
    let p = queens()
        .args(["db", "plot"])
        .arg(&c)
        .arg("--out")
        .arg(&svg)
        .output()
        .unwrap();
    assert!(p.status.success(), "{}", String::from_utf8_lossy(&p.stderr));
    let doc = std::fs::read_to_string(&svg).unwrap();
    assert!(doc.contains("solutions per subproblem") && doc.contains("cycles per subproblem"));
}

/// A 4-unit board that drops what it has no room for (no back-pressure, like Queens@TUD's),
/// driven with the default options (a window of up to 376): the window learned keeps it as
/// fast as when its size is given.
#[test]
fn a_small_board_of_unknown_size_runs_at_full_speed() {
    let b = Board::tcp(11, &["--solvers", "4", "--clock", "20kHz"]);
    let dir = tempfile::tempdir().unwrap();
    let mut best = [f64::MAX; 2];
    for k in 0..4 {
        let given: &[&str] = if k % 2 == 0 {
            &[]
        } else {
            &["--solvers", "4", "--margin", "4"]
        };
        let f = dir.path().join(format!("q11-{k}"));
        let t = Instant::now();
        let r = report(&run(11, &f, &[b.link.as_str()], given));
        let s = t.elapsed().as_secs_f64();
        assert_eq!(r["total"].as_u64().unwrap() as u128, Q[11], "{r}");
        best[k % 2] = best[k % 2].min(s);
    }
    let [default, sized] = best;
    assert!(
        default < 1.5 * sized,
        "default options {default:.2} s, --solvers 4 --margin 4 {sized:.2} s"
    );
    eprintln!("default options {default:.2} s, --solvers 4 --margin 4 {sized:.2} s");
}

/// Queens@TUD's board (no identification, no flow control, an input FIFO of a few frames)
/// with default options: the window starts where no such board overflows and grows from its
/// answers, so little is sent twice (their board drops what it has no room for).
#[test]
fn a_queens_at_tud_board_is_not_flooded_by_the_defaults() {
    let dir = tempfile::tempdir().unwrap();
    for (k, extra) in [&[][..], &["--no-cycles"][..]].iter().enumerate() {
        let mut a = vec!["--tud", "--solvers", "4"];
        a.extend_from_slice(extra);
        // Measured 0.1 to 0.5% (docs/bring-up.md); 1.4 and 2.6% when the window started at
        // the default units. A simulated board that a loaded machine leaves behind overflows
        // too (once in about ten runs over 0.8%), so a second run is allowed: flooding by the
        // defaults shows in both.
        let (mut runs, mut calm) = (Vec::new(), false);
        for attempt in 0..2 {
            let b = Board::tcp(10, &a);
            let r = report(&run(
                10,
                &dir.path().join(format!("q{k}-{attempt}")),
                &[b.link.as_str()],
                &[],
            ));
            assert_eq!(r["total"].as_u64().unwrap() as u128, Q[10], "{r}");
            let again = r["reissued"].as_u64().unwrap();
            let share = again as f64 / r["subproblems"].as_u64().unwrap() as f64;
            runs.push(format!("{again} sent again ({:.2}%)", 100.0 * share));
            if share < 0.01 {
                calm = true;
                break;
            }
        }
        assert!(calm, "{extra:?}: {runs:?}");
    }
}

/// Boards of grouped units and of plain ones run one campaign together (issue 50): each is
/// told apart by its identification, the grouped one loses, corrupts and repeats records, and
/// every pre-placement counts once.
#[test]
fn grouped_and_plain_boards_share_a_campaign_whatever_the_grouped_one_loses() {
    let dir = tempfile::tempdir().unwrap();
    let grouped = Board::tcp(
        12,
        &[
            "--unit",
            "grouped",
            "--solvers",
            "16",
            "--faults",
            "corrupt=0.02,drop=0.02,dup=0.02",
        ],
    );
    let plain = Board::tcp(12, &["--solvers", "16"]);
    let r = report(&run(
        12,
        &dir.path().join("q12"),
        &[&grouped.link, &plain.link],
        &["--solvers", "16"],
    ));
    assert_eq!(r["total"], 14_200, "{r}");
    assert_eq!(r["complete"], true);
    assert_eq!(r["solved"], r["subproblems"]);
    for l in r["links"].as_array().unwrap() {
        assert!(l["solved"].as_u64().unwrap() > 0, "{l}");
    }
    let g = &r["links"][0];
    assert!(
        g["rejected_frames"].as_u64().unwrap() > 0 && g["duplicates"].as_u64().unwrap() > 0,
        "{g}"
    );
    // The simulated board in this process, grouped.
    let r = report(&run(
        12,
        &dir.path().join("q12s"),
        &[],
        &["--sim-unit", "grouped"],
    ));
    assert_eq!(r["total"], 14_200, "{r}");
}
