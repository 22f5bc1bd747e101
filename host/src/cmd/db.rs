//! `queens db`: look into a campaign file (ours or a Queens@TUD database).

mod init;

use super::{classes_json, grouped, pool};
use queens_core::Symmetry;
use queens_host::plot;
use queens_host::store::campaign::{self, Campaign};
use queens_host::store::pg;
use queens_host::store::stats::{Session, Stats};
use queens_host::store::verify;
use serde::Serialize;
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
  queens db bench postgres://queens@db.lab/scratch --hosts 4 --batch 1000")]
    Bench(super::pg_bench::BenchArgs),
}

#[derive(clap::Args)]
pub struct StatsArgs {
    /// A campaign file, or a shared campaign's database (postgres://…).
    campaign: String,
    /// Which campaign of the database, when it holds several.
    #[arg(long, value_parser = super::parse_n)]
    n: Option<u32>,
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// A campaign file, or a shared campaign's database (postgres://…).
    campaign: String,
    /// Which campaign of the database, when it holds several.
    #[arg(long, value_parser = super::parse_n)]
    n: Option<u32>,
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
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct PlotArgs {
    /// A campaign file, or a shared campaign's database (postgres://…).
    campaign: String,
    /// Which campaign of the database, when it holds several.
    #[arg(long, value_parser = super::parse_n)]
    n: Option<u32>,
    #[arg(long, value_name = "FILE.svg")]
    out: PathBuf,
    /// Columns the subproblems are binned into, 1..=10000.
    #[arg(long, default_value_t = 1000,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=10_000))]
    columns: usize,
}

pub fn run(c: Command) -> anyhow::Result<()> {
    match c {
        Command::Stats(a) => stats(a),
        Command::Verify(a) => verify(a),
        Command::Plot(a) => plot_cmd(a),
        Command::Init(a) => init::init(a),
        Command::Import(a) => super::transfer::import(a),
        Command::Export(a) => super::transfer::export(a),
        Command::Bench(a) => super::pg_bench::bench(a),
    }
}

#[derive(Serialize)]
struct StatsJson {
    n: u32,
    subproblems: u64,
    solved: u64,
    pending: u64,
    complete: bool,
    total: u128,
    classes: std::collections::BTreeMap<&'static str, super::ClassJson>,
    solved_per_class: std::collections::BTreeMap<&'static str, u64>,
    sessions: Vec<Session>,
    leases: Vec<pg::Lease>,
    disputes: Vec<pg::Dispute>,
    hosts: Vec<pg::HostStanding>,
    cross_checked: CrossJson,
}

/// How much of a shared campaign's total another host recomputed.
#[derive(Serialize)]
struct CrossJson {
    /// Counts confirmed by a host of another role.
    agreed: u64,
    /// Counts chosen for a recomputation that has not come yet.
    pending: u64,
    /// Three hosts, three counts.
    unsettled: u64,
    /// Roles quarantined, outvoted by two others.
    quarantined: Vec<String>,
}

fn cross(hosts: &[pg::HostStanding]) -> CrossJson {
    CrossJson {
        agreed: hosts.iter().map(|h| h.checks_agreed).sum(),
        pending: hosts.iter().map(|h| h.checks_pending).sum(),
        unsettled: hosts.iter().map(|h| h.checks_unsettled).sum(),
        quarantined: hosts
            .iter()
            .filter(|h| h.quarantined.is_some())
            .map(|h| h.role.clone())
            .collect(),
    }
}

fn stats(a: StatsArgs) -> anyhow::Result<()> {
    let v = Stats::read(&a.campaign, a.n)?;
    let s = v.summary;
    if a.json {
        let j = StatsJson {
            n: v.n,
            subproblems: s.subproblems,
            solved: s.solved.subproblems(),
            pending: s.pending(),
            complete: s.complete(),
            total: s.solved.total(),
            classes: classes_json(s.census, Some(s.solved.solutions)),
            solved_per_class: Symmetry::ALL
                .iter()
                .map(|c| (c.name(), s.solved.preplacements[c.slot()]))
                .collect(),
            sessions: v.sessions,
            cross_checked: cross(&v.hosts),
            leases: v.leases,
            disputes: v.disputes,
            hosts: v.hosts,
        };
        println!("{}", serde_json::to_string(&j)?);
        return Ok(());
    }
    println!(
        "{}: campaign of N = {}, {} subproblems",
        v.name,
        v.n,
        grouped(s.subproblems as u128)
    );
    println!(
        "solved {} ({:.2}%), pending {}",
        grouped(s.solved.subproblems() as u128),
        100.0 * s.solved.subproblems() as f64 / s.subproblems as f64,
        grouped(s.pending() as u128)
    );
    let x = cross(&v.hosts);
    if s.complete() && x.pending == 0 {
        println!("Q({}) = {}", v.n, grouped(s.solved.total()));
    } else if s.complete() {
        println!(
            "Q({}) = {} once {} counts chosen for another host's recomputation are confirmed",
            v.n,
            grouped(s.solved.total()),
            grouped(x.pending as u128)
        );
    } else {
        println!("running total {}", grouped(s.solved.total()));
    }
    if !v.hosts.is_empty() {
        println!(
            "cross-checked: {} of {} solved counts recomputed and confirmed by a host of another role ({:.2}%), {} waiting, {} unsettled",
            grouped(x.agreed as u128),
            grouped(s.solved.subproblems() as u128),
            100.0 * x.agreed as f64 / s.solved.subproblems().max(1) as f64,
            grouped(x.pending as u128),
            x.unsettled
        );
    }
    for c in Symmetry::ALL {
        let i = c.slot();
        println!(
            "{:<8} weight {}  {:>15} of {:>15} solved, {:>20} solutions",
            c.name(),
            c.weight(),
            grouped(s.solved.preplacements[i] as u128),
            grouped(s.census[i] as u128),
            grouped(s.solved.solutions[i] as u128)
        );
    }
    for (k, x) in v.sessions.iter().enumerate() {
        println!(
            "session {}: {} solved in {:.1} s ({:.0}/s) on {}{}",
            k + 1,
            grouped(x.solved as u128),
            x.seconds,
            x.per_second,
            x.links.join(", "),
            x.host.as_ref().map_or(String::new(), |h| format!(" ({h})"))
        );
    }
    for (id, link) in &v.solvers {
        println!("solver {id:>4}: {link}");
    }
    for l in &v.leases {
        println!(
            "lease: {} holds {} block(s), renewal due within {:.0} s",
            l.holder, l.blocks, l.expires_in
        );
    }
    for h in &v.hosts {
        println!(
            "host {}: gave {}, of them {} confirmed by another host, {} waiting, {} unsettled; confirmed {} of others'{}",
            h.role,
            grouped(h.given as u128),
            grouped(h.checks_agreed as u128),
            grouped(h.checks_pending as u128),
            h.checks_unsettled,
            grouped(h.confirmed_others as u128),
            match &h.quarantined {
                Some(why) => format!("; QUARANTINED, every count it gave withdrawn: {why}"),
                None => String::new(),
            }
        );
    }
    for d in &v.disputes {
        println!(
            "DISPUTE entry {}: kept {} (solver {}), {} returned {} (solver {})",
            d.entry, d.kept, d.kept_solver, d.host, d.other, d.other_solver
        );
    }
    Ok(())
}

fn verify(a: VerifyArgs) -> anyhow::Result<()> {
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
            grouped(checked as u128),
            grouped(solved as u128)
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
    for f in campaign::files(&a.campaign) {
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
    let n = store.size().n();
    let doc = plot::render(&format!("Campaign of N = {n}: {}", store.name()), len, &panels);
    super::write_output("--out", &a.out, doc.to_string().as_bytes())?;
    println!("wrote {}", a.out.display());
    Ok(())
}
