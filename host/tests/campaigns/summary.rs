//! A campaign file's summary: fast answers, and never trusted beyond what it has read.

use super::*;

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
