//! Entries read as they are: a flipped bit named, a database without history adopted.

use super::*;

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
