//! `queens db`: look into a campaign file (ours or a Queens@TUD database).

mod init;
mod stats;

pub use stats::StatsArgs;

use super::{pool, thousands};
use queens_core::BoardSize;
use queens_host::plot;
use queens_host::store::campaign::Campaign;
use queens_host::store::{verify, Location};
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Solved and pending subproblems, per class, the running total and the throughput of
    /// each session.
    #[command(after_help = "Examples:
  queens db stats q17.campaign
  queens db stats postgres://queens@db.lab/q27 --json")]
    Stats(StatsArgs),
    /// Recompute a sample of solved entries in software and report every disagreement.
    #[command(after_help = "Examples:
  queens db verify q17.campaign --sample 5000
  queens db verify postgres://queens@db.lab/q27 --host lab_host2")]
    Verify(VerifyArgs),
    /// Draw solutions (and cycles, where known) per subproblem in canonical order as SVG.
    #[command(after_help = "Examples:
  queens db plot q17.campaign --out q17.svg")]
    Plot(PlotArgs),
    /// Set up a PostgreSQL database for shared campaigns (or upgrade an older version's):
    /// tables owned by an owner role, and a host role that may only do a host's work.
    Init(init::InitArgs),
    /// Copy a campaign file into a PostgreSQL database, where several hosts can share it.
    #[command(after_help = "Examples:
  queens db import q17.campaign postgres://queens@db.lab/q17")]
    Import(super::transfer::ImportArgs),
    /// Copy a campaign from a PostgreSQL database into a file.
    #[command(after_help = "Examples:
  queens db export postgres://queens@db.lab/q17 q17.campaign")]
    Export(super::transfer::ExportArgs),
    /// Measure a PostgreSQL server as a shared store: leases and results per second, and
    /// size on disk, on a scratch campaign deleted afterwards.
    #[command(after_help = "Examples:
  queens db bench postgres://queens@db.lab/scratch --hosts 4 --batch 1000
  queens db bench postgres://queens@db.lab/scratch --n 27 --blocks 2000")]
    Bench(super::pg_bench::BenchArgs),
    /// Write a record of the campaign that outsiders can check: per block of entries, its
    /// range, solved entries, the sum of their weighted counts and a SHA-256 of their
    /// results (docs/spec/record.md).
    #[command(after_help = "Examples:
  queens db record q17.campaign --out q17.record
  queens db record postgres://queens@db.lab/q27 --out q27.record --block 65536")]
    Record(super::record::RecordArgs),
    /// Check a campaign record: a sample of its blocks recounted in software, or every block
    /// against another campaign; each block that differs is named with its entries.
    #[command(after_help = "Examples:
  queens db check-record q17.record --sample 100
  queens db check-record q17.record --against postgres://queens@db.lab/q17")]
    CheckRecord(super::record::CheckArgs),
}

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// A campaign file, or a shared campaign's database (postgres://…).
    campaign: Location,
    /// Which campaign of the database, when it holds several.
    #[arg(long)]
    n: Option<BoardSize>,
    /// Solved entries to recompute, drawn at random (all when fewer are solved).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    sample: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Recompute every count that host role ROLE gave in a shared campaign (all of them,
    /// instead of a sample).
    #[arg(long, value_name = "ROLE", conflicts_with = "sample")]
    host: Option<String>,
    #[arg(long, value_parser = super::parse_threads)]
    threads: Option<usize>,
    /// Check every entry of a campaign file instead: its place in the canonical order, its
    /// digits, solver and stamp, on all threads; the sums against its summary's.
    #[arg(long, conflicts_with_all = ["sample", "host"])]
    entries: bool,
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct PlotArgs {
    /// A campaign file, or a shared campaign's database (postgres://…).
    campaign: Location,
    /// Which campaign of the database, when it holds several.
    #[arg(long)]
    n: Option<BoardSize>,
    #[arg(long, value_name = "FILE.svg")]
    out: PathBuf,
    /// Columns the subproblems are binned into, 1..=10000.
    #[arg(long, default_value_t = 1000,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=10_000))]
    columns: usize,
}

pub fn run(c: Command) -> anyhow::Result<()> {
    match c {
        Command::Stats(a) => stats::stats(a),
        Command::Verify(a) => verify(a),
        Command::Plot(a) => plot_cmd(a),
        Command::Init(a) => init::init(a),
        Command::Import(a) => super::transfer::import(a),
        Command::Export(a) => super::transfer::export(a),
        Command::Bench(a) => super::pg_bench::bench(a),
        Command::Record(a) => super::record::record(a),
        Command::CheckRecord(a) => super::record::check(a),
    }
}

fn verify(a: VerifyArgs) -> anyhow::Result<()> {
    if a.entries {
        return verify_entries(&a);
    }
    let mut store = Campaign::open(&a.campaign, a.n)?;
    anyhow::ensure!(a.sample > 0, "--sample must be at least 1");
    let v = match &a.host {
        Some(role) => {
            let ids = store.solvers_of(role)?;
            anyhow::ensure!(
                !ids.is_empty(),
                "--host {role}: no solver of that role in {} (roles are those of a shared campaign; see `queens db stats`)",
                store.name()
            );
            pool(a.threads)?.install(|| verify::verify_solvers(&mut store, &ids))?
        }
        None => pool(a.threads)?.install(|| verify::verify(&mut store, a.sample, a.seed))?,
    };
    let (checked, solved, disagreements) = (v.checked, v.solved, &v.disagreements);
    if a.json {
        println!("{}", serde_json::to_string(&v)?);
    } else {
        println!(
            "{}: recomputed {} of {} solved entries in software",
            store.name(),
            thousands(checked as u128),
            thousands(solved as u128)
        );
        let names = store.solvers();
        for d in disagreements {
            println!(
                "entry {} ({}): stored {} by solver {} ({}), software {}",
                d.index,
                d.preplacement,
                d.stored,
                d.solver,
                names.get(&d.solver).map_or("unknown link", |s| s.as_str()),
                d.software
            );
        }
    }
    anyhow::ensure!(
        disagreements.is_empty(),
        "{} of {} recomputed entries disagree with the software count",
        disagreements.len(),
        checked
    );
    if !a.json {
        println!("all agree");
    }
    Ok(())
}

fn plot_cmd(a: PlotArgs) -> anyhow::Result<()> {
    // The picture never replaces the campaign it draws, nor the files beside it (any other
    // campaign is refused when it is written).
    for f in a.campaign.files() {
        anyhow::ensure!(
            !super::same_file(&f, &a.out),
            "--out {}: that is {}, of the campaign being drawn; choose another name",
            a.out.display(),
            f.display()
        );
    }
    let mut store = Campaign::open(&a.campaign, a.n)?;
    let len = store.summary().subproblems;
    let panels = store.panels(a.columns)?;
    let size = store.size();
    let doc = plot::render(&format!("Campaign of N = {size}: {}", store.name()), len, &panels);
    super::write_output("--out", &a.out, doc.to_string().as_bytes())?;
    println!("wrote {}", a.out.display());
    Ok(())
}

/// `db verify --entries`: every entry of a campaign file checked, the sums against the
/// summary's.
fn verify_entries(a: &VerifyArgs) -> anyhow::Result<()> {
    use queens_host::store::file::{Access, FileStore, Watch};
    use queens_host::store::Store;
    let Location::File(path) = &a.campaign else {
        anyhow::bail!("--entries checks a campaign file; a shared campaign's database checks its own blocks");
    };
    let watch = Watch::default();
    let pool = pool(a.threads)?;
    let store = crate::progress::watched(&watch, || {
        FileStore::open_watched(path, None, Access::Read, &watch)
    })?;
    let start = std::time::Instant::now();
    let all = crate::progress::watched(&watch, || pool.install(|| store.recount(&watch)))?;
    let secs = start.elapsed().as_secs_f64();
    let kept = store.summary();
    let same = kept.solved == all.solved;
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "n": store.size().n(),
                "entries": all.subproblems,
                "solved": all.solved.subproblems(),
                "total": all.solved.total().to_string(),
                "seconds": secs,
                "summary_agrees": same,
            })
        );
    } else {
        println!(
            "{}: every one of {} entries checked in {:.1} s ({:.0} MB/s): {} solved, total {}",
            path.display(),
            thousands(all.subproblems as u128),
            secs,
            all.subproblems as f64 * 16.0 / secs / 1e6,
            thousands(all.solved.subproblems() as u128),
            thousands(all.solved.total())
        );
    }
    anyhow::ensure!(
        same,
        "{}: its summary says {} solved, total {}, but the entries hold {} solved, total {}; the next run makes the summary anew",
        path.display(),
        thousands(kept.solved.subproblems() as u128),
        thousands(kept.solved.total()),
        thousands(all.solved.subproblems() as u128),
        thousands(all.solved.total())
    );
    Ok(())
}
