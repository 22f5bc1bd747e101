//! What a PostgreSQL server sustains as a shared campaign store, measured with the store's
//! own code: several host threads (one connection each) lease blocks and commit results
//! until a scratch campaign is solved, then the campaign is deleted. The counts are
//! synthetic (the store is measured, not the search); the figures compare with what a
//! Q(27)-sized campaign needs: tens of results per second.

use super::{campaigns, create, disk_bytes, drop_campaign, PgStore, BLOCK};
use crate::store::pg_conn::Target;
use crate::store::{Store, StoreError};
use queens_core::entry::{Solution, Stamp};
use queens_core::BoardSize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How the benchmark runs.
#[derive(Debug, Clone, Copy)]
pub struct Setup {
    /// Board size of the scratch campaign (refused when the database has a campaign of it).
    pub size: BoardSize,
    /// Hosts committing at once, each with its own connection.
    pub hosts: usize,
    /// Results each host commits per transaction.
    pub batch: usize,
    /// Blocks leased, and blocks' worth of results committed, at most (all of them when
    /// None): an N = 27 campaign holds half a million blocks, hours of results.
    pub blocks: Option<u64>,
}

/// What the server sustained.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Figures {
    pub n: u32,
    pub subproblems: u64,
    pub blocks: u64,
    pub hosts: usize,
    pub batch: usize,
    pub create_seconds: f64,
    pub leases: u64,
    /// Seconds all hosts took to lease every block once.
    #[serde(skip)]
    pub lease_seconds: f64,
    pub leases_per_second: f64,
    pub results_per_second: f64,
    pub commits_per_second: f64,
    pub bytes_fresh: u64,
    pub bytes_solved: u64,
    pub bytes_live: u64,
    pub bytes_per_million_fresh: f64,
    pub bytes_per_million_solved: f64,
    pub bytes_per_million_live: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Db(#[from] postgres::Error),
    #[error("{db}: holds a campaign of N = {n}; the benchmark would need its place (choose another --n)")]
    Occupied { db: String, n: u32 },
    #[error("{leased} blocks leased, not all")]
    Leases { leased: u64 },
    #[error("the scratch campaign ended with {solved} of {subproblems} solved after {results} results")]
    Unfinished {
        solved: u64,
        subproblems: u64,
        results: u64,
    },
}

/// Runs the benchmark on the database of `target`.
pub fn bench(target: &Target, setup: Setup) -> Result<Figures, BenchError> {
    let Setup {
        size,
        hosts,
        batch,
        blocks,
    } = setup;
    // Shared by the hosts: what is left to lease, and results left to commit.
    let lease_left = AtomicU64::new(blocks.unwrap_or(u64::MAX));
    let result_left = AtomicU64::new(blocks.map_or(u64::MAX, |b| b * BLOCK as u64));
    let mut client = super::connect(target)?;
    if campaigns(&mut client, target)?.contains(&size.n()) {
        return Err(BenchError::Occupied {
            db: target.shown.clone(),
            n: size.n(),
        });
    }
    let before = disk_bytes(&mut client, target)?;
    let t = Instant::now();
    let subproblems = create(
        &mut client,
        target,
        size,
        None,
        false,
        &crate::store::Watch::default(),
    )?;
    let create_seconds = t.elapsed().as_secs_f64();
    let bytes_fresh = disk_bytes(&mut client, target)?.saturating_sub(before);
    let lease = Duration::from_secs(600);
    // Leases alone: every block claimed once, by all hosts at once, nothing committed.
    let t = Instant::now();
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..hosts)
            .map(|_| {
                s.spawn(|| -> Result<(), StoreError> {
                    let (mut st, _) = PgStore::open(target, size, lease)?;
                    while take(&lease_left, 1) == 1 && !st.claim(BLOCK, Stamp::now())?.is_empty() {}
                    Ok(())
                })
            })
            .collect();
        hs.into_iter().try_for_each(|h| h.join().expect("bench thread"))
    })?;
    let lease_seconds = t.elapsed().as_secs_f64();
    let n = size.n() as i32;
    let leased = client
        .query_one(
            "SELECT count(*) FROM queens_block WHERE n = $1 AND lease IS NOT NULL",
            &[&n],
        )?
        .get::<_, i64>(0) as u64;
    if leased != subproblems.div_ceil(BLOCK as u64).min(blocks.unwrap_or(u64::MAX)) {
        return Err(BenchError::Leases { leased });
    }
    // Those leases are abandoned: let them lapse so the results phase can take them again.
    client.execute(
        "UPDATE queens_block SET lease_until = now() - interval '1 second' WHERE n = $1",
        &[&n],
    )?;
    // Results: each host leases, solves everything it got, commits every `batch` results.
    let t = Instant::now();
    let (results, commits) = std::thread::scope(|s| {
        let hs: Vec<_> = (0..hosts)
            .map(|h| {
                let left = &result_left;
                s.spawn(move || solve_all(target, size, lease, h, batch, left))
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("bench thread"))
            .try_fold((0, 0), |(r, c), x| x.map(|(r2, c2)| (r + r2, c + c2)))
    })?;
    let result_seconds = t.elapsed().as_secs_f64();
    let bytes_solved = disk_bytes(&mut client, target)?.saturating_sub(before);
    // The rows themselves, without the old versions that wait for vacuum.
    let bytes_live = client
        .query_one(
            "SELECT sum(pg_column_size(b.*))::bigint FROM queens_block b WHERE n = $1",
            &[&n],
        )?
        .get::<_, i64>(0) as u64;
    // Every entry solved exactly once, by the campaign's own totals.
    let (st, _) = PgStore::open(target, size, lease)?;
    let s = st.summary();
    drop(st);
    drop_campaign(&mut client, target, size)?;
    let whole = blocks.is_none_or(|b| b * BLOCK as u64 >= subproblems);
    // Every result counted once: all of the campaign, or exactly the results committed.
    if !(s.solved.subproblems() == results && (!whole || s.complete())) {
        return Err(BenchError::Unfinished {
            solved: s.solved.subproblems(),
            subproblems: s.subproblems,
            results,
        });
    }
    let per_million = |b: u64| b as f64 * 1e6 / subproblems as f64;
    Ok(Figures {
        n: size.n(),
        subproblems,
        blocks: subproblems.div_ceil(BLOCK as u64),
        hosts,
        batch,
        create_seconds,
        leases: leased,
        lease_seconds,
        leases_per_second: leased as f64 / lease_seconds,
        results_per_second: results as f64 / result_seconds,
        commits_per_second: commits as f64 / result_seconds,
        bytes_fresh,
        bytes_solved,
        bytes_live,
        bytes_per_million_fresh: per_million(bytes_fresh),
        bytes_per_million_solved: per_million(bytes_solved),
        bytes_per_million_live: per_million(bytes_live),
    })
}

/// One host of the results phase (the `h`-th): leases, solves everything it got with
/// synthetic counts, commits every `batch` results. Returns its results and commits.
fn solve_all(
    target: &Target,
    size: BoardSize,
    lease: Duration,
    h: usize,
    batch: usize,
    left: &AtomicU64,
) -> Result<(u64, u64), StoreError> {
    let (mut st, _) = PgStore::open(target, size, lease)?;
    let solver = st.solver_id(&format!("bench {h}"))?;
    let (mut results, mut commits) = (0, 0);
    loop {
        let want = take(left, batch as u64) as usize;
        if want == 0 {
            break;
        }
        let got = st.claim(want, Stamp::now())?;
        if got.is_empty() {
            break;
        }
        for c in &got {
            st.solve(
                c.index,
                Solution::new(solver, c.index % 1000)?,
                Some(1 + c.index % 977),
            )?;
        }
        st.sync()?;
        results += got.len() as u64;
        commits += 1;
    }
    Ok((results, commits))
}

/// Takes up to `k` from a shared budget: what it got.
fn take(left: &AtomicU64, k: u64) -> u64 {
    let mut got = 0;
    let _ = left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |l| {
        got = l.min(k);
        Some(l - got)
    });
    got
}
