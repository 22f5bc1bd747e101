//! A campaign is never replaced while a run holds it, nor overwritten by output of another
//! kind; temporary files never take a user's name; and a damaged entry of a campaign file is
//! named when the file is opened, never counted.

mod entries;
mod overwrite;
mod stopping;
mod summary;

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

fn word2(bytes: &[u8], k: usize) -> u64 {
    u64::from_be_bytes(bytes[16 * k + 8..16 * k + 16].try_into().unwrap())
}

fn set_word2(bytes: &mut [u8], k: usize, w: u64) {
    bytes[16 * k + 8..16 * k + 16].copy_from_slice(&w.to_be_bytes());
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
    // Plain units: a board of grouped ones holds whole groups, so the blocks open when it is
    // killed depend on where its groups fall, not on the summary under test.
    spawn_quiet(
        &[
            "run",
            "12",
            "--solvers",
            "4",
            "--sim-clock",
            "20kHz",
            "--sim-unit",
            "plain",
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
