//! `queens run N`: the main job. Feeds the subproblems of a campaign to the boards on the
//! given links (a simulated board when none is given), validates and records every result,
//! and prints Q(N) once all are solved. Run it again on the same campaign to resume.

use super::{board, cross, grouped};
use crate::progress::watched;
use crate::progress::RunBars;
use anyhow::Context;
use queens_host::dispatch::{Timeouts, Trust};
use queens_host::link::{LinkSpec, SimSettings};
use queens_host::run::{run, Progress, Quiet, RunConfig, RunReport};
use queens_host::store::file::{Access, FileStore, Watch};
use queens_host::store::pg::{Checkers, PgStore};
use queens_host::store::pg_conn::{self, Target};
use queens_host::store::{Store, StoreError, Summary};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// Board size, 6..=32.
    #[arg(value_parser = super::parse_n)]
    n: u32,
    /// A board: serial:/dev/ttyUSB0[@115200], pcie:/dev/xdma0, tcp:HOST:PORT or sim[:UNITS].
    /// Repeat for several boards at once. Default: one simulated board in this process.
    #[arg(long = "link", value_name = "LINK")]
    links: Vec<LinkSpec>,
    /// The campaign (created when missing, resumed when present): a file, or a PostgreSQL
    /// database shared by several hosts, postgres://[user@]host[:port]/database (the
    /// password from PGPASSWORD or ~/.pgpass, other settings from the PG* variables).
    /// Default: q<N>.campaign in the current directory.
    #[arg(long, value_name = "FILE|URL")]
    campaign: Option<String>,
    /// Seconds a lease on a block of a PostgreSQL campaign lasts without renewal (the host
    /// renews every second); work of a host that stops returns to the others after this.
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0, value_parser = super::parse_lease)]
    lease: f64,
    /// Solver units per board, 1..=1024, for links that do not say (sim:K does).
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
    /// The simulated board of `sim` links is one of grouped units (issue 50): it takes a
    /// request per group of pre-placements that share a west, north and east side, walks it
    /// once and answers with a count per south side.
    #[arg(long)]
    sim_groups: bool,
    /// Faults of the simulated board: corrupt=P,drop=P,dup=P,lie=P,reset=SECONDS (with
    /// --sim-groups also misplace=P: a place code of no south side).
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
    let size = board(a.n)?;
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
    let campaign = a.campaign.clone().unwrap_or_else(|| format!("q{}.campaign", a.n));
    let quiet = a.json;
    let say = |s: String| {
        if !quiet {
            eprintln!("{s}");
        }
    };
    let resumed = |name: &str, s: &Summary| {
        if s.solved.subproblems() > 0 {
            say(format!(
                "resuming {name}: {} of {} subproblems solved",
                grouped(s.solved.subproblems() as u128),
                grouped(s.subproblems as u128)
            ));
        }
    };
    if pg_conn::is_url(&campaign) {
        // --lease is at least 2 s (its parser): leases are renewed every second.
        let target = Target::parse(&campaign)?;
        let watch = Watch::stopped_by(stop.clone());
        let (store, created) = watched(&watch, || {
            PgStore::open_watched(&target, size, Duration::from_secs_f64(a.lease), &watch)
        })?;
        let s = store.summary();
        if created {
            say(format!(
                "new campaign of N = {} in {}: {} subproblems",
                a.n,
                target.shown,
                grouped(s.subproblems as u128)
            ));
        }
        resumed(&target.shown, &s);
        // Before the work: a lab whose hosts share one role learns it now, not weeks later.
        let mut store = store;
        let before = store
            .checkers()
            .with_context(|| format!("reading the host roles of {}", target.shown))?;
        if before.one_role {
            say(cross::one_role_why(&before));
            for l in cross::one_role_fix(&before, &target, a.n) {
                say(l);
            }
        }
        let cfg = config(&a, size, Some(stop), &say);
        let report = run(store, &cfg, &mut *metrics.wrap(shown(&a, began)))
            .with_context(|| format!("running campaign {}", target.shown))?;
        let checkers = report.cross_checked.checkers.clone().unwrap_or(before);
        return finish(&a, &report, Some((&target, &checkers)));
    }
    let path = PathBuf::from(&campaign);
    let watch = Watch::stopped_by(stop.clone());
    let created = !path.exists();
    if created {
        say(format!("creating {} (N = {})", path.display(), a.n));
        let t = Instant::now();
        match watched(&watch, || FileStore::create(&path, size, false, &watch)) {
            Ok(entries) => say(format!(
                "new campaign {}: {} subproblems, {} bytes, written in {:.1} s",
                path.display(),
                grouped(entries as u128),
                grouped(entries as u128 * 16),
                t.elapsed().as_secs_f64()
            )),
            Err(StoreError::Stopped { .. }) => {
                say(format!(
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
        FileStore::open_watched(&path, Some(size), Access::Write, &watch)
    })?;
    let s = store.summary();
    say(format!(
        "opened {}{} in {:.1} s{}",
        if created { "the new campaign " } else { "" },
        path.display(),
        t.elapsed().as_secs_f64(),
        // Counts to trust: none in a campaign with nothing solved.
        if s.unchecked > 0 && s.solved.subproblems() > 0 {
            format!(
                ": {} of its {} entries trusted from its summary until a background pass has read them again (their counts are in no final total before that)",
                grouped(s.unchecked as u128),
                grouped(s.subproblems as u128)
            )
        } else {
            String::new()
        }
    ));
    resumed(&path.display().to_string(), &s);
    let cfg = config(&a, size, Some(stop), &say);
    let report = run(store, &cfg, &mut *metrics.wrap(shown(&a, began)));
    super::fresh::forget_unused(created, &path, &report, &say);
    let report = report.with_context(|| format!("running campaign {}", path.display()))?;
    finish(&a, &report, None)
}

/// Ctrl-C and SIGTERM set the flag the run stops on (a second one ends the process at once).
fn stop_flag() -> anyhow::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    ctrlc::set_handler(move || {
        if s.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    })
    .context("installing the Ctrl-C handler")?;
    Ok(stop)
}

/// How long a board should take for the slowest of its first subproblems at this N, and
/// the clock that assumes: the simulated board's clock, else [`ASSUMED_HZ`].
fn waits(a: &Args, size: queens_core::BoardSize) -> (f64, f64, f64) {
    let hz = a.sim_clock.unwrap_or(ASSUMED_HZ);
    let (mean, max) = queens_sim::estimate::subproblem_cycles(size, 32);
    (mean / hz, max / hz, hz)
}

/// The clock assumed for a board that does not say its own: slower than any board built
/// here (the slowest routed design runs above 100 MHz), so waits err on the long side.
const ASSUMED_HZ: f64 = 50e6;

fn config(
    a: &Args,
    size: queens_core::BoardSize,
    stop: Option<Arc<AtomicBool>>,
    say: &dyn Fn(String),
) -> RunConfig {
    // Waits follow what a subproblem takes at this N: at N = 27 a mean one takes about
    // 7 x 10^9 cycles, half a minute at 250 MHz, and the slow ones far longer.
    let (mean, slow, hz) = waits(a, size);
    let silence = Duration::from_secs_f64((3.0 * slow).max(30.0));
    let first = Duration::from_secs_f64((8.0 * slow).max(10.0));
    if mean > 1.0 {
        say(format!(
            "a subproblem of N = {} takes about {} on a unit at {:.0} MHz (the slowest of 32 probed: {}); first results in about that time, a silent board is named after {}",
            size.n(),
            human(mean),
            hz / 1e6,
            human(slow),
            human(silence.as_secs_f64())
        ));
    }
    // --timeout is positive and finite (its parser).
    let timeouts = match a.timeout {
        Some(t) => Timeouts {
            first: Duration::from_secs_f64(t),
            fixed: true,
            ..Timeouts::default()
        },
        None => Timeouts {
            first,
            ..Timeouts::default()
        },
    };
    let links = if a.links.is_empty() {
        vec![LinkSpec::Sim { units: None }]
    } else {
        a.links.clone()
    };
    RunConfig {
        links,
        units: a.solvers,
        margin: a.margin,
        timeouts,
        trust: if a.verify > 0.0 {
            Trust {
                verify: a.verify,
                ..Trust::default()
            }
        } else {
            Trust::OFF
        },
        sim: SimSettings {
            size,
            units: a.solvers,
            with_cycles: true,
            grouped: a.sim_groups,
            clock_hz: a.sim_clock,
            faults: a.sim_faults,
            seed: fastrand::u64(..),
        },
        sync_every: Duration::from_secs(1),
        silence,
        stop,
    }
}

/// Seconds as a person reads them.
fn human(secs: f64) -> String {
    match secs {
        s if s < 120.0 => format!("{s:.1} s"),
        s if s < 7200.0 => format!("{:.1} min", s / 60.0),
        s => format!("{:.1} h", s / 3600.0),
    }
}

/// Bars on standard error, except with `--json`.
fn shown(a: &Args, since: Instant) -> Box<dyn Progress> {
    if a.json {
        Box::new(Quiet)
    } else {
        Box::new(RunBars::since(since))
    }
}

/// The report; a shared campaign's (its database, and who can confirm its counts) says how
/// much of its total hosts of another role confirmed, and plainly when none can. A finished
/// shared campaign whose total no host of another role can confirm ends with
/// [`cross::UNCONFIRMED_STATUS`] unless `--accept-unconfirmed`.
fn finish(a: &Args, report: &RunReport, shared: Option<(&Target, &Checkers)>) -> anyhow::Result<()> {
    if a.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print(report, shared.map(|s| s.1));
    }
    if let Some((target, c)) = shared {
        // How to set roles up: with the report, and with any status it ends in.
        let stranded = report.complete && c.unconfirmable > 0 && !a.accept_unconfirmed;
        if (c.one_role && !a.json) || stranded {
            if a.json && c.one_role {
                eprintln!("{}", cross::one_role_why(c));
            }
            for l in cross::one_role_fix(c, target, a.n) {
                eprintln!("{l}");
            }
        }
        if stranded && !report.interrupted {
            eprintln!(
                "exit status {}: Q({}) = {} can be confirmed by no host of another role ({} counts chosen for a check wait for a role this campaign does not have); --accept-unconfirmed finishes such a campaign on purpose, with status 0",
                cross::UNCONFIRMED_STATUS,
                report.n,
                grouped(report.total),
                grouped(c.unconfirmable as u128)
            );
            std::process::exit(cross::UNCONFIRMED_STATUS);
        }
    }
    if report.interrupted {
        eprintln!(
            "stopped: {} subproblems that were on the boards are unsolved in the campaign and go out again; to resume: {}",
            grouped(report.in_flight as u128),
            resume_command()
        );
        std::process::exit(130);
    }
    Ok(())
}

/// The command line of this run, as it can be typed again.
fn resume_command() -> String {
    std::iter::once("queens".to_string())
        .chain(std::env::args().skip(1).map(|x| {
            if x.is_empty() || x.contains(|c: char| c.is_whitespace() || "'\"$`\\".contains(c)) {
                format!("'{}'", x.replace('\'', "'\\''"))
            } else {
                x
            }
        }))
        .collect::<Vec<_>>()
        .join(" ")
}

fn print(r: &RunReport, shared: Option<&Checkers>) {
    let x = &r.cross_checked;
    let unconfirmable = shared.map_or(0, |c| c.unconfirmable);
    if r.complete && r.unchecked > 0 {
        println!(
            "Q({}) = {} once the {} entries trusted from the campaign's summary have been read again (the next run does)",
            r.n,
            grouped(r.total),
            grouped(r.unchecked as u128)
        );
    } else if r.complete {
        // Final only once no count chosen for another host's recomputation waits.
        println!("{}", cross::total_line(r.n, r.total, x.pending, unconfirmable));
    } else {
        println!(
            "running total for N = {}: {} ({} of {} subproblems solved)",
            r.n,
            grouped(r.total),
            grouped((r.solved_before + r.counters.solved) as u128),
            grouped(r.subproblems as u128)
        );
    }
    match shared {
        Some(c) if c.one_role => println!("{}", cross::one_role_why(c)),
        Some(c) => println!(
            "cross-checked: {} of the campaign's {} counts recomputed and confirmed by a host of another role ({:.2}%), {} waiting{}",
            grouped(x.confirmed as u128),
            grouped(r.subproblems as u128),
            100.0 * x.confirmed as f64 / r.subproblems.max(1) as f64,
            grouped(x.pending as u128),
            if c.unconfirmable > 0 {
                format!(
                    ", {} of them for a host role this campaign does not have (a count two roles dispute waits for a third)",
                    grouped(c.unconfirmable as u128)
                )
            } else {
                String::new()
            }
        ),
        None => {}
    }
    let c = &r.counters;
    if x.agreed + x.disputed > 0 {
        println!(
            "{} results arrived for subproblems another host had solved: {} agreed (not counted again), {} disputed (see the log)",
            x.agreed + x.disputed,
            x.agreed,
            x.disputed
        );
    }
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
            "  {:<28} solver {:>4}: {} solved, {} verified by a second source, {} sent again, {} rejected{}",
            l.link,
            l.solver,
            grouped(l.counters.solved as u128),
            grouped(l.counters.verified as u128),
            l.counters.reissued,
            l.counters.rejected_frames,
            match &l.dropped {
                Some(why) => format!("; dropped, {} counts withdrawn: {why}", l.counters.withdrawn),
                None => String::new(),
            }
        );
    }
}
