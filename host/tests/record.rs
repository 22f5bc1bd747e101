//! `queens db record` and `queens db check-record`: a finished campaign's record checks
//! clean against a software recount and against the campaign; a count changed in it is
//! named with its entries.

use crate::common::{fails_with, ok, queens};
use std::path::Path;

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    queens().current_dir(dir).args(args).output().unwrap()
}

/// The record at `path` with the sum of the block holding entry `entry` raised by `by`,
/// and its total with it, as a record changed by hand would be: consistent in itself.
fn changed(path: &Path, entry: u64, by: u128) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = String::new();
    for l in text.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        let line = match f.as_slice() {
            ["total", t] => format!("total {}", t.parse::<u128>().unwrap() + by),
            [b, first, last, solved, sum, hash]
                if first.parse::<u64>().is_ok_and(|x| x <= entry)
                    && last.parse::<u64>().is_ok_and(|x| x >= entry) =>
            {
                let sum = sum.parse::<u128>().unwrap() + by;
                format!("{b} {first} {last} {solved} {sum} {hash}")
            }
            _ => l.to_string(),
        };
        out += &line;
        out.push('\n');
    }
    assert_ne!(out, text, "entry {entry} is in no block");
    out
}

#[test]
fn a_finished_campaigns_record_checks_clean_and_a_changed_count_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&run(d, &["run", "14", "--json"]));
    let said = ok(&run(d, &["db", "record", "q14.campaign", "--out", "q14.record"]));
    let software = ok(&run(d, &["count", "14", "--json"]));
    let total: serde_json::Value = serde_json::from_str(&software).unwrap();
    let total = total["total"].to_string();
    let text = std::fs::read_to_string(d.join("q14.record")).unwrap();
    assert!(text.contains(&format!("\ntotal {total}\n")), "{said}\n{text}");
    // Clean: every block recounted in software, and every block against the campaign.
    let all = ok(&run(
        d,
        &["db", "check-record", "q14.record", "--sample", "100000"],
    ));
    assert!(all.contains("all agree"), "{all}");
    let blocks = text
        .lines()
        .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
        .count();
    assert!(all.contains(&format!("{blocks} of them checked")), "{all}");
    assert!(ok(&run(
        d,
        &["db", "check-record", "q14.record", "--against", "q14.campaign"]
    ))
    .contains("all agree"));
    // One count changed by 8 (a NONE class count off by one): named with its block's entries.
    std::fs::write(d.join("bad.record"), changed(&d.join("q14.record"), 10_000, 8)).unwrap();
    for how in [&["--sample", "100000"][..], &["--against", "q14.campaign"][..]] {
        let o = run(d, &[&["db", "check-record", "bad.record"][..], how].concat());
        fails_with(&o, &["1 of", "differ"]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains("block 2 (entries 8,192 to 12,287)"), "{out}");
    }
    // In blocks of one entry, the entry itself is named.
    ok(&run(
        d,
        &[
            "db",
            "record",
            "q14.campaign",
            "--out",
            "fine.record",
            "--block",
            "1",
        ],
    ));
    std::fs::write(d.join("bad1.record"), changed(&d.join("fine.record"), 10_000, 8)).unwrap();
    let o = run(
        d,
        &["db", "check-record", "bad1.record", "--against", "q14.campaign"],
    );
    fails_with(&o, &["1 of"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("block 10000 (entry 10,000)"));
    // A file that is no record, and a record whose lines disagree, are said to be so.
    std::fs::write(d.join("notes.txt"), "hello\n").unwrap();
    fails_with(
        &run(d, &["db", "check-record", "notes.txt"]),
        &["not a campaign record"],
    );
    let torn = text.replacen(&format!("\ntotal {total}\n"), "\ntotal 1\n", 1);
    std::fs::write(d.join("torn.record"), torn).unwrap();
    fails_with(
        &run(d, &["db", "check-record", "torn.record"]),
        &["its blocks sum to"],
    );
}
