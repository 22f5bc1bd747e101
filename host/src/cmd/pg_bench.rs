//! `queens db bench URL`: what a PostgreSQL server sustains as a shared campaign store (see
//! `store::pg::bench`).

use super::thousands;
use queens_core::BoardSize;
use queens_host::store::pg::bench::{self, Setup};
use queens_host::store::pg_conn::Target;

#[derive(clap::Args)]
pub struct BenchArgs {
    /// postgres://[user@]host[:port]/database (password from PGPASSWORD or ~/.pgpass).
    url: Target,
    /// Board size of the scratch campaign; refused when the database has a campaign of it.
    #[arg(long, default_value = "16")]
    n: BoardSize,
    /// Hosts committing at once, each with its own connection.
    #[arg(long, default_value_t = 4,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=64))]
    hosts: usize,
    /// Results each host commits per transaction (a real host commits once a second).
    #[arg(long, default_value_t = 1000,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    batch: usize,
    /// Lease at most this many blocks, and commit at most this many blocks' worth of
    /// results (default: the whole campaign; at N = 27 that is hours).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    blocks: Option<u64>,
    #[arg(long)]
    json: bool,
}

pub fn bench(a: BenchArgs) -> anyhow::Result<()> {
    let size = a.n;
    anyhow::ensure!(
        a.hosts > 0 && a.batch > 0,
        "--hosts and --batch must be at least 1"
    );
    let target = a.url;
    let f = bench::bench(
        &target,
        Setup {
            size,
            hosts: a.hosts,
            batch: a.batch,
            blocks: a.blocks,
        },
    )?;
    if a.json {
        println!("{}", serde_json::to_string(&f)?);
        return Ok(());
    }
    println!(
        "{}: N = {}, {} subproblems in {} blocks, {} hosts",
        target.shown,
        a.n,
        thousands(f.subproblems as u128),
        f.blocks,
        a.hosts
    );
    println!("  created in {:.1} s", f.create_seconds);
    println!(
        "  leases:  {:.0} blocks/s ({} leased in {:.2} s)",
        f.leases_per_second, f.leases, f.lease_seconds
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
