//! What a shared campaign holds: import and export, the store benchmark, a damaged block, withdrawn counts.

use super::*;

#[test]
fn import_export_round_trip_and_a_campaign_finished_on_postgres() {
    let url = database("q_import_export");
    let dir = tempfile::tempdir().unwrap();
    // A solved file campaign goes in and comes out byte for byte, cycle counts too.
    let f11 = dir.path().join("q11");
    ok(&queens()
        .args(["run", "11", "--json", "--campaign"])
        .arg(&f11)
        .output()
        .unwrap());
    ok(&queens()
        .args(["db", "import"])
        .arg(&f11)
        .arg(&url)
        .output()
        .unwrap());
    let back = dir.path().join("q11.back");
    ok(&queens().args(["db", "export", &url]).arg(&back).output().unwrap());
    assert_eq!(std::fs::read(&f11).unwrap(), std::fs::read(&back).unwrap());
    assert_eq!(
        std::fs::read(dir.path().join("q11.cycles")).unwrap(),
        std::fs::read(dir.path().join("q11.back.cycles")).unwrap()
    );
    let e = err(&queens()
        .args(["db", "import"])
        .arg(&f11)
        .arg(&url)
        .output()
        .unwrap());
    assert!(
        e.contains("N = 11 has a campaign already") && e.contains("--force"),
        "{e}"
    );
    // A fresh Queens@TUD-style file, imported, solved by a host on the database, exported.
    let f12 = dir.path().join("q12");
    ok(&queens()
        .args(["subproblems", "12", "--out"])
        .arg(&f12)
        .output()
        .unwrap());
    ok(&queens()
        .args(["db", "import"])
        .arg(&f12)
        .arg(&url)
        .output()
        .unwrap());
    let r = ok(&queens()
        .args(["run", "12", "--json", "--accept-unconfirmed", "--campaign", &url])
        .output()
        .unwrap());
    assert_eq!(r["total"].as_u64().unwrap() as u128, Q[12], "{r}");
    let e = err(&queens().args(["db", "export", &url]).arg(&back).output().unwrap());
    assert!(e.contains("N = [11, 12]") && e.contains("--n"), "{e}");
    let done = dir.path().join("q12.done");
    ok(&queens()
        .args(["db", "export", &url, "--n", "12"])
        .arg(&done)
        .output()
        .unwrap());
    let v = ok(&queens()
        .args(["db", "verify", "--json", "--sample", "100000"])
        .arg(&done)
        .output()
        .unwrap());
    assert_eq!(v["disagreements"].as_array().map(|a| a.len()), Some(0), "{v}");
    assert!(v["checked"].as_u64().unwrap() > 50_000, "{v}");
}

#[test]
fn the_store_benchmark_measures_and_cleans_up() {
    let url = database("q_bench");
    let f = ok(&queens()
        .args([
            "db", "bench", &url, "--n", "12", "--hosts", "2", "--batch", "500", "--json",
        ])
        .output()
        .unwrap());
    assert_eq!(f["subproblems"], 51_484);
    assert_eq!(f["leases"], 13, "every block leased once: {f}");
    assert!(f["results_per_second"].as_f64().unwrap() > 0.0, "{f}");
    assert!(f["bytes_per_million_live"].as_f64().unwrap() > 1e6, "{f}");
    let mut c = client(&url);
    let left: i64 = c
        .query_one("SELECT count(*) FROM queens_campaign", &[])
        .unwrap()
        .get(0);
    assert_eq!(left, 0, "the scratch campaign is deleted");
    // A real campaign of that N is never touched.
    ok(&queens()
        .args(["run", "12", "--json", "--accept-unconfirmed", "--campaign", &url])
        .output()
        .unwrap());
    let e = err(&queens()
        .args(["db", "bench", &url, "--n", "12"])
        .output()
        .unwrap());
    assert!(e.contains("holds a campaign of N = 12"), "{e}");
}

/// A flipped bit in a block's entries that makes an unsolved entry read as solved: the block
/// no longer agrees with its row's count of solved entries, and every reader names it (the
/// run, which would otherwise wait for an entry it never hands out; verify; export) instead
/// of skipping or counting the entry.
#[test]
fn a_flipped_bit_in_a_shared_block_is_named() {
    let url = database("q_flipped");
    let dir = tempfile::tempdir().unwrap();
    // Half a campaign: a fresh one, with the first blocks' worth solved by a run.
    ok(&queens()
        .args(["run", "10", "--json", "--accept-unconfirmed", "--campaign", &url])
        .output()
        .unwrap());
    let mut c = client(&url);
    // Entry 5 of block 0 unsolved again (the row's count follows), then bit 55 of its
    // word 2 flipped: solver 8 (the campaign gave out only 1), count 0.
    c.execute(
        "UPDATE queens_block SET entries = overlay(entries placing '\\x0000000000000000'::bytea from 16 * 5 + 9),
                solved = solved - 1 WHERE n = 10 AND block = 0",
        &[],
    )
    .unwrap();
    c.execute(
        "UPDATE queens_campaign SET solved[1] = solved[1] - 1 WHERE n = 10",
        &[],
    )
    .unwrap();
    c.execute(
        "UPDATE queens_block SET entries = overlay(entries placing '\\x0080'::bytea from 16 * 5 + 9)
         WHERE n = 10 AND block = 0",
        &[],
    )
    .unwrap();
    let start = Instant::now();
    let e = err(&queens().args(["run", "10", "--campaign", &url]).output().unwrap());
    assert!(start.elapsed() < Duration::from_secs(60), "it did not wait");
    for w in ["block 0", "entry 5 names solver 8", "damaged"] {
        assert!(e.contains(w), "{w:?} not in {e}");
    }
    let e = err(&queens().args(["db", "verify", &url]).output().unwrap());
    assert!(
        e.contains("block 0") && e.contains("entry 5 names solver 8"),
        "{e}"
    );
    let file = dir.path().join("q10");
    let e = err(&queens().args(["db", "export", &url]).arg(&file).output().unwrap());
    assert!(e.contains("block 0") && e.contains("damaged"), "{e}");
    assert!(!file.exists(), "nothing exported");
}

/// A quarantined board's counts are withdrawn from a shared campaign: the totals lose them,
/// the block is open again, and solving them anew counts each once.
#[test]
fn withdrawn_counts_leave_the_shared_totals_and_reopen_their_block() {
    let url = database("q_withdraw");
    let target = Target::parse(&url).unwrap();
    let size = BoardSize::new(9).unwrap();
    let (mut s, _) = PgStore::open(&target, size, Duration::from_secs(60)).unwrap();
    let claims = s.claim(100_000, Stamp::now()).unwrap();
    let solver = s.solver_id("test").unwrap();
    // Every claimed subproblem solved with its true count, and committed.
    let solve_right = |s: &mut PgStore, claims: &[&queens_host::store::Claim]| {
        for c in claims {
            let right = queens_core::completions(&c.sub.pre);
            s.solve(c.index, Solution::new(solver, right).unwrap(), None)
                .unwrap();
        }
        s.sync().unwrap();
    };
    solve_right(&mut s, &claims.iter().collect::<Vec<_>>());
    assert!(s.summary().complete());
    assert_eq!(s.summary().solved.total(), Q[9]);
    assert!(!s.more_later().unwrap());
    // Ten counts withdrawn (one of them also wrongly corrected first).
    let gone: Vec<_> = claims
        .iter()
        .filter(|c| c.sub.sym.weight() == 8)
        .take(10)
        .collect();
    s.correct(gone[0].index, Solution::new(solver, 12345).unwrap())
        .unwrap();
    for c in &gone {
        s.retract(c.index).unwrap();
    }
    s.sync().unwrap();
    let sum = s.summary();
    assert_eq!(sum.pending(), 10);
    let lost: u128 = gone
        .iter()
        .map(|c| 8 * queens_core::completions(&c.sub.pre) as u128)
        .sum();
    assert_eq!(sum.solved.total(), Q[9] - lost);
    assert!(s.more_later().unwrap(), "the block is open again");
    solve_right(&mut s, &gone);
    assert!(s.summary().complete());
    assert_eq!(s.summary().solved.total(), Q[9]);
}
