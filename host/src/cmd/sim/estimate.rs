//! `queens sim estimate`: a board's hours for the whole of Q(N).

use super::{parse_hz, parse_method};
use crate::cmd::{pool, thousands};
use queens_core::{BoardSize, UnitKind};
use queens_hdl::board::generic;
use queens_sim::estimate::Method;
use serde::Serialize;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

#[derive(clap::Args)]
pub struct EstimateArgs {
    /// Board: tud-vc707 (the array Queens@TUD fitted on a VC707: 360 units at 250 MHz),
    /// generic (no board: 8 units at 100 MHz, as `hdl emit` makes it), a built-in board (vc707,
    /// kc705, ml605, de4, ulx3s: its clock, and as many units as `queens hdl fit` puts on it)
    /// or a board file.
    #[arg(long, default_value = queens_sim::estimate::TUD_VC707.name)]
    board: String,
    /// Board size, 6..=32 (default: the board's; 27 for tud-vc707 and generic).
    #[arg(long)]
    n: Option<BoardSize>,
    /// How the mean unit cycles per subproblem are found: sampled (the cycle model exhausts
    /// every sampled subproblem), probe (Knuth's random-probe estimator on each), or auto
    /// (sampled when the model would take under 10 s, else probe).
    #[arg(long, default_value = "auto", value_parser = parse_method())]
    method: Method,
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
    /// Solver units on the board (default: the board's, as above).
    #[arg(long, value_parser = crate::cmd::units())]
    solvers: Option<usize>,
    /// Solver clock (default: the board's).
    #[arg(long, value_parser = parse_hz)]
    clock: Option<f64>,
    /// UART baud rate of the link (8N1).
    #[arg(long, default_value_t = 115_200)]
    baud: u64,
    /// Results without the cycle counter (shorter frames).
    #[arg(long)]
    no_cycles: bool,
    /// (A grouped unit's pre-placement costs its share of its group's walk, and a built-in
    /// board holds as many grouped units as `queens hdl fit` puts on it; tud-vc707 is
    /// Queens@TUD's board of plain units.)
    #[command(flatten)]
    unit: crate::cmd::UnitArg,
    #[arg(long, value_parser = crate::cmd::parse_threads)]
    threads: Option<usize>,
    #[arg(long)]
    json: bool,
}

/// `work` on the pool's threads, with a bar of `len` steps once it has taken a second.
fn barred<T: Send>(
    pool: &rayon::ThreadPool,
    what: &str,
    len: u64,
    work: impl FnOnce(&AtomicU64) -> T + Send,
) -> T {
    let done = AtomicU64::new(0);
    crate::progress::with_bar(what, &done, || len, || pool.install(|| work(&done)))
}

pub(super) fn run(a: EstimateArgs) -> anyhow::Result<()> {
    use queens_sim::estimate::{self as est, BoardSpeed};
    use queens_sim::sample::Sampler;
    anyhow::ensure!(a.baud > 0, "--baud must be positive");
    // A board without a device has fixed figures; a board file has its own N and clock,
    // and our fit's units.
    let tud = est::TUD_VC707;
    let (board_n, board_units, board_clock, loaded) = if a.board == tud.name {
        (tud.n, Some(tud.units), tud.clock_hz, None)
    } else if a.board == generic::NAME {
        (generic::N, Some(generic::UNITS), generic::CLOCK_HZ as f64, None)
    } else {
        let b = queens_hdl::board::Board::load(&a.board)?;
        (b.defaults.n as u32, None, b.defaults.clock_hz as f64, Some(b))
    };
    let size = a.n.map_or_else(|| BoardSize::new(board_n), Ok)?;
    let n = size.n();
    let clock = a.clock.unwrap_or(board_clock);
    // What the clock rests on: the command line, or the board file's own word for it.
    let clock_source = match (&a.clock, &loaded) {
        (Some(_), _) => "--clock".to_string(),
        (None, Some(b)) => format!(
            "the board file's defaults.clock_hz; {}",
            b.defaults
                .clock_evidence
                .as_deref()
                .unwrap_or("its evidence is not recorded in the board file")
        ),
        (None, None) => format!("{}'s fixed clock", a.board),
    };
    // A board we fit is built of a circuit; the others are models, at any N.
    let unit = if a.board == tud.name {
        anyhow::ensure!(
            a.unit.unit.is_none_or(|u| u == UnitKind::Plain),
            "{}: Queens@TUD's board is built of their plain units; --unit grouped takes another board",
            tud.name
        );
        UnitKind::Plain
    } else if let (Some(b), None) = (&loaded, a.solvers) {
        a.unit.on_board(b, size, !a.no_cycles)?
    } else {
        a.unit.model(!a.no_cycles)?
    };
    let pool = &pool(a.threads)?;
    let start = Instant::now();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        // The unit count: given, the fixed board's, or our fit of the board (from the cache,
        // or made while the cycles are estimated: yosys runs beside the estimate).
        let mut units: Option<(usize, String)> = match (a.solvers, board_units) {
            (Some(k), _) => Some((k, "--solvers".into())),
            (None, Some(u)) => Some((u, a.board.clone())),
            (None, None) => None,
        };
        let mut fitting = None;
        if let (Some(b), None) = (&loaded, &units) {
            match crate::cmd::hdl::estimate_units(b, n, unit, start)? {
                Ok(u) => units = Some(u),
                Err(fit) => {
                    let thread = std::thread::Builder::new().stack_size(crate::cmd::CIRCUIT_STACK);
                    fitting = Some(thread.spawn_scoped(scope, fit)?)
                }
            }
        }

        let mut sampler = Sampler::new(size);
        let prefixes = sampler.prefix_count();
        let what = "counting subproblems (prefixes)";
        let total = barred(pool, what, prefixes, |d| sampler.count(d));
        let what = "picking the sample";
        let pick = |s: u64| barred(pool, what, s.min(total), |d| sampler.evenly(s, d));
        let (method, subs) = match a.method {
            Method::Sampled => (Method::Sampled, pick(a.sample.unwrap_or(est::SAMPLED_DEFAULT))),
            Method::Probe => (Method::Probe, pick(a.sample.unwrap_or(est::PROBE_SAMPLE_DEFAULT))),
            Method::Auto => {
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
        let (what, probes) = match method {
            Method::Probe => ("probing subproblems", a.probes),
            _ => ("running the cycle model on subproblems", 0),
        };
        let cycles = barred(pool, what, subs.len() as u64, |d| match (method, unit) {
            (Method::Probe, UnitKind::Plain) => est::probe_cycles(&subs, probes, a.seed, d),
            (Method::Probe, UnitKind::Grouped) => est::grouped_probe_cycles(&subs, probes, a.seed, d),
            (_, UnitKind::Plain) => est::model_cycles(&subs, d),
            (_, UnitKind::Grouped) => est::grouped_model_cycles(&subs, d),
        });

        let (solvers, units_source) = match (units, fitting) {
            (Some(u), _) => u,
            (None, Some(job)) => {
                let bar =
                    crate::progress::spinner("", "fitting the board (yosys: a stage and the front end)");
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
            unit,
        };
        let e = est::estimate(size, method, probes, &cycles, total, speed);
        let seconds = start.elapsed().as_secs_f64();
        if a.json {
            #[derive(Serialize)]
            struct Json<'a> {
                board: &'a str,
                /// Grouped units: mean_cycles is a pre-placement's share of its group's walk.
                unit_kind: UnitKind,
                #[serde(flatten)]
                estimate: &'a est::Estimate,
                /// Where `units` came from: --solvers, the board without a device (its name),
                /// our fit, or the board file's reference units (when no fit could be made).
                units_source: &'a str,
                /// What the clock rests on.
                clock_source: &'a str,
                /// What hours_low..hours_high is.
                interval: &'static str,
                seed: u64,
                seconds: f64,
            }
            let j = Json {
                board: &a.board,
                unit_kind: unit,
                estimate: &e,
                units_source: &units_source,
                clock_source: &clock_source,
                interval: "95%: mean cycles ± 1.96 standard errors",
                seed: a.seed,
                seconds,
            };
            println!("{}", serde_json::to_string(&j)?);
            return Ok(());
        }
        print_text(&a, (n, unit), total, solvers, &units_source, clock, &e, seconds);
        println!("clock: {clock_source}");
        Ok(())
    })
}

/// The estimate as text.
#[allow(clippy::too_many_arguments)]
fn print_text(
    a: &EstimateArgs,
    (n, unit): (u32, UnitKind),
    total: u64,
    solvers: usize,
    units_source: &str,
    clock: f64,
    e: &queens_sim::estimate::Estimate,
    seconds: f64,
) {
    let sampled = thousands(e.sampled as u128);
    let how = match e.method {
        Method::Probe => format!(
            "probe: Knuth's estimator, {} random probes of each of {sampled} subproblems",
            e.probes_per_subproblem
        ),
        _ => format!("sampled: the cycle model ran {sampled} subproblems"),
    };
    println!(
        "{}, N = {n}: {} subproblems; mean {} {unit} unit cycles per subproblem ± {:.2}% ({how})",
        a.board,
        thousands(total as u128),
        cycles(e.mean_cycles),
        100.0 * e.relative_stderr,
    );
    println!(
        "Queens@TUD's unit on the same sample: mean {}; ours / Queens@TUD {} (95% over all of N)",
        cycles(e.tud_mean_cycles),
        e.vs_tud.text()
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
}

/// Mean cycles as a whole count, or with four figures once too long to read as one.
fn cycles(c: f64) -> String {
    if c >= 1e7 {
        format!("{c:.3e}")
    } else {
        format!("{c:.0}")
    }
}

/// Hours as `sim estimate` prints them: three decimals, whole hours with thousands separators from 1,000.
fn hours(h: f64) -> String {
    if h >= 1000.0 {
        thousands(h.round() as u128)
    } else {
        format!("{h:.3}")
    }
}
