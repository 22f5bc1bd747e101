//! `queens sim estimate`: a board's hours for the whole of Q(N).

use super::parse_hz;
use crate::cmd::{board, grouped, pool};
use queens_hdl::board::{fit, generic};
use serde::Serialize;
use std::time::Instant;

#[derive(clap::Args)]
pub struct EstimateArgs {
    /// Board: generic (the figures below), a built-in board (vc707, kc705, ml605, de4, ulx3s:
    /// its clock, and as many units as `queens hdl fit` puts on it unless --solvers says) or
    /// a board file.
    #[arg(long, default_value = "generic")]
    board: String,
    /// Board size, 6..=32 (default: the board's; 27 for generic).
    #[arg(long, value_parser = crate::cmd::parse_n)]
    n: Option<u32>,
    /// How the mean unit cycles per subproblem are found: sampled (the cycle model exhausts
    /// every sampled subproblem), probe (Knuth's random-probe estimator on each), or auto
    /// (sampled when the model would take under 10 s, else probe).
    #[arg(long, value_enum, default_value = "auto")]
    method: EstimateMethod,
    /// Subproblems in the sample, spread evenly over the canonical order (default: 256 by
    /// the model, 65,536 by probes).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    sample: Option<u64>,
    /// Random probes of each sampled subproblem (probe).
    #[arg(long, default_value_t = queens_sim::estimate::PROBES_DEFAULT, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    probes: u32,
    /// Seed of the probes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Solver units on the board (generic: 360; a board: our fit, as `queens hdl fit`).
    #[arg(long, value_parser = crate::cmd::units())]
    solvers: Option<usize>,
    /// Solver clock (generic: 250MHz).
    #[arg(long, value_parser = parse_hz)]
    clock: Option<f64>,
    /// UART baud rate of the link (8N1).
    #[arg(long, default_value_t = 115_200)]
    baud: u64,
    /// Results without the cycle counter (shorter frames).
    #[arg(long)]
    no_cycles: bool,
    #[arg(long, value_parser = crate::cmd::parse_threads)]
    threads: Option<usize>,
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EstimateMethod {
    Auto,
    Sampled,
    Probe,
}

pub(super) fn run(a: EstimateArgs) -> anyhow::Result<()> {
    use crate::progress::with_bar;
    use queens_sim::estimate::{self as est, BoardSpeed, Method, Sampler};
    use std::sync::atomic::AtomicU64;
    anyhow::ensure!(a.baud > 0, "--baud must be positive");
    let loaded = if a.board == generic::NAME {
        None
    } else {
        Some(queens_hdl::board::Board::load(&a.board)?)
    };
    let n =
        a.n.unwrap_or_else(|| loaded.as_ref().map_or(generic::N, |b| b.defaults.n as u32));
    let clock = a.clock.unwrap_or_else(|| {
        loaded
            .as_ref()
            .map_or(generic::ESTIMATE_CLOCK_HZ, |b| b.defaults.clock_hz as f64)
    });
    let size = board(n)?;
    let pool = pool(a.threads)?;
    let start = Instant::now();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        // The unit count: given, generic's, or our fit of the board (from the cache, or made
        // while the cycles are estimated: yosys runs beside the estimate).
        let mut units: Option<(usize, String)> = match (&loaded, a.solvers) {
            (_, Some(k)) => Some((k, "--solvers".into())),
            (None, None) => Some((generic::ESTIMATE_UNITS, generic::NAME.into())),
            (Some(_), None) => None,
        };
        let mut fitting = None;
        if let (Some(b), None) = (&loaded, &units) {
            let arbiter = b.default_arbiter();
            let cache = fit::cache_path(b, n, arbiter);
            if let Some(u) = cache.as_deref().and_then(fit::read_cached) {
                units = Some((u.0, format!("our fit, limited by {}; cached", u.1)));
            } else if b.family == queens_hdl::board::Family::Ecp5 {
                // Placed and routed with spinners of its own: before the estimate's bars.
                units = Some(crate::cmd::hdl::fit_units(
                    b,
                    n,
                    arbiter,
                    cache.as_deref(),
                    start,
                )?);
            } else {
                let cache = cache.clone();
                fitting = Some(
                    scope.spawn(move || crate::cmd::hdl::fit_units(b, n, arbiter, cache.as_deref(), start)),
                );
            }
        }

        let mut sampler = Sampler::new(size);
        let prefixes = sampler.prefix_count();
        let done = AtomicU64::new(0);
        let total = with_bar(
            "counting subproblems (prefixes)",
            &done,
            move || prefixes,
            || pool.install(|| sampler.count(&done)),
        );
        let pick = |s: u64| {
            let done = AtomicU64::new(0);
            with_bar(
                "picking the sample",
                &done,
                || s.min(total),
                || pool.install(|| sampler.evenly(s, &done)),
            )
        };
        let (method, subs) = match a.method {
            EstimateMethod::Sampled => (Method::Sampled, pick(a.sample.unwrap_or(est::SAMPLED_DEFAULT))),
            EstimateMethod::Probe => (Method::Probe, pick(a.sample.unwrap_or(est::PROBE_SAMPLE_DEFAULT))),
            EstimateMethod::Auto => {
                let subs = pick(a.sample.unwrap_or(est::SAMPLED_DEFAULT));
                let threads = pool.current_num_threads();
                let model_seconds = pool.install(|| est::pilot_model_seconds(&subs, a.seed, threads));
                if model_seconds <= est::SAMPLED_BUDGET_SECONDS {
                    (Method::Sampled, subs)
                } else if a.sample.is_some() {
                    (Method::Probe, subs)
                } else {
                    (Method::Probe, pick(est::PROBE_SAMPLE_DEFAULT))
                }
            }
        };
        let done = AtomicU64::new(0);
        let len = subs.len() as u64;
        let (cycles, probes) = match method {
            Method::Probe => (
                with_bar(
                    "probing subproblems",
                    &done,
                    || len,
                    || pool.install(|| est::probe_cycles(&subs, a.probes, a.seed, &done)),
                ),
                a.probes,
            ),
            _ => (
                with_bar(
                    "running the cycle model on subproblems",
                    &done,
                    || len,
                    || pool.install(|| est::model_cycles(&subs, &done)),
                ),
                0,
            ),
        };

        let (solvers, units_source) = match (units, fitting) {
            (Some(u), _) => u,
            (None, Some(job)) => {
                let bar = spinner("fitting the board (yosys: a stage and the front end)");
                let u = job.join().expect("the fit's thread panicked");
                bar.finish_and_clear();
                u?
            }
            (None, None) => unreachable!("a unit count or a fit under way"),
        };
        let speed = BoardSpeed {
            units: solvers,
            clock_hz: clock,
            link_bytes_per_s: a.baud as f64 / 10.0,
            with_cycles: !a.no_cycles,
        };
        let e = est::estimate(size, method, probes, &cycles, total, speed);
        let seconds = start.elapsed().as_secs_f64();
        if a.json {
            #[derive(Serialize)]
            struct Json<'a> {
                board: &'a str,
                #[serde(flatten)]
                estimate: &'a est::Estimate,
                /// Where `units` came from: --solvers, generic, our fit, or the board file's
                /// reference units (when the fit could not be made).
                units_source: &'a str,
                /// What hours_low..hours_high is.
                interval: &'static str,
                seed: u64,
                seconds: f64,
            }
            let j = Json {
                board: &a.board,
                estimate: &e,
                units_source: &units_source,
                interval: "95%: mean cycles ± 1.96 standard errors",
                seed: a.seed,
                seconds,
            };
            println!("{}", serde_json::to_string(&j)?);
            return Ok(());
        }
        let how = match method {
            Method::Probe => format!(
                "probe: Knuth's estimator, {} random probes of each of {} subproblems",
                e.probes_per_subproblem,
                grouped(e.sampled as u128)
            ),
            _ => format!(
                "sampled: the cycle model ran {} subproblems",
                grouped(e.sampled as u128)
            ),
        };
        println!(
            "{}, N = {n}: {} subproblems; mean {} unit cycles per subproblem ± {:.2}% ({how})",
            a.board,
            grouped(total as u128),
            if e.mean_cycles >= 1e7 {
                format!("{:.3e}", e.mean_cycles)
            } else {
                format!("{:.0}", e.mean_cycles)
            },
            100.0 * e.relative_stderr,
        );
        println!(
            "{solvers} units ({units_source}) at {:.0} MHz: {} h of solving; link at {} baud: {} h of frames",
            clock / 1e6,
            hours(e.compute_hours),
            a.baud,
            hours(e.link_hours),
        );
        println!(
            "estimate {} h, 95% {}..{} h ({}-bound){}; {seconds:.1} s",
            hours(e.hours),
            hours(e.hours_low),
            hours(e.hours_high),
            e.limit,
            if e.hours >= 24.0 * 365.25 {
                format!(", {:.2} years", e.hours / (24.0 * 365.25))
            } else {
                String::new()
            }
        );
        Ok(())
    })
}

/// Hours as `sim estimate` prints them: three decimals, grouped whole hours from 1,000.
fn hours(h: f64) -> String {
    if h >= 1000.0 {
        grouped(h.round() as u128)
    } else {
        format!("{h:.3}")
    }
}

/// A spinner on stderr (drawn only on a terminal) saying what is being waited for.
fn spinner(what: &str) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(ProgressStyle::with_template("{spinner} {msg} {elapsed}").expect("valid template"));
    bar.set_message(what.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}
