//! `queens db bench URL`: what a PostgreSQL server sustains as a shared campaign store, with
//! the store's own code: several host threads (one connection each) lease blocks and commit
//! results until a scratch campaign is solved, then the campaign is deleted. The counts are
//! synthetic (the store is measured, not the search); the figures compare with what a
//! Q(27)-sized campaign needs: tens of results per second.

use super::{board, grouped};
use queens_core::entry::{Solution, Stamp};
use queens_host::store::pg::{self, PgStore};
use queens_host::store::pg_conn::Target;
use queens_host::store::Store;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct BenchArgs {
    /// postgres://[user@]host[:port]/database (password from PGPASSWORD or ~/.pgpass).
    url: String,
    /// Board size of the scratch campaign; refused when the database has a campaign of it.
    #[arg(long, default_value_t = 16, value_parser = super::parse_n)]
    n: u32,
    /// Hosts committing at once, each with its own connection.
    #[arg(long, default_value_t = 4,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=64))]
    hosts: usize,
    /// Results each host commits per transaction (a real host commits once a second).
    #[arg(long, default_value_t = 1000,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    batch: usize,
    #[arg(long)]
    json: bool,
}

#[derive(serde::Serialize)]
struct Figures {
    n: u32,
    subproblems: u64,
    blocks: u64,
    hosts: usize,
    batch: usize,
    create_seconds: f64,
    leases: u64,
    leases_per_second: f64,
    results_per_second: f64,
    commits_per_second: f64,
    bytes_fresh: u64,
    bytes_solved: u64,
    bytes_live: u64,
    bytes_per_million_fresh: f64,
    bytes_per_million_solved: f64,
    bytes_per_million_live: f64,
}

pub fn bench(a: BenchArgs) -> anyhow::Result<()> {
    let size = board(a.n)?;
    anyhow::ensure!(
        a.hosts > 0 && a.batch > 0,
        "--hosts and --batch must be at least 1"
    );
    let target = Target::parse(&a.url)?;
    let mut client = pg::connect(&target)?;
    anyhow::ensure!(
        !pg::campaigns(&mut client, &target)?.contains(&a.n),
        "{}: holds a campaign of N = {}; the benchmark would need its place (choose another --n)",
        target.shown,
        a.n
    );
    let before = pg::disk_bytes(&mut client, &target)?;
    let t = Instant::now();
    let subproblems = pg::create(&mut client, &target, size, None, false)?;
    let create_seconds = t.elapsed().as_secs_f64();
    let bytes_fresh = pg::disk_bytes(&mut client, &target)?.saturating_sub(before);
    let lease = Duration::from_secs(600);
    // Leases alone: every block claimed once, by all hosts at once, nothing committed.
    let t = Instant::now();
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..a.hosts)
            .map(|_| {
                s.spawn(|| -> anyhow::Result<()> {
                    let (mut st, _) = PgStore::open(&target, size, lease)?;
                    while !st.claim(pg::BLOCK, Stamp::now())?.is_empty() {}
                    Ok(())
                })
            })
            .collect();
        hs.into_iter().try_for_each(|h| h.join().expect("bench thread"))
    })?;
    let lease_seconds = t.elapsed().as_secs_f64();
    let n = a.n as i32;
    let leased = client
        .query_one(
            "SELECT count(*) FROM queens_block WHERE n = $1 AND lease IS NOT NULL",
            &[&n],
        )?
        .get::<_, i64>(0) as u64;
    anyhow::ensure!(
        leased == subproblems.div_ceil(pg::BLOCK as u64),
        "{leased} blocks leased, not all"
    );
    // Those leases are abandoned: let them lapse so the results phase can take them again.
    client.execute(
        "UPDATE queens_block SET lease_until = now() - interval '1 second' WHERE n = $1",
        &[&n],
    )?;
    // Results: each host leases, solves everything it got, commits every `batch` results.
    let t = Instant::now();
    let (results, commits) = std::thread::scope(|s| {
        let hs: Vec<_> = (0..a.hosts)
            .map(|h| {
                let target = &target;
                s.spawn(move || -> anyhow::Result<(u64, u64)> {
                    let (mut st, _) = PgStore::open(target, size, lease)?;
                    let solver = st.solver_id(&format!("bench {h}"))?;
                    let (mut results, mut commits) = (0, 0);
                    loop {
                        let got = st.claim(a.batch, Stamp::now())?;
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
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("bench thread"))
            .try_fold((0, 0), |(r, c), x| x.map(|(r2, c2)| (r + r2, c + c2)))
    })?;
    let result_seconds = t.elapsed().as_secs_f64();
    let bytes_solved = pg::disk_bytes(&mut client, &target)?.saturating_sub(before);
    // The rows themselves, without the old versions that wait for vacuum.
    let bytes_live = client
        .query_one(
            "SELECT sum(pg_column_size(b.*))::bigint FROM queens_block b WHERE n = $1",
            &[&n],
        )?
        .get::<_, i64>(0) as u64;
    // Every entry solved exactly once, by the campaign's own totals.
    let (st, _) = PgStore::open(&target, size, lease)?;
    let s = st.summary();
    drop(st);
    pg::drop_campaign(&mut client, &target, size)?;
    anyhow::ensure!(
        s.complete() && results == subproblems,
        "the scratch campaign ended with {} of {} solved after {results} results",
        s.solved.subproblems(),
        s.subproblems
    );
    let per_million = |b: u64| b as f64 * 1e6 / subproblems as f64;
    let f = Figures {
        n: a.n,
        subproblems,
        blocks: subproblems.div_ceil(pg::BLOCK as u64),
        hosts: a.hosts,
        batch: a.batch,
        create_seconds,
        leases: leased,
        leases_per_second: leased as f64 / lease_seconds,
        results_per_second: results as f64 / result_seconds,
        commits_per_second: commits as f64 / result_seconds,
        bytes_fresh,
        bytes_solved,
        bytes_live,
        bytes_per_million_fresh: per_million(bytes_fresh),
        bytes_per_million_solved: per_million(bytes_solved),
        bytes_per_million_live: per_million(bytes_live),
    };
    if a.json {
        println!("{}", serde_json::to_string(&f)?);
        return Ok(());
    }
    println!(
        "{}: N = {}, {} subproblems in {} blocks, {} hosts",
        target.shown,
        a.n,
        grouped(subproblems as u128),
        f.blocks,
        a.hosts
    );
    println!("  created in {:.1} s", create_seconds);
    println!(
        "  leases:  {:.0} blocks/s ({} leased in {:.2} s)",
        f.leases_per_second, leased, lease_seconds
    );
    println!(
        "  results: {:.0}/s in {:.0} commits/s of up to {} (a Q(27) campaign makes tens per second)",
        f.results_per_second, f.commits_per_second, a.batch
    );
    println!(
        "  per million subproblems: {:.1} MB on disk fresh; solved {:.1} MB of rows, {:.1} MB on disk \
         with the old row versions vacuum has not yet reclaimed (a campaign file: 16.0 MB, 24.0 with cycles)",
        f.bytes_per_million_fresh / 1e6,
        f.bytes_per_million_live / 1e6,
        f.bytes_per_million_solved / 1e6
    );
    Ok(())
}
