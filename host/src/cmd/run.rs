//! `queens run N`: the main job. Feeds the subproblems of a campaign to the boards on the
//! given links (a simulated board when none is given), validates and records every result,
//! and prints Q(N) once all are solved. Run it again on the same campaign to resume.

use super::{board, grouped};
use anyhow::Context;
use queens_host::dispatch::Timeouts;
use queens_host::link::{LinkSpec, SimSettings};
use queens_host::run::{run, RunConfig, RunReport};
use queens_host::store::file::{Access, FileStore};
use queens_host::store::Store;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

#[derive(clap::Args)]
pub struct Args {
    /// Board size, 6..=32.
    n: u32,
    /// A board: serial:/dev/ttyUSB0[@115200], pcie:/dev/xdma0, tcp:HOST:PORT or sim[:UNITS].
    /// Repeat for several boards at once. Default: one simulated board in this process.
    #[arg(long = "link", value_name = "LINK")]
    links: Vec<LinkSpec>,
    /// The campaign file (created when missing, resumed when present).
    /// Default: q<N>.campaign in the current directory.
    #[arg(long, value_name = "FILE")]
    campaign: Option<PathBuf>,
    /// Solver units per board, for links that do not say (sim:K does).
    #[arg(long, default_value_t = 360)]
    solvers: usize,
    /// Subproblems each board holds beyond its units (the core's word queue is 16).
    #[arg(long, default_value_t = 16)]
    margin: usize,
    /// Seconds to wait for a result before sending its subproblem again. Default: 10 s until
    /// a board has answered, then 8 times its longest recent answer time (at least 50 ms),
    /// doubling for each further attempt.
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<f64>,
    /// The simulated board of `sim` links: answer when hardware at this clock would (default:
    /// as fast as the model runs).
    #[arg(long, value_parser = super::sim::parse_hz)]
    sim_clock: Option<f64>,
    /// Faults of the simulated board: corrupt=P,drop=P,dup=P,reset=SECONDS.
    #[arg(long, default_value = "")]
    sim_faults: queens_sim::board::Faults,
    /// Print the final report as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run_cmd(a: Args) -> anyhow::Result<()> {
    let size = board(a.n)?;
    let path = a
        .campaign
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("q{}.campaign", a.n)));
    if !path.exists() {
        let entries = FileStore::create(&path, size, false, &AtomicU64::new(0))?;
        if !a.json {
            eprintln!("new campaign {}: {} subproblems", path.display(), grouped(entries as u128));
        }
    }
    let store = FileStore::open(&path, Some(size), Access::Write)?;
    let s = store.summary();
    if !a.json && s.solved.subproblems() > 0 {
        eprintln!(
            "resuming {}: {} of {} subproblems solved",
            path.display(),
            grouped(s.solved.subproblems() as u128),
            grouped(s.subproblems as u128)
        );
    }
    let timeouts = match a.timeout {
        Some(t) if t > 0.0 && t.is_finite() => Timeouts {
            first: Duration::from_secs_f64(t),
            fixed: true,
            ..Timeouts::default()
        },
        Some(t) => anyhow::bail!("--timeout {t}: expected a positive number of seconds"),
        None => Timeouts::default(),
    };
    let links = if a.links.is_empty() {
        vec![LinkSpec::Sim { units: None }]
    } else {
        a.links
    };
    let cfg = RunConfig {
        links,
        units: a.solvers,
        margin: a.margin,
        timeouts,
        sim: SimSettings {
            size,
            units: a.solvers,
            with_cycles: true,
            clock_hz: a.sim_clock,
            faults: a.sim_faults,
            seed: fastrand::u64(..),
        },
        sync_every: Duration::from_secs(1),
        progress: !a.json,
    };
    let report = run(store, &cfg).with_context(|| format!("running campaign {}", path.display()))?;
    if a.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print(&report);
    }
    Ok(())
}

fn print(r: &RunReport) {
    if r.complete {
        println!("Q({}) = {}", r.n, grouped(r.total));
    } else {
        println!(
            "running total for N = {}: {} ({} of {} subproblems solved)",
            r.n,
            grouped(r.total),
            grouped((r.solved_before + r.counters.solved) as u128),
            grouped(r.subproblems as u128)
        );
    }
    let c = &r.counters;
    println!(
        "{} subproblems solved in this run in {:.2} s; {} sent again, {} frames rejected, {} duplicates, {} conflicts, {} unknown results",
        grouped(c.solved as u128),
        r.seconds,
        c.reissued,
        c.rejected_frames,
        c.duplicates,
        c.conflicts,
        c.unknown
    );
    for l in &r.links {
        println!(
            "  {:<28} solver {:>4}: {} solved, {} sent again, {} rejected",
            l.link,
            l.solver,
            grouped(l.counters.solved as u128),
            l.counters.reissued,
            l.counters.rejected_frames
        );
    }
}
