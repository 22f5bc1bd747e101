//! The server's merge of a commit (`queens_commit`, set-based), against the throwaway server
//! of `./scripts/test.sh`: byte for byte, a block holds exactly the counts and cycles that
//! landed and nothing else moved; a second result for an entry in the same commit is
//! compared, never counted; the totals grow by what landed, per class.

use queens_core::entry::{Solution, Stamp, ENTRY_BYTES};
use queens_core::BoardSize;
use queens_host::store::pg::PgStore;
use queens_host::store::pg_conn::Target;
use queens_host::store::{Claim, Store};
use std::time::Duration;

use crate::common;
use common::pg::{client, database};

/// A fresh campaign of N = 10 in database `name` whose block 0 a store has claimed for
/// solver `solver`: the store (kept open, as its claim was made), its URL, the solver's id,
/// the subproblems of block 0 and the lease.
fn lease_block0(name: &str, solver: &str) -> (PgStore, String, u16, Vec<Claim>, i64) {
    let url = database(name);
    let target = Target::parse(&url).unwrap();
    let size = BoardSize::new(10).unwrap();
    let (mut st, _) = PgStore::open(&target, size, Duration::from_secs(600)).unwrap();
    let id = st.solver_id(solver).unwrap();
    let got: Vec<_> = st
        .claim(4096, Stamp::now())
        .unwrap()
        .into_iter()
        .filter(|c| c.index < 4096)
        .collect();
    assert!(got.len() > 40, "block 0 leased: {}", got.len());
    let lease = client(&url)
        .query_one("SELECT lease FROM queens_block WHERE n = 10 AND block = 0", &[])
        .unwrap()
        .get(0);
    (st, url, id, got, lease)
}

/// Block 0's entries and cycles as stored.
fn block0(c: &mut postgres::Client, n: i32) -> (Vec<u8>, Option<Vec<u8>>, i32) {
    let r = c
        .query_one(
            "SELECT entries, cycles, solved FROM queens_block WHERE n = $1 AND block = 0",
            &[&n],
        )
        .unwrap();
    (r.get(0), r.get(1), r.get(2))
}

fn totals(c: &mut postgres::Client, n: i32) -> (Vec<i64>, Vec<i64>) {
    let r = c
        .query_one(
            "SELECT solved, solutions FROM queens_campaign WHERE n = $1",
            &[&n],
        )
        .unwrap();
    (r.get(0), r.get(1))
}

#[test]
fn a_commit_lands_each_count_once_and_touches_nothing_else() {
    let (_store, url, id, got, lease) = lease_block0("q_merge", "merge sim");
    let mut c = client(&url);
    let (before, _, _) = block0(&mut c, 10);
    let (_, sums_before) = totals(&mut c, 10);
    // Results in no particular order: entry 7 twice with the same count (the second
    // agrees), entry 3 twice with different counts (the second is a dispute), cycles for
    // some, and the last entry of the block.
    let w = |count: u64| Solution::new(id, count).unwrap().word() as i64;
    let idx = |k: usize| got[k].index as i64;
    let last = got.len() - 1;
    let picks: [(usize, u64, Option<u64>); 7] = [
        (7, 11, Some(700)),
        (0, 5, None),
        (3, 9, Some(300)),
        (7, 11, None),
        (last, 2, Some(1)),
        (3, 8, None),
        (20, 0, Some(2000)),
    ];
    let entries: Vec<i64> = picks.iter().map(|p| idx(p.0)).collect();
    let words: Vec<i64> = picks.iter().map(|p| w(p.1)).collect();
    let cycles: Vec<Option<Vec<u8>>> = picks
        .iter()
        .map(|p| p.2.map(|x| x.to_le_bytes().to_vec()))
        .collect();
    let r = c
        .query_one(
            "SELECT o_agreed, o_disputed, o_refused FROM queens_commit(10, 'merge', 600, $1, $2, $3, $4, '{}', '{}', '{}')",
            &[&vec![lease], &entries, &words, &cycles],
        )
        .unwrap();
    assert_eq!(r.get::<_, i64>(0), 1, "entry 7 again, the same count");
    assert_eq!(r.get::<_, i64>(1), 1, "entry 3 again, another count");
    assert_eq!(r.get::<_, i64>(2), 0);
    // What the block must hold: word 2 of the five entries that landed (the first result
    // for each), every other byte as before.
    let landed = [(7, 11), (0, 5), (3, 9), (last, 2), (20, 0)];
    let mut want = before.clone();
    for &(k, count) in &landed {
        let off = (got[k].index as usize) * ENTRY_BYTES;
        want[off + 8..off + 16].copy_from_slice(&(w(count) as u64).to_be_bytes());
    }
    let (after, cyc, solved) = block0(&mut c, 10);
    assert_eq!(after.len(), before.len());
    assert!(after == want, "the block holds exactly what landed");
    assert_eq!(solved, 5);
    let cyc = cyc.expect("cycles known now");
    assert_eq!(cyc.len(), before.len() / 2);
    for (k, g) in got.iter().enumerate() {
        let i = g.index as usize;
        let c = u64::from_le_bytes(cyc[i * 8..i * 8 + 8].try_into().unwrap());
        let want = match k {
            7 => 700,
            3 => 300,
            20 => 2000,
            k if k == last => 1,
            _ => 0,
        };
        assert_eq!(c, want, "cycles of entry {i}");
    }
    let disputes: Vec<(i64, i64, i64)> = c
        .query("SELECT entry, kept, other FROM queens_dispute WHERE n = 10", &[])
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert_eq!(disputes, vec![(idx(3), w(9), w(8))]);
    // The totals: five more solved, their counts summed in their own classes.
    let (solved_now, sums) = totals(&mut c, 10);
    assert_eq!(solved_now.iter().sum::<i64>(), 5);
    let mut want_sums = sums_before.clone();
    for &(k, count) in &landed {
        want_sums[got[k].sub.sym.slot()] += count as i64;
    }
    assert_eq!(sums, want_sums);
    // A second commit of the same results lands nothing: all compared.
    let r = c
        .query_one(
            "SELECT o_agreed, o_disputed FROM queens_commit(10, 'merge', 600, $1, $2, $3, NULL, '{}', '{}', '{}')",
            &[&vec![lease], &entries, &words],
        )
        .unwrap();
    assert_eq!((r.get::<_, i64>(0), r.get::<_, i64>(1)), (6, 1));
    assert!(block0(&mut c, 10).0 == want, "nothing moved");
    assert_eq!(totals(&mut c, 10).1, want_sums);
}

#[test]
fn a_later_commit_keeps_the_counts_and_cycles_between_what_it_lands() {
    let (_store, url, id, got, lease) = lease_block0("q_merge_span", "span sim");
    let mut c = client(&url);
    let (before, _, _) = block0(&mut c, 10);
    let w = |count: u64| Solution::new(id, count).unwrap().word() as i64;
    let commit = |c: &mut postgres::Client, picks: &[(usize, u64, Option<u64>)]| -> (i64, i64) {
        let entries: Vec<i64> = picks.iter().map(|p| got[p.0].index as i64).collect();
        let words: Vec<i64> = picks.iter().map(|p| w(p.1)).collect();
        let cycles: Vec<Option<Vec<u8>>> = picks
            .iter()
            .map(|p| p.2.map(|x| x.to_le_bytes().to_vec()))
            .collect();
        let r = c
            .query_one(
                "SELECT o_agreed, o_disputed FROM queens_commit(10, 'span', 600, $1, $2, $3, $4, '{}', '{}', '{}')",
                &[&vec![lease], &entries, &words, &cycles],
            )
            .unwrap();
        (r.get(0), r.get(1))
    };
    // First two entries apart, then entries before, between and after them (one without
    // cycles), and the first again with its count: a span whose gaps hold earlier counts.
    assert_eq!(commit(&mut c, &[(5, 50, Some(500)), (2, 20, Some(200))]), (0, 0));
    assert_eq!(
        commit(
            &mut c,
            &[
                (9, 90, Some(900)),
                (3, 30, None),
                (1, 10, Some(100)),
                (2, 20, None),
                (4, 40, Some(400))
            ]
        ),
        (1, 0)
    );
    let landed = [
        (1, 10, 100),
        (2, 20, 200),
        (3, 30, 0),
        (4, 40, 400),
        (5, 50, 500),
        (9, 90, 900),
    ];
    let mut want = before.clone();
    for &(k, count, _) in &landed {
        let off = (got[k].index as usize) * ENTRY_BYTES;
        want[off + 8..off + 16].copy_from_slice(&(w(count) as u64).to_be_bytes());
    }
    let (after, cyc, solved) = block0(&mut c, 10);
    assert!(after == want, "the block holds exactly what landed");
    assert_eq!(solved, 6);
    let cyc = cyc.expect("cycles known");
    for (k, claim) in got.iter().enumerate() {
        let i = claim.index as usize;
        let have = u64::from_le_bytes(cyc[i * 8..i * 8 + 8].try_into().unwrap());
        let want = landed.iter().find(|l| l.0 == k).map_or(0, |l| l.2);
        assert_eq!(have, want, "cycles of entry {i}");
    }
}

#[test]
fn a_withdrawal_into_a_block_another_host_leases_ends_that_lease() {
    // Host A leases block 0 and lands counts of a solver; host B withdraws that solver (as
    // a host does with a board caught lying). A queued block 0's unsolved entries when it
    // leased it, not these: it must lose the block, so that a host leasing it queues them.
    let (mut a, url, id, got, lease) = lease_block0("q_merge_withdraw", "withdrawn sim");
    let target = Target::parse(&url).unwrap();
    let picks = [0usize, 5, 9];
    for &k in &picks {
        a.solve(got[k].index, Solution::new(id, 3).unwrap(), None)
            .unwrap();
    }
    a.sync().unwrap();
    let mut c = client(&url);
    assert_eq!(block0(&mut c, 10).2, 3, "A's counts landed");
    let (mut b, _) = PgStore::open(&target, BoardSize::new(10).unwrap(), Duration::from_secs(600)).unwrap();
    b.withdraw_solver(id, "caught lying in a test").unwrap();
    b.sync().unwrap();
    let r = c
        .query_one(
            "SELECT solved, lease IS NULL AND holder IS NULL AND lease_until IS NULL
             FROM queens_block WHERE n = 10 AND block = 0",
            &[],
        )
        .unwrap();
    assert_eq!(r.get::<_, i32>(0), 0, "the counts withdrawn");
    assert!(r.get::<_, bool>(1), "A's lease {lease} on block 0 ended");
    // B leases the block now, with the withdrawn entries among its unsolved ones.
    let again: Vec<u64> = b
        .claim(4096, Stamp::now())
        .unwrap()
        .into_iter()
        .map(|c| c.index)
        .collect();
    for &k in &picks {
        assert!(
            again.contains(&got[k].index),
            "entry {} queued again",
            got[k].index
        );
    }
    // A learns at its next commit that the block is gone.
    a.sync().unwrap();
    let now: Option<i64> = c
        .query_one("SELECT lease FROM queens_block WHERE n = 10 AND block = 0", &[])
        .unwrap()
        .get(0);
    assert!(now.is_some_and(|l| l != lease), "B's lease stands: {now:?}");
}

#[test]
fn a_held_blocks_entries_in_no_queue_are_queued_again_once_the_host_is_idle() {
    // Handed out and never answered (as results refused under a lease that lapsed and came
    // back): the host holds the block, renews it at every commit, and must not sit on it.
    let (mut st, _url, _id, got, _lease) = lease_block0("q_merge_requeue", "requeue sim");
    st.sync().unwrap();
    assert!(st.more_later().unwrap(), "block 0 is unsolved");
    let mut again: Vec<u64> = st
        .claim(4096, Stamp::now())
        .unwrap()
        .into_iter()
        .map(|c| c.index)
        .collect();
    again.sort_unstable();
    let mut want: Vec<u64> = got.iter().map(|c| c.index).collect();
    want.sort_unstable();
    assert_eq!(
        again.len(),
        want.len(),
        "every entry of the held block queued again"
    );
    assert!(again == want, "the same entries");
}
