//! A board found lying loses every count it ever gave, in every session: its counts of an
//! earlier session (where nothing checked it) go with those of the session that caught it,
//! in a campaign file and in a shared PostgreSQL campaign (the server of ./scripts/test.sh).

use queens_core::entry::{Solution, Stamp};
use queens_core::BoardSize;
use queens_host::store::file::{Access, FileStore};
use queens_host::store::pg::PgStore;
use queens_host::store::pg_conn::Target;
use queens_host::store::{Claim, Store};
use std::time::Duration;

use crate::common;
use common::queens;

/// Q(10).
const Q10: u128 = 724;

/// An earlier session of board `sim:4`: it solved every entry but the last `open`, one in
/// 50 of them wrong (nothing checked it). Returns the entries it got wrong.
fn earlier_session(store: &mut impl Store, open: usize) -> usize {
    let id = store.solver_id("sim:4").unwrap();
    let claims: Vec<Claim> = store.claim(1 << 20, Stamp::now()).unwrap();
    let mut wrong = 0;
    for (k, c) in claims[..claims.len() - open].iter().enumerate() {
        let right = queens_core::completions(&c.sub.pre);
        let count = if k % 50 == 7 {
            wrong += 1;
            right + 1
        } else {
            right
        };
        store
            .solve(c.index, Solution::new(id, count).unwrap(), None)
            .unwrap();
    }
    store.sync().unwrap();
    wrong
}

fn run(campaign: &str, link: &str, faults: &str) -> std::process::Output {
    queens()
        .args(["run", "10", "--json", "--campaign", campaign, "--link", link])
        .args(["--sim-faults", faults])
        .output()
        .unwrap()
}

/// The same board comes back lying always and is caught: every count it gave goes, the
/// earlier session's too, and an honest board then finishes the campaign exact.
fn caught_then_finished(campaign: &str, summary: impl Fn() -> queens_host::store::Summary) {
    let before = summary();
    assert_ne!(before.solved.total(), 0);
    let out = run(campaign, "sim:4", "lie=1");
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the liar was the only board: {log}");
    assert!(
        log.contains("quarantined") && log.contains("earlier sessions withdrawn"),
        "{log}"
    );
    let after = summary();
    assert_eq!(after.solved.subproblems(), 0, "nothing of sim:4's is left: {log}");
    assert_eq!(after.solved.total(), 0);
    let out = run(campaign, "sim:5", "");
    let r: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(r["total"].as_u64().unwrap() as u128, Q10, "{r}");
    assert_eq!(r["complete"], true);
}

#[test]
fn a_liar_loses_its_earlier_sessions_counts_in_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q10");
    let size = BoardSize::new(10).unwrap();
    FileStore::create(&path, size, false, &queens_host::store::file::Watch::default()).unwrap();
    {
        let mut s = FileStore::open(&path, Some(size), Access::Write).unwrap();
        assert!(earlier_session(&mut s, 500) > 0);
        assert_ne!(s.summary().solved.total(), 0);
    }
    let summary = || FileStore::open(&path, None, Access::Read).unwrap().summary();
    caught_then_finished(path.to_str().unwrap(), summary);
}

#[test]
fn a_liar_loses_its_earlier_sessions_counts_in_postgres() {
    let url = std::env::var("QUEENS_TEST_POSTGRES")
        .expect("QUEENS_TEST_POSTGRES is not set: ./scripts/test.sh starts a PostgreSQL server");
    let mut c = Target::parse(&url).unwrap().connect().unwrap();
    c.batch_execute("DROP DATABASE IF EXISTS q_withdraw_sessions WITH (FORCE)")
        .unwrap();
    c.batch_execute("CREATE DATABASE q_withdraw_sessions").unwrap();
    let url = format!("{}/q_withdraw_sessions", url.rsplit_once('/').unwrap().0);
    let target = Target::parse(&url).unwrap();
    let size = BoardSize::new(10).unwrap();
    {
        let (mut s, created) = PgStore::open(&target, size, Duration::from_secs(5)).unwrap();
        assert!(created);
        assert!(earlier_session(&mut s, 500) > 0);
    }
    // Leases of this process's store are its own; a new process waits them out.
    std::thread::sleep(Duration::from_secs(6));
    let summary = || {
        let (s, _) = PgStore::open(&target, size, Duration::from_secs(5)).unwrap();
        s.summary()
    };
    caught_then_finished(&url, summary);
    let mut c = target.connect().unwrap();
    let gone: i64 = c
        .query_one(
            "SELECT sum(entries)::bigint FROM queens_withdrawal WHERE n = 10",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(gone, 3739 - 500, "every count of the earlier session, recorded");
}
