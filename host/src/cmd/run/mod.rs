//! `queens run N`: the main job. Feeds the subproblems of a campaign to the boards on the
//! given links (a simulated board when none is given), validates and records every result,
//! and prints Q(N) once all are solved. Run it again on the same campaign to resume.

mod report;
mod settings;

use super::metrics::Exposed;
use super::{cross, thousands};
use crate::progress::watched;
use anyhow::Context;
use queens_core::BoardSize;
use queens_host::link::LinkSpec;
use queens_host::run::run;
use queens_host::store::file::{Access, FileStore, Watch};
use queens_host::store::pg::PgStore;
use queens_host::store::pg_conn::Target;
use queens_host::store::{Location, Store, StoreError, Summary};
use settings::{config, shown, stop_flag};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// Board size, 6..=32.
    n: BoardSize,
    /// A board: serial:/dev/ttyUSB0[@115200], pcie:/dev/xdma0, tcp:HOST:PORT or sim[:UNITS].
    /// Repeat for several boards at once. Default: one simulated board in this process.
    #[arg(long = "link", value_name = "LINK")]
    links: Vec<LinkSpec>,
    /// The campaign (created when missing, resumed when present): a file, or a PostgreSQL
    /// database shared by several hosts, postgres://[user@]host[:port]/database (the
    /// password from PGPASSWORD or ~/.pgpass, other settings from the PG* variables).
    /// Default: q<N>.campaign in the current directory.
    #[arg(long, value_name = "FILE|URL")]
    campaign: Option<Location>,
    /// Seconds a lease on a block of a PostgreSQL campaign lasts without renewal (the host
    /// renews every second); work of a host that stops returns to the others after this.
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0, value_parser = super::parse_lease)]
    lease: f64,
    /// Solver units per board, 1..=4096, for links that do not say (sim:K does).
    #[arg(long, default_value_t = 360, value_parser = super::units())]
    solvers: usize,
    /// Subproblems each board holds beyond its units (the core's word queue is 16), 0..=4096.
    #[arg(long, default_value_t = queens_hdl::front::WORD_QUEUE,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(0..=4096))]
    margin: usize,
    /// Seconds to wait for a result before sending its subproblem again. Default: 10 s until
    /// a board has answered, then 8 times its longest recent answer time (at least 50 ms),
    /// doubling for each further attempt.
    #[arg(long, value_name = "SECONDS", value_parser = super::parse_timeout)]
    timeout: Option<f64>,
    /// The simulated board of `sim` links: answer when hardware at this clock would (default:
    /// as fast as the model runs).
    #[arg(long, value_parser = super::sim::parse_hz)]
    sim_clock: Option<f64>,
    /// The units of the simulated board of `sim` links: grouped (a request per group of
    /// pre-placements that share a west, north and east side, walked once, a count per south
    /// side back) or plain (a pre-placement a request, as Queens@TUD's boards).
    #[arg(long, value_name = "KIND", default_value_t)]
    sim_unit: queens_core::UnitKind,
    /// Faults of the simulated board: corrupt=P,drop=P,dup=P,lie=P,reset=SECONDS (with
    /// grouped units also misplace=P: a place code of no south side).
    #[arg(long, default_value = "")]
    sim_faults: queens_sim::board::Faults,
    /// Share of results recomputed by a second source (software where that is cheap, another
    /// board otherwise), besides every result of a board's first 16 and every result that
    /// software recomputes faster than the frame arrives. A board whose count is caught wrong
    /// is quarantined and its counts are computed again. 0 turns every check off.
    #[arg(long, value_name = "SHARE", default_value_t = 0.01, value_parser = parse_share)]
    verify: f64,
    /// Print the final report as one JSON object.
    #[arg(long)]
    json: bool,
    /// A shared campaign whose total no host of another database role can confirm (all its
    /// hosts log in as one role, or it was made without `queens db init`) is finished on
    /// purpose: exit 0 instead of 3.
    #[arg(long)]
    accept_unconfirmed: bool,
    /// Serve Prometheus metrics of this run at http://ADDR/metrics, e.g. 127.0.0.1:9127
    /// (port 0: any free one, printed). Alert rules: docs/campaign.md.
    #[arg(long, value_name = "ADDR")]
    metrics: Option<String>,
    /// Serve the metrics this many seconds after the run ends, so that a last scrape sees
    /// its final counts.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0, requires = "metrics",
          value_parser = super::metrics::parse_linger)]
    metrics_linger: f64,
}

fn parse_share(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("expected a share between 0 and 1, e.g. 0.01, not {s:?}")),
    }
}

pub fn run_cmd(a: Args) -> anyhow::Result<()> {
    let began = Instant::now();
    let stop = stop_flag()?;
    let metrics = super::metrics::Exposed::start(a.metrics.as_deref(), a.metrics_linger)?;
    // Before any campaign is made: a simulated board of sim:K holds K units, as an array can.
    for l in &a.links {
        if let LinkSpec::Sim { units: Some(k) } = l {
            anyhow::ensure!(
                *k as u64 <= super::MAX_UNITS,
                "--link {l}: a simulated board holds 1 to {} units",
                super::MAX_UNITS
            );
        }
    }
    super::fresh::ports_exist(&a.links)?;
    let campaign = a
        .campaign
        .clone()
        .unwrap_or_else(|| Location::File(format!("q{}.campaign", a.n).into()));
    match &campaign {
        Location::Postgres(db) => run_shared(&a, &db.target()?, stop, (began, &metrics)),
        Location::File(path) => run_file(&a, path, stop, (began, &metrics)),
    }
}

/// A line on standard error, except with `--json`.
fn say(a: &Args, s: String) {
    if !a.json {
        eprintln!("{s}");
    }
}

fn resumed(a: &Args, name: &str, s: &Summary) {
    if s.solved.subproblems() > 0 {
        say(
            a,
            format!(
                "resuming {name}: {} of {} subproblems solved",
                thousands(s.solved.subproblems() as u128),
                thousands(s.subproblems as u128)
            ),
        );
    }
}

/// A shared campaign: opened (made when missing) in its database, run with the other hosts.
fn run_shared(
    a: &Args,
    target: &Target,
    stop: Arc<AtomicBool>,
    (began, metrics): (Instant, &Exposed),
) -> anyhow::Result<()> {
    // --lease is at least 2 s (its parser): leases are renewed every second.
    let watch = Watch::stopped_by(stop.clone());
    let (mut store, created) = watched(&watch, || {
        PgStore::open_watched(target, a.n, Duration::from_secs_f64(a.lease), &watch)
    })?;
    let s = store.summary();
    if created {
        say(
            a,
            format!(
                "new campaign of N = {} in {}: {} subproblems",
                a.n,
                target.shown,
                thousands(s.subproblems as u128)
            ),
        );
    }
    resumed(a, &target.shown, &s);
    // Before the work: a lab whose hosts share one role learns it now, not weeks later.
    let before = store
        .checkers()
        .with_context(|| format!("reading the host roles of {}", target.shown))?;
    if before.one_role {
        say(a, cross::one_role_why(&before));
        for l in cross::one_role_fix(&before, target, a.n) {
            say(a, l);
        }
    }
    let cfg = config(a, Some(stop));
    let report = run(store, &cfg, &mut *metrics.wrap(shown(a, began)))
        .with_context(|| format!("running campaign {}", target.shown))?;
    let checkers = report.cross_checked.checkers.clone().unwrap_or(before);
    report::finish(a, &report, Some((target, &checkers)))
}

/// A campaign file: made when missing, then opened and run.
fn run_file(
    a: &Args,
    path: &Path,
    stop: Arc<AtomicBool>,
    (began, metrics): (Instant, &Exposed),
) -> anyhow::Result<()> {
    let size = a.n;
    let watch = Watch::stopped_by(stop.clone());
    let created = !path.exists();
    if created {
        say(a, format!("creating {} (N = {})", path.display(), a.n));
        let t = Instant::now();
        match watched(&watch, || FileStore::create(path, size, false, &watch)) {
            Ok(entries) => say(
                a,
                format!(
                    "new campaign {}: {} subproblems, {} bytes, written in {:.1} s",
                    path.display(),
                    thousands(entries as u128),
                    thousands(entries as u128 * 16),
                    t.elapsed().as_secs_f64()
                ),
            ),
            Err(StoreError::Stopped { .. }) => {
                say(a, format!(
                    "stopped while creating {}: nothing was written (the partial file is removed); run the same command again to start",
                    path.display()
                ));
                std::process::exit(130);
            }
            Err(e) => return Err(e.into()),
        }
    }
    let t = Instant::now();
    let store = watched(&watch, || {
        FileStore::open_watched(path, Some(size), Access::Write, &watch)
    })?;
    let s = store.summary();
    say(
        a,
        format!(
            "opened {}{} in {:.1} s{}",
            if created { "the new campaign " } else { "" },
            path.display(),
            t.elapsed().as_secs_f64(),
            // Counts to trust: none in a campaign with nothing solved.
            if s.unchecked > 0 && s.solved.subproblems() > 0 {
                format!(
                ": {} of its {} entries trusted from its summary until a background pass has read them again (their counts are in no final total before that)",
                thousands(s.unchecked as u128),
                thousands(s.subproblems as u128)
            )
            } else {
                String::new()
            }
        ),
    );
    resumed(a, &path.display().to_string(), &s);
    let cfg = config(a, Some(stop));
    let report = run(store, &cfg, &mut *metrics.wrap(shown(a, began)));
    super::fresh::forget_unused(created, path, &report, &|s| say(a, s));
    let report = report.with_context(|| format!("running campaign {}", path.display()))?;
    report::finish(a, &report, None)
}
