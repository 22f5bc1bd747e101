//! A campaign is never replaced while a run holds it, nor overwritten by output of another
//! kind; temporary files never take a user's name; and a damaged entry of a campaign file is
//! named when the file is opened, never counted.

use crate::common;

use common::{fails_with, ok, queens, spawn_quiet};
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

fn fresh(n: u32, path: &Path) {
    ok(&queens()
        .args(["subproblems", &n.to_string(), "--out"])
        .arg(path)
        .output()
        .unwrap());
}

fn run(n: u32, campaign: &Path) -> Output {
    queens()
        .args(["run", &n.to_string(), "--campaign"])
        .arg(campaign)
        .output()
        .unwrap()
}

/// The files of a directory, by name.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// `subproblems --out F --force` while a run holds F: refused, F untouched.
#[test]
fn force_does_not_replace_a_campaign_a_run_holds() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    // A run that takes a while: the simulated board at 10 kHz.
    let args = [
        "run",
        "12",
        "--json",
        "--solvers",
        "2",
        "--sim-clock",
        "10kHz",
        "--campaign",
    ];
    let mut host = spawn_quiet(&args, &c);
    // It holds the lock once its session is in the history.
    let history = dir.path().join("c.history");
    let t = Instant::now();
    while !std::fs::read_to_string(&history).is_ok_and(|h| h.contains("\"session\"")) {
        assert!(t.elapsed() < Duration::from_secs(20), "the run did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let ino = std::fs::metadata(&c).unwrap().ino();
    let o = queens()
        .args(["subproblems", "12", "--force", "--out"])
        .arg(&c)
        .output()
        .unwrap();
    fails_with(&o, &["in use by another queens process"]);
    assert_eq!(
        std::fs::metadata(&c).unwrap().ino(),
        ino,
        "the campaign was replaced"
    );
    assert!(std::fs::read_to_string(&history).unwrap().contains("\"session\""));
    host.kill().unwrap();
    host.wait().unwrap();
    // Once the run is gone, --force does replace it.
    ok(&queens()
        .args(["subproblems", "12", "--force", "--out"])
        .arg(&c)
        .output()
        .unwrap());
    assert_ne!(std::fs::metadata(&c).unwrap().ino(), ino);
}

/// The same with the lock held here, where the file does not change meanwhile: it is left
/// byte for byte as it was.
#[test]
fn force_leaves_a_locked_campaign_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    ok(&run(9, &c));
    let before = std::fs::read(&c).unwrap();
    let history = std::fs::read(dir.path().join("c.history")).unwrap();
    let f = std::fs::File::open(&c).unwrap();
    // SAFETY: flock on a descriptor this test owns, as a run takes it.
    assert_eq!(
        unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    let o = queens()
        .args(["subproblems", "9", "--force", "--out"])
        .arg(&c)
        .output()
        .unwrap();
    fails_with(&o, &["in use", c.to_str().unwrap()]);
    assert_eq!(std::fs::read(&c).unwrap(), before);
    assert_eq!(std::fs::read(dir.path().join("c.history")).unwrap(), history);
    drop(f);
    // Without --force an existing campaign is never replaced.
    let o = queens()
        .args(["subproblems", "9", "--out"])
        .arg(&c)
        .output()
        .unwrap();
    fails_with(&o, &["exists", "--force"]);
    assert_eq!(std::fs::read(&c).unwrap(), before);
}

/// `db plot F --out F` (or onto another campaign, or a file beside F) is refused and leaves
/// the campaign byte for byte.
#[test]
fn a_plot_never_overwrites_a_campaign() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    let other = dir.path().join("other");
    ok(&run(9, &c));
    fresh(8, &other);
    let keep: Vec<(PathBuf, Vec<u8>)> = [c.clone(), dir.path().join("c.history"), other.clone()]
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    for (out, says) in [
        (&c, "c, of the campaign being drawn"),
        (
            &dir.path().join("c.history"),
            "c.history, of the campaign being drawn",
        ),
        (&other, "a campaign of N = 8"),
    ] {
        let o = queens()
            .args(["db", "plot"])
            .arg(&c)
            .arg("--out")
            .arg(out)
            .output()
            .unwrap();
        fails_with(&o, &["--out", says]);
    }
    for (p, b) in &keep {
        assert_eq!(&std::fs::read(p).unwrap(), b, "{} changed", p.display());
    }
    // A Verilog output never replaces a campaign either.
    let e = dir.path().join("e");
    std::fs::create_dir(&e).unwrap();
    std::fs::copy(&other, e.join("queens_core.v")).unwrap();
    let o = queens()
        .args(["hdl", "emit", "--n", "8", "--out"])
        .arg(&e)
        .output()
        .unwrap();
    fails_with(&o, &["queens_core.v", "is a campaign of N = 8"]);
    assert_eq!(std::fs::read(e.join("queens_core.v")).unwrap(), keep[2].1);
    // And a plot elsewhere is written.
    ok(&queens()
        .args(["db", "plot"])
        .arg(&c)
        .arg("--out")
        .arg(dir.path().join("c.svg"))
        .output()
        .unwrap());
    assert!(std::fs::read_to_string(dir.path().join("c.svg"))
        .unwrap()
        .contains("<svg"));
}

/// Files named like the temporary files of old (`F.partial`, `F` with its extension turned
/// into `.partial` or `.tmp`) are a user's: they survive, and no temporary file is left.
#[test]
fn temporary_files_never_take_a_users_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mine: Vec<(&str, &[u8])> = vec![
        ("q8.campaign.partial", b"mine 1"),
        ("q8.partial", b"mine 2"),
        ("q8.campaign.history.partial", b"mine 3"),
        ("queens_core.tmp", b"mine 4"),
        ("queens_top.tmp", b"mine 5"),
        ("design.tmp", b"mine 6"),
    ];
    for (n, b) in &mine {
        std::fs::write(d.join(n), b).unwrap();
    }
    let c = d.join("q8.campaign");
    fresh(8, &c);
    ok(&queens()
        .args(["subproblems", "8", "--force", "--out"])
        .arg(&c)
        .output()
        .unwrap());
    ok(&run(8, &c));
    ok(&queens()
        .args(["hdl", "emit", "--n", "8", "--out"])
        .arg(d)
        .output()
        .unwrap());
    ok(&queens()
        .args(["db", "plot"])
        .arg(&c)
        .arg("--out")
        .arg(d.join("q8.svg"))
        .output()
        .unwrap());
    for (n, b) in &mine {
        assert_eq!(&std::fs::read(d.join(n)).unwrap()[..], *b, "{n}");
    }
    let mut expect: Vec<String> = mine.iter().map(|m| m.0.to_string()).collect();
    expect.extend(
        [
            "q8.campaign",
            "q8.campaign.history",
            "q8.campaign.cycles",
            "q8.campaign.summary",
            "queens_core.v",
            "queens_top.v",
            "design.json",
            "q8.svg",
        ]
        .map(String::from),
    );
    expect.sort();
    assert_eq!(names(d), expect, "nothing else is left behind");
    // The campaign is made with the user's umask, not a temporary file's 0600.
    let mode = std::fs::metadata(&c).unwrap().mode() & 0o777;
    let umask = unsafe {
        // SAFETY: reading the umask by setting it and restoring it at once.
        let m = libc::umask(0o022);
        libc::umask(m);
        m
    };
    assert_eq!(mode, 0o666 & !umask as u32);
}

fn word2(bytes: &[u8], k: usize) -> u64 {
    u64::from_be_bytes(bytes[16 * k + 8..16 * k + 16].try_into().unwrap())
}

fn set_word2(bytes: &mut [u8], k: usize, w: u64) {
    bytes[16 * k + 8..16 * k + 16].copy_from_slice(&w.to_be_bytes());
}

/// Word 2, bit 55 of an unsolved entry: it read as solved with count 0 by solver 8, and the
/// next run printed a wrong Q(10) with exit status 0. Now the entry is named.
#[test]
fn a_flipped_bit_that_makes_an_entry_solved_is_named_not_counted() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    // A fresh campaign: nothing handed out, no solver yet.
    fresh(10, &c);
    let mut bytes = std::fs::read(&c).unwrap();
    set_word2(&mut bytes, 123, 1 << 55);
    std::fs::write(&c, &bytes).unwrap();
    let o = run(10, &c);
    fails_with(&o, &["entry 123 (byte 1968)", "solver 8", "never gave out"]);
    assert!(!String::from_utf8_lossy(&o.stdout).contains("Q(10)"));
    assert_eq!(std::fs::read(&c).unwrap(), bytes, "nothing was written");
    for cmd in [
        &["db", "stats"][..],
        &["db", "verify"],
        &["db", "plot", "--out", "x.svg"],
    ] {
        let o = queens()
            .args(cmd)
            .arg(&c)
            .current_dir(dir.path())
            .output()
            .unwrap();
        fails_with(&o, &["entry 123", "solver 8"]);
    }

    // A campaign run to the end: solver 1 is the only one its history knows.
    let c = dir.path().join("d");
    ok(&run(10, &c));
    let solved = std::fs::read(&c).unwrap();
    // An entry made unsolved again (as a result lost in a crash leaves it: handed out, no
    // count), then the flip: solver 8.
    let mut bytes = solved.clone();
    set_word2(&mut bytes, 7, 1 << 55);
    std::fs::write(&c, &bytes).unwrap();
    fails_with(&run(10, &c), &["entry 7", "solver 8"]);
    // The flip of bit 52 names solver 1, which the history knows; but that entry was never
    // handed out (its stamp is 0), so it was never solved either.
    let mut bytes = solved.clone();
    bytes[16 * 7 + 5] &= 0xF0;
    bytes[16 * 7 + 6] = 0;
    bytes[16 * 7 + 7] = 0;
    set_word2(&mut bytes, 7, 1 << 52);
    std::fs::write(&c, &bytes).unwrap();
    fails_with(&run(10, &c), &["entry 7", "never handed out", "solver 1"]);
    // A flip that leaves solver 0 with a count: refused by the entry's own format.
    let mut bytes = solved.clone();
    set_word2(&mut bytes, 7, 1 << 40);
    std::fs::write(&c, &bytes).unwrap();
    fails_with(&run(10, &c), &["entry 7", "solver = 0"]);
    // Undamaged, it reads and resumes as before.
    std::fs::write(&c, &solved).unwrap();
    assert!(ok(&run(10, &c)).contains("Q(10) = 724"));
}

/// A Queens@TUD database has no history: its solver ids are taken as found, so it stays
/// readable, and a run adopts it (naming its ids, giving new ones above them) after which its
/// entries are checked as ours are.
#[test]
fn a_database_without_history_is_read_and_adopted() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("tud");
    ok(&run(10, &c));
    // As Queens@TUD left it: solver ids of their boards, no history, half unsolved.
    let mut bytes = std::fs::read(&c).unwrap();
    let entries = bytes.len() / 16;
    for k in 0..entries {
        let w = word2(&bytes, k);
        let w = if k % 2 == 0 {
            0
        } else {
            w & !(0xFFF << 52) | (77 + k as u64 % 3) << 52
        };
        set_word2(&mut bytes, k, w);
    }
    std::fs::write(&c, &bytes).unwrap();
    std::fs::remove_file(dir.path().join("tud.history")).unwrap();
    std::fs::remove_file(dir.path().join("tud.cycles")).unwrap();
    let s = ok(&queens().args(["db", "stats", "--json"]).arg(&c).output().unwrap());
    let s: serde_json::Value = serde_json::from_str(&s).unwrap();
    assert_eq!(s["solved"].as_u64().unwrap() as usize, entries / 2);
    assert!(!dir.path().join("tud.history").exists(), "reading writes nothing");
    // The run finishes it.
    assert!(ok(&run(10, &c)).contains("Q(10) = 724"));
    let h = std::fs::read_to_string(dir.path().join("tud.history")).unwrap();
    for id in 77..80 {
        assert!(
            h.contains(&format!("\"id\":{id},\"link\":\"unnamed solver {id}")),
            "{h}"
        );
    }
    assert!(
        h.contains("\"created\"") && h.contains("\"id\":80,\"link\":\"sim\""),
        "{h}"
    );
    // From now on a damaged entry is named.
    let mut bytes = std::fs::read(&c).unwrap();
    let w = word2(&bytes, 0);
    set_word2(&mut bytes, 0, w ^ 1 << 61);
    std::fs::write(&c, &bytes).unwrap();
    let o = queens().args(["db", "stats"]).arg(&c).output().unwrap();
    fails_with(&o, &["entry 0", "never gave out"]);
}

/// A large campaign answers at once from its summary: N = 16, 3 million entries.
#[test]
fn a_large_campaign_answers_stats_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    fresh(16, &c);
    let t = Instant::now();
    let o = queens().args(["db", "stats", "--json"]).arg(&c).output().unwrap();
    let s: serde_json::Value = serde_json::from_str(&ok(&o)).unwrap();
    assert_eq!(s["subproblems"], 3_073_215);
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
}

/// What is not a regular file is never renamed over: `--force` refuses a device or a pipe in
/// the campaign's place, and an output onto a pipe is written into it (onto a symbolic link,
/// into the file it names, the link kept).
#[test]
fn devices_pipes_and_links_are_written_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fifo = d.join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string and mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let o = queens()
        .args(["subproblems", "8", "--force", "--out"])
        .arg(&fifo)
        .output()
        .unwrap();
    fails_with(&o, &["fifo", "not a regular file"]);
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    let camp = d.join("c");
    fresh(8, &camp);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    ok(&queens()
        .args(["db", "plot"])
        .arg(&camp)
        .arg("--out")
        .arg(&fifo)
        .output()
        .unwrap());
    assert!(reader.join().unwrap().contains("<svg"));
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    let real = d.join("real.svg");
    std::fs::write(&real, "old").unwrap();
    std::os::unix::fs::symlink(&real, d.join("link.svg")).unwrap();
    ok(&queens()
        .args(["db", "plot"])
        .arg(&camp)
        .arg("--out")
        .arg(d.join("link.svg"))
        .output()
        .unwrap());
    assert!(std::fs::symlink_metadata(d.join("link.svg"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&real).unwrap().contains("<svg"));
}

/// `db stats --json` of a campaign file.
fn stats(c: &Path, extra: &[&str]) -> serde_json::Value {
    stats_saying(c, extra, "")
}

/// `db stats --json` of a campaign file, which says `words` on standard error.
fn stats_saying(c: &Path, extra: &[&str], words: &str) -> serde_json::Value {
    let o = queens()
        .args(["db", "stats", "--json"])
        .args(extra)
        .arg(c)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(words), "{words:?} not in: {err}");
    serde_json::from_str(&ok(&o)).unwrap()
}

/// Sends `sig` to a child this test started and still owns.
fn signal(child: &std::process::Child, sig: i32) {
    // SAFETY: kill(2) on the pid of a child not yet waited for.
    unsafe {
        libc::kill(child.id() as i32, sig);
    }
}

/// A run of N = 12 on a slow simulated board, in the background: it holds work for a while.
fn slow_run(c: &Path) -> std::process::Child {
    spawn_quiet(
        &[
            "run",
            "12",
            "--solvers",
            "4",
            "--sim-clock",
            "20kHz",
            "--campaign",
        ],
        c,
    )
}

/// Waits until a run holds the campaign (its session is in the history), then long enough
/// for results to be synced.
fn wait_for_progress(c: &Path) {
    let h = PathBuf::from(format!("{}.history", c.display()));
    let t = Instant::now();
    while !std::fs::read_to_string(&h).is_ok_and(|s| s.contains("\"session\"")) {
        assert!(t.elapsed() < Duration::from_secs(60), "no session");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(2500));
}

/// The summary is what a start trusts: after a clean stop nothing is read again; after a
/// SIGKILL only the blocks that were open; and `db stats` from it agrees with a recount.
#[test]
fn a_start_reads_only_the_blocks_written_since_the_last_sync() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    fresh(12, &c);
    let s = stats(&c, &[]);
    assert_eq!(s["from_summary"]["reread"], 0, "{s}");
    let total = s["subproblems"].as_u64().unwrap();
    // Killed while it holds work: its open blocks are read again, no others.
    let mut host = slow_run(&c);
    std::thread::sleep(Duration::from_millis(1500));
    host.kill().unwrap();
    host.wait().unwrap();
    let s = stats(&c, &["--recount"]);
    let reread = s["from_summary"]["reread"].as_u64().unwrap();
    assert!(reread > 0 && reread < total / 4, "{reread} of {total}: {s}");
    assert_eq!(s["recount"]["agrees"], true, "{s}");
    // Stopped cleanly (SIGTERM): the report, and nothing to read again at the next start.
    let mut host = slow_run(&c);
    wait_for_progress(&c);
    signal(&host, libc::SIGTERM);
    let status = host.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let s = stats(&c, &["--recount"]);
    assert_eq!(s["from_summary"]["reread"], 0, "{s}");
    assert_eq!(s["recount"]["agrees"], true, "{s}");
    assert!(s["solved"].as_u64().unwrap() > 0, "{s}");
}

/// A summary that is torn, or stale (an older one put back after the campaign moved on), is
/// never trusted: every entry is checked instead and the figures are the file's.
#[test]
fn a_torn_or_stale_summary_is_not_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    let summary = dir.path().join("c.summary");
    fresh(12, &c);
    let old = std::fs::read(&summary).unwrap();
    let mut host = slow_run(&c);
    wait_for_progress(&c);
    signal(&host, libc::SIGINT);
    assert_eq!(host.wait().unwrap().code(), Some(130));
    let now = stats(&c, &["--recount"]);
    assert!(now["solved"].as_u64().unwrap() > 0);
    // Stale: the fresh campaign's clean summary, put back.
    std::fs::write(&summary, &old).unwrap();
    let s = stats_saying(&c, &[], "stale");
    assert_eq!(s["solved"], now["solved"]);
    assert_eq!(s["total"], now["total"]);
    assert!(s.get("from_summary").is_none(), "{s}");
    // Torn: cut short, or a bit flipped.
    let good = std::fs::read(&summary).unwrap_or(old.clone());
    for torn in [good[..good.len() / 2].to_vec(), {
        let mut b = good.clone();
        b[40] ^= 4;
        b
    }] {
        std::fs::write(&summary, &torn).unwrap();
        let s = stats_saying(&c, &[], "torn");
        assert_eq!(s["solved"], now["solved"]);
        assert_eq!(s["total"], now["total"]);
    }
    // A run makes it anew, and finishes the campaign exactly.
    assert!(ok(&run(12, &c)).contains("Q(12) = 14,200"));
    assert_eq!(stats(&c, &[])["from_summary"]["reread"], 0);
}

/// A flipped bit in a solved entry of a block the run never touches, with the summary
/// current (the file's time put back): the start trusts the summary, and the background
/// pass names the entry before any final total.
#[test]
fn a_flipped_bit_behind_a_current_summary_is_named_before_a_final_total() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    assert!(ok(&run(12, &c)).contains("Q(12) = 14,200"));
    let mtime = std::fs::metadata(&c).unwrap().modified().unwrap();
    let mut bytes = std::fs::read(&c).unwrap();
    let k = bytes.len() / 16 - 10;
    let w = word2(&bytes, k);
    // Count bit 3: the count no longer matches its digits.
    set_word2(&mut bytes, k, w ^ 8);
    let f = std::fs::OpenOptions::new().write(true).open(&c).unwrap();
    use std::os::unix::fs::FileExt;
    f.write_all_at(&bytes[16 * k..16 * k + 16], 16 * k as u64)
        .unwrap();
    f.set_modified(mtime).unwrap();
    drop(f);
    // `db stats` answers from the summary (and says when it was last read against the
    // file); `--recount` finds the damage.
    assert_eq!(stats(&c, &[])["complete"], true);
    let o = queens()
        .args(["db", "stats", "--recount"])
        .arg(&c)
        .output()
        .unwrap();
    fails_with(&o, &[&format!("entry {k}"), "disagrees with its digits"]);
    let o = run(12, &c);
    fails_with(&o, &[&format!("entry {k}"), "disagrees with its digits"]);
    assert!(
        !String::from_utf8_lossy(&o.stdout).contains("Q(12)"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// Ctrl-C ends a run with its report: what it solved, what was in flight, how to resume.
#[test]
fn ctrl_c_ends_a_run_with_its_report_and_the_resume_command() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    let host = queens()
        .args([
            "run",
            "12",
            "--solvers",
            "4",
            "--sim-clock",
            "20kHz",
            "--campaign",
        ])
        .arg(&c)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_progress(&c);
    signal(&host, libc::SIGINT);
    let o = host.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130));
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        out.contains("running total for N = 12") && out.contains("solved in this run"),
        "{out}"
    );
    assert!(
        err.contains("go out again; to resume: queens run 12 --solvers 4 --sim-clock 20kHz --campaign"),
        "{err}"
    );
}

/// Stopped while it creates the file: SIGTERM removes the partial file; one a SIGKILL
/// left is removed, and named, by the next start.
#[test]
fn a_creation_stopped_leaves_no_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("q20.campaign");
    let partials = || {
        names(dir.path())
            .into_iter()
            .filter(|n| n.ends_with(".partial"))
            .collect::<Vec<_>>()
    };
    let start = || {
        queens()
            .args(["run", "20", "--campaign"])
            .arg(&c)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let wait_partial = || {
        let t = Instant::now();
        while partials().is_empty() {
            assert!(t.elapsed() < Duration::from_secs(60), "no partial file");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let mut host = start();
    wait_partial();
    host.kill().unwrap();
    host.wait().unwrap();
    let left = partials();
    assert_eq!(left.len(), 1, "{left:?}");
    let host = start();
    // The leftover goes first; then the new creation is stopped.
    let t = Instant::now();
    while partials() == left {
        assert!(t.elapsed() < Duration::from_secs(60), "the leftover stayed");
        std::thread::sleep(Duration::from_millis(20));
    }
    wait_partial();
    signal(&host, libc::SIGTERM);
    let o = host.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("removed {}", dir.path().join(&left[0]).display())),
        "{err}"
    );
    assert!(err.contains("the partial file is removed"), "{err}");
    assert!(partials().is_empty() && !c.exists(), "{:?}", names(dir.path()));
}
