//! `queens db`: look into a campaign file (ours or a Queens@TUD database).

use super::{board, classes_json, grouped, pool};
use queens_core::{completions, Symmetry};
use queens_host::plot::{self, Binner};
use queens_host::store::file::{Access, FileStore};
use queens_host::store::history::Event;
use queens_host::store::{pg, pg_conn, Store};
use rayon::prelude::*;
use serde::Serialize;
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Solved and pending subproblems, per class, the running total and the throughput of
    /// each session.
    Stats(StatsArgs),
    /// Recompute a sample of solved entries in software and report every disagreement.
    Verify(VerifyArgs),
    /// Draw solutions (and cycles, where known) per subproblem in canonical order as SVG.
    Plot(PlotArgs),
    /// Copy a campaign file into a PostgreSQL database, where several hosts can share it.
    Import(super::transfer::ImportArgs),
    /// Copy a campaign from a PostgreSQL database into a file.
    Export(super::transfer::ExportArgs),
    /// Measure a PostgreSQL server as a shared store: leases and results per second, and
    /// size on disk, on a scratch campaign deleted afterwards.
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
        Command::Import(a) => super::transfer::import(a),
        Command::Export(a) => super::transfer::export(a),
        Command::Bench(a) => super::pg_bench::bench(a),
    }
}

fn open(file: &std::path::Path) -> anyhow::Result<FileStore> {
    Ok(FileStore::open(file, None, Access::Read)?)
}

/// A campaign to read entries from, wherever it is kept.
enum Campaign {
    File(Box<FileStore>),
    Shared(Box<pg::Reader>, String),
}

impl Campaign {
    fn open(campaign: &str, n: Option<u32>) -> anyhow::Result<Self> {
        if !pg_conn::is_url(campaign) {
            return Ok(Campaign::File(Box::new(open(std::path::Path::new(campaign))?)));
        }
        let target = pg_conn::Target::parse(campaign)?;
        let mut client = pg::connect(&target)?;
        let n = super::transfer::which(&mut client, &target, n)?;
        Ok(Campaign::Shared(
            Box::new(pg::Reader::open(client, &target, board(n)?)?),
            target.shown,
        ))
    }

    fn name(&self) -> String {
        match self {
            Campaign::File(f) => f.path().display().to_string(),
            Campaign::Shared(_, shown) => shown.clone(),
        }
    }

    fn summary(&self) -> queens_host::store::Summary {
        match self {
            Campaign::File(f) => f.summary(),
            Campaign::Shared(r, _) => r.summary(),
        }
    }

    fn n(&self) -> u32 {
        match self {
            Campaign::File(f) => f.size().n(),
            Campaign::Shared(r, _) => r.size().n(),
        }
    }

    fn entry(&mut self, i: u64) -> anyhow::Result<queens_core::Entry> {
        Ok(match self {
            Campaign::File(f) => f.entry(i)?,
            Campaign::Shared(r, _) => r.entry(i)?,
        })
    }

    fn cycles(&mut self, i: u64) -> anyhow::Result<Option<u64>> {
        Ok(match self {
            Campaign::File(f) => f.cycles(i),
            Campaign::Shared(r, _) => r.cycles(i)?,
        })
    }

    fn has_cycles(&self) -> bool {
        match self {
            Campaign::File(f) => f.has_cycles(),
            Campaign::Shared(r, _) => r.has_cycles(),
        }
    }

    fn solvers(&self) -> std::collections::HashMap<u16, String> {
        match self {
            Campaign::File(f) => f.solvers().into_iter().collect(),
            Campaign::Shared(r, _) => r.solvers().iter().cloned().collect(),
        }
    }
}

#[derive(Serialize)]
struct Session {
    /// The host process, for a shared campaign.
    #[serde(skip_serializing_if = "Option::is_none")]
    host: Option<String>,
    start: f64,
    seconds: f64,
    solved: u64,
    per_second: f64,
    links: Vec<String>,
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
    /// Live leases of a shared campaign, per host process.
    leases: Vec<pg::Lease>,
    /// Results of two hosts that differ, recorded by a shared campaign.
    disputes: Vec<pg::Dispute>,
}

/// What `stats` shows of a campaign, wherever it is kept.
struct View {
    name: String,
    n: u32,
    summary: queens_host::store::Summary,
    sessions: Vec<Session>,
    solvers: Vec<(u16, String)>,
    leases: Vec<pg::Lease>,
    disputes: Vec<pg::Dispute>,
}

fn view(a: &StatsArgs) -> anyhow::Result<View> {
    if !pg_conn::is_url(&a.campaign) {
        let file = PathBuf::from(&a.campaign);
        let store = open(&file)?;
        let solvers = store.solvers();
        return Ok(View {
            name: file.display().to_string(),
            n: store.size().n(),
            summary: store.summary(),
            sessions: sessions(&store.history()?),
            solvers,
            leases: Vec::new(),
            disputes: Vec::new(),
        });
    }
    let target = pg_conn::Target::parse(&a.campaign)?;
    let mut client = pg::connect(&target)?;
    let n = super::transfer::which(&mut client, &target, a.n)?;
    let st = pg::status(&mut client, &target, board(n)?)?;
    let mut all = Vec::new();
    for h in &st.histories {
        all.extend(sessions(&h.events).into_iter().map(|mut s| {
            s.host = Some(h.host.clone());
            s
        }));
    }
    all.sort_by(|x, y| x.start.total_cmp(&y.start));
    Ok(View {
        name: target.shown.clone(),
        n,
        summary: st.summary,
        sessions: all,
        solvers: st.solvers,
        leases: st.leases,
        disputes: st.disputes,
    })
}

/// Sessions from the history: when each began, how long it ran and what it solved (a
/// session's first progress sample, written as it starts, is its base).
fn sessions(events: &[Event]) -> Vec<Session> {
    let mut out: Vec<Session> = Vec::new();
    let mut base = None;
    for e in events {
        match e {
            Event::Session { t, links, .. } => {
                out.push(Session {
                    host: None,
                    start: *t,
                    seconds: 0.0,
                    solved: 0,
                    per_second: 0.0,
                    links: links.clone(),
                });
                base = None;
            }
            Event::Progress { t, solved } => {
                if let Some(s) = out.last_mut() {
                    let b = *base.get_or_insert(*solved);
                    s.seconds = t - s.start;
                    s.solved = solved.saturating_sub(b);
                    s.per_second = if s.seconds > 0.0 {
                        s.solved as f64 / s.seconds
                    } else {
                        0.0
                    };
                }
            }
            _ => {}
        }
    }
    out
}

fn stats(a: StatsArgs) -> anyhow::Result<()> {
    let v = view(&a)?;
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
            leases: v.leases,
            disputes: v.disputes,
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
    if s.complete() {
        println!("Q({}) = {}", v.n, grouped(s.solved.total()));
    } else {
        println!("running total {}", grouped(s.solved.total()));
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
    for d in &v.disputes {
        println!(
            "DISPUTE entry {}: kept {} (solver {}), {} returned {} (solver {})",
            d.entry, d.kept, d.kept_solver, d.host, d.other, d.other_solver
        );
    }
    Ok(())
}

#[derive(Serialize)]
struct Disagreement {
    index: u64,
    preplacement: String,
    stored: u64,
    software: u64,
    solver: u16,
}

#[derive(Serialize)]
struct VerifyJson<'a> {
    n: u32,
    checked: u64,
    solved: u64,
    disagreements: &'a [Disagreement],
}

fn verify(a: VerifyArgs) -> anyhow::Result<()> {
    let mut store = Campaign::open(&a.campaign, a.n)?;
    let s = store.summary();
    let solved = s.solved.subproblems();
    anyhow::ensure!(a.sample > 0, "--sample must be at least 1");
    let len = s.subproblems;
    // All solved entries when the sample covers them, else random solved ones.
    let mut picks: Vec<u64> = Vec::new();
    if solved <= a.sample {
        for i in 0..len {
            if store.entry(i)?.solution.is_some() {
                picks.push(i);
            }
        }
    } else {
        let mut rng = fastrand::Rng::with_seed(a.seed);
        let mut seen = std::collections::HashSet::new();
        while (picks.len() as u64) < a.sample {
            let i = rng.u64(..len);
            if seen.insert(i) && store.entry(i)?.solution.is_some() {
                picks.push(i);
            }
        }
    }
    // In index order: a shared campaign is read a block at a time.
    picks.sort_unstable();
    let entries: Vec<_> = picks
        .iter()
        .map(|&i| store.entry(i).map(|e| (i, e)))
        .collect::<Result<_, _>>()?;
    let disagreements: Vec<Disagreement> = pool(a.threads)?.install(|| {
        entries
            .par_iter()
            .filter_map(|(i, e)| {
                let sol = e.solution.expect("picked solved entries");
                let stored = sol.true_count().unwrap_or(sol.count);
                let software = completions(&e.pre);
                (software != stored).then(|| Disagreement {
                    index: *i,
                    preplacement: e.pre.to_string(),
                    stored,
                    software,
                    solver: sol.solver,
                })
            })
            .collect()
    });
    let checked = entries.len() as u64;
    if a.json {
        println!(
            "{}",
            serde_json::to_string(&VerifyJson {
                n: store.n(),
                checked,
                solved,
                disagreements: &disagreements,
            })?
        );
    } else {
        println!(
            "{}: recomputed {} of {} solved entries in software",
            store.name(),
            grouped(checked as u128),
            grouped(solved as u128)
        );
        let names = store.solvers();
        for d in &disagreements {
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
    if !pg_conn::is_url(&a.campaign) {
        let c = std::path::Path::new(&a.campaign);
        for f in [
            c.to_path_buf(),
            queens_host::store::history::path_of(c),
            queens_host::store::file::cycles_path(c),
        ] {
            anyhow::ensure!(
                !super::same_file(&f, &a.out),
                "--out {}: that is {}, of the campaign being drawn; choose another name",
                a.out.display(),
                f.display()
            );
        }
    }
    let mut store = Campaign::open(&a.campaign, a.n)?;
    let len = store.summary().subproblems;
    let mut sol = Binner::new(len, a.columns);
    let mut cyc = Binner::new(len, a.columns);
    for i in 0..len {
        let e = store.entry(i)?;
        if let Some(s) = e.solution {
            sol.add(i, s.true_count().unwrap_or(s.count));
        }
        if let Some(c) = store.cycles(i)? {
            cyc.add(i, c);
        }
    }
    let mut panels = vec![sol.into_panel("solutions")];
    if store.has_cycles() {
        panels.push(cyc.into_panel("cycles"));
    }
    let n = store.n();
    let doc = plot::render(&format!("Campaign of N = {n}: {}", store.name()), len, &panels);
    super::write_output("--out", &a.out, doc.to_string().as_bytes())?;
    println!("wrote {}", a.out.display());
    Ok(())
}
