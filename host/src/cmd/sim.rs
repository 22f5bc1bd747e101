//! `queens sim`: the circuits in simulation.

use super::{board, grouped, pool};
use anyhow::{bail, Context};
use queens_core::enumerate::canonical;
use queens_core::{BoardSize, Subproblem};
use queens_hdl::ArbiterKind;
use queens_sim::check::VerilatorEngine;
use queens_sim::{check, CheckReport, Engine, ModelEngine, RtlEngine};
use serde::Serialize;
use std::time::Instant;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Run canonical pre-placements through a simulated circuit and compare every count with
    /// the software counter; exits non-zero on any mismatch.
    Check(CheckArgs),
    /// Serve the wire protocol as a board would, on a TCP port or a pseudo-terminal, with the
    /// solver array played by the cycle model.
    Board(BoardArgs),
    /// Predict the hours a board needs for the whole of Q(N), from the cycle counts of a
    /// sample of its subproblems and the board's units, clock and link.
    Estimate(EstimateArgs),
    /// Unit cycles of fixed sets of subproblems (all of N = 12 and 13, the first 1,337 of
    /// N = 17, a sample of N = 20), against the Queens@TUD unit and a left-to-right walk: the
    /// benchmark to run after changing the unit or the walk.
    Cycles(CyclesArgs),
}

#[derive(clap::Args)]
pub struct CyclesArgs {
    #[arg(long, value_parser = super::parse_threads)]
    threads: Option<usize>,
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct EstimateArgs {
    /// Board: generic (the figures below), a built-in board (vc707, kc705, ml605, de4, ulx3s:
    /// its clock, and as many units as `queens hdl fit` puts on it unless --solvers says) or
    /// a board file.
    #[arg(long, default_value = "generic")]
    board: String,
    /// Board size, 6..=32 (default: the board's; 27 for generic).
    #[arg(long, value_parser = super::parse_n)]
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
    #[arg(long, value_parser = super::units())]
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
    #[arg(long, value_parser = super::parse_threads)]
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

#[derive(clap::Args)]
pub struct BoardArgs {
    /// Board size, 6..=32.
    #[arg(long, value_parser = super::parse_n)]
    n: u32,
    /// Solver units, 1..=1024.
    #[arg(long, default_value_t = 360, value_parser = super::units())]
    solvers: usize,
    /// Listen on this TCP address (one host connection at a time).
    #[arg(
        long,
        value_name = "ADDR",
        conflicts_with = "pty",
        default_value = "127.0.0.1:7027"
    )]
    listen: String,
    /// Serve on a new pseudo-terminal instead (its path is printed), like a USB UART.
    #[arg(long)]
    pty: bool,
    /// Answer when hardware at this clock would, e.g. 250MHz (default: as fast as possible).
    #[arg(long, value_parser = parse_hz)]
    clock: Option<f64>,
    /// Faults to inject: corrupt=P,drop=P,dup=P,reset=SECONDS.
    #[arg(long, default_value = "")]
    faults: queens_sim::board::Faults,
    /// Seed of the fault injector.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Results without the cycle counter (the Queens@TUD frames).
    #[arg(long)]
    no_cycles: bool,
    /// What plays the board: the cycle model, or the emitted core under Verilator (at the
    /// simulator's own pace; no --clock).
    #[arg(long, value_enum, default_value = "model")]
    engine: BoardEngine,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BoardEngine {
    Model,
    Verilator,
}

/// "250MHz", "100 MHz", "1.5GHz", "50000000": 1 kHz to 10 GHz (a slower clock would put
/// a simulated answer beyond any timeout, and no FPGA runs faster).
pub fn parse_hz(s: &str) -> Result<f64, String> {
    let t = s.trim().to_ascii_lowercase().replace(' ', "");
    let (num, mul) = if let Some(n) = t.strip_suffix("ghz") {
        (n, 1e9)
    } else if let Some(n) = t.strip_suffix("mhz") {
        (n, 1e6)
    } else if let Some(n) = t.strip_suffix("khz") {
        (n, 1e3)
    } else {
        (t.strip_suffix("hz").unwrap_or(&t), 1.0)
    };
    match num.parse::<f64>() {
        Ok(v) if (1e3..=1e10).contains(&(v * mul)) => Ok(v * mul),
        _ => Err(format!(
            "clock {s:?}: expected a frequency from 1kHz to 10GHz, such as 250MHz"
        )),
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum EngineName {
    /// The fast cycle model (machine words, all cores).
    Model,
    /// rust-hdl's own simulator on the unit circuit of `queens-hdl`.
    Rtl,
    /// The emitted core compiled with Verilator: frames in and out as bytes, through the
    /// frame parser, an array of `--solvers` units and the framer.
    Verilator,
}

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Board size, 6..=32.
    #[arg(value_parser = super::parse_n)]
    n: u32,
    #[arg(long, value_enum, default_value = "model")]
    engine: EngineName,
    /// Only S subproblems, spread evenly over the canonical order.
    #[arg(long, value_name = "S", conflicts_with = "index")]
    sample: Option<u64>,
    /// Only the subproblem at this canonical index.
    #[arg(long, value_name = "I")]
    index: Option<u64>,
    /// Solver units in the simulated array (verilator engine).
    #[arg(long, value_name = "K", default_value_t = 16, value_parser = super::units())]
    solvers: usize,
    /// Arbiter form of the circuits (rtl and verilator engines).
    #[arg(long, default_value = "carry4", value_parser = super::hdl::parse_kind)]
    arbiter: ArbiterKind,
    /// Run this core instead of the emitted one (Verilog with top module `queens_core`, e.g.
    /// an emitted core changed by hand; verilator engine).
    #[arg(long, value_name = "FILE")]
    design: Option<std::path::PathBuf>,
    /// Write a waveform (VCD, for GTKWave) of a check of one subproblem (verilator engine).
    #[arg(long, value_name = "FILE")]
    vcd: Option<std::path::PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = super::parse_threads)]
    threads: Option<usize>,
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct MismatchJson {
    index: u64,
    preplacement: String,
    expected: u64,
    got: u64,
}

#[derive(Serialize)]
struct Report {
    n: u32,
    engine: &'static str,
    subproblems: u64,
    total: u128,
    mismatches: u64,
    first_mismatches: Vec<MismatchJson>,
    cycles: u64,
    /// Clock cycles of the simulated board and their rate, build excluded (verilator engine).
    #[serde(skip_serializing_if = "Option::is_none")]
    board_cycles: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    board_cycles_per_second: Option<f64>,
    seconds: f64,
}

pub fn run(cmd: Command) -> anyhow::Result<()> {
    match cmd {
        Command::Check(a) => run_check(a),
        Command::Board(a) => run_board(a),
        Command::Estimate(a) => run_estimate(a),
        Command::Cycles(a) => run_cycles(a),
    }
}

fn run_cycles(a: CyclesArgs) -> anyhow::Result<()> {
    let totals = pool(a.threads)?.install(queens_sim::cycles::totals);
    if a.json {
        println!("{}", serde_json::to_string(&totals)?);
        return Ok(());
    }
    println!("unit cycles as the array runs them (cycle model), against the Queens@TUD unit and a left-to-right walk");
    for t in &totals {
        let reference = match (t.reference_cycles, t.vs_reference()) {
            (Some(r), Some(x)) => format!("Queens@TUD {} ({x:.3}x)", grouped(r as u128)),
            _ => "Queens@TUD -".into(),
        };
        println!(
            "N = {:>2}, {:<18} {:>9} subproblems: {:>13} cycles; {reference}; left to right {} ({:.3}x)",
            t.n,
            t.set,
            grouped(t.subproblems as u128),
            grouped(t.cycles as u128),
            grouped(t.columns_cycles as u128),
            t.vs_columns()
        );
    }
    Ok(())
}

fn run_estimate(a: EstimateArgs) -> anyhow::Result<()> {
    use crate::progress::with_bar;
    use queens_sim::estimate::{self as est, BoardSpeed, Method, Sampler};
    use std::sync::atomic::AtomicU64;
    anyhow::ensure!(a.baud > 0, "--baud must be positive");
    let loaded = if a.board == "generic" {
        None
    } else {
        Some(queens_hdl::board::Board::load(&a.board)?)
    };
    let n =
        a.n.unwrap_or_else(|| loaded.as_ref().map_or(27, |b| b.defaults.n as u32));
    let clock = a
        .clock
        .unwrap_or_else(|| loaded.as_ref().map_or(250e6, |b| b.defaults.clock_hz as f64));
    let size = board(n)?;
    let pool = pool(a.threads)?;
    let start = Instant::now();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        // The unit count: given, generic's, or our fit of the board (from the cache, or made
        // while the cycles are estimated: yosys runs beside the estimate).
        let mut units: Option<(usize, String)> = match (&loaded, a.solvers) {
            (_, Some(k)) => Some((k, "--solvers".into())),
            (None, None) => Some((360, "generic".into())),
            (Some(_), None) => None,
        };
        let mut fitting = None;
        if let (Some(b), None) = (&loaded, &units) {
            let arbiter = super::hdl::default_arbiter(b);
            let cache = fit_cache_path(b, n, arbiter);
            if let Some(u) = cache.as_deref().and_then(read_cached_fit) {
                units = Some((u.0, format!("our fit, limited by {}; cached", u.1)));
            } else if b.family == queens_hdl::board::Family::Ecp5 {
                // Placed and routed with spinners of its own: before the estimate's bars.
                units = Some(fit_units(b, n, arbiter, cache.as_deref(), start)?);
            } else {
                let cache = cache.clone();
                fitting = Some(scope.spawn(move || fit_units(b, n, arbiter, cache.as_deref(), start)));
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

/// `sim estimate`'s unit count of a board: our fit (as `hdl fit`), remembered in the cache;
/// the board file's reference units, said so, when the fit cannot be made.
fn fit_units(
    b: &queens_hdl::board::Board,
    n: u32,
    arbiter: ArbiterKind,
    cache: Option<&std::path::Path>,
    start: Instant,
) -> anyhow::Result<(usize, String)> {
    match super::hdl::fit_board(b, n, arbiter) {
        Ok((f, _, _)) => {
            tracing::info!(
                units = f.units,
                seconds = start.elapsed().as_secs_f64(),
                "fit made"
            );
            if let Some(p) = cache {
                let text = serde_json::json!({ "units": f.units, "limit": f.limit }).to_string();
                let written = p.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| {
                    let tmp = p.with_extension(format!("tmp{}", std::process::id()));
                    std::fs::write(&tmp, text)?;
                    std::fs::rename(&tmp, p)
                });
                if let Err(e) = written {
                    tracing::warn!("could not cache the fit in {}: {e}", p.display());
                }
            }
            Ok((f.units, format!("our fit, limited by {}", f.limit)))
        }
        Err(err) => match &b.reference {
            Some(r) => {
                eprintln!(
                    "warning: no fit of {} ({err:#}); using the board file's reference units, {}",
                    b.name, r.units
                );
                Ok((
                    r.units,
                    format!("the board file's reference units, no fit: {err:#}"),
                ))
            }
            None => Err(err.context(format!("fitting {} for its unit count; give --solvers", b.name))),
        },
    }
}

/// Where the fit of a board is cached: `$QUEENS_FIT_CACHE` or `<tmp>/queens-fit`, named by a
/// hash of everything the fit depends on here (the board file, N, the arbiter, and the
/// Verilog of a stage and of the front end).
fn fit_cache_path(b: &queens_hdl::board::Board, n: u32, arbiter: ArbiterKind) -> Option<std::path::PathBuf> {
    use queens_hdl::emit::{front_verilog, stage_verilog, CoreConfig};
    use std::hash::{Hash, Hasher};
    let m = board(n).ok()?.inner() as usize;
    let cfg = CoreConfig::new(n as usize, 1024, arbiter, true).ok()?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (
        format!("{b:?}"),
        n,
        arbiter.name(),
        stage_verilog(m, arbiter, "queens_stage"),
        front_verilog(&cfg, "queens_front"),
    )
        .hash(&mut h);
    let root = std::env::var_os("QUEENS_FIT_CACHE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("queens-fit"));
    let name: String = b
        .name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    Some(root.join(format!("{name}-n{n}-{}-{:016x}.json", arbiter.name(), h.finish())))
}

/// A cached fit: units and what limits them.
fn read_cached_fit(p: &std::path::Path) -> Option<(usize, String)> {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok()?;
    let units = v["units"].as_u64().filter(|&u| u >= 1)? as usize;
    Some((units, v["limit"].as_str().unwrap_or("?").to_string()))
}

fn run_board(a: BoardArgs) -> anyhow::Result<()> {
    use queens_sim::board::{Board, BoardConfig};
    let size = board(a.n)?;
    anyhow::ensure!(a.solvers > 0, "--solvers must be at least 1");
    let cfg = BoardConfig {
        size,
        units: a.solvers,
        clock_hz: a.clock,
        with_cycles: !a.no_cycles,
        faults: a.faults,
        seed: a.seed,
    };
    match a.engine {
        BoardEngine::Model => {
            let what = a.clock.map_or("as fast as it can".to_string(), |hz| {
                format!("at {} MHz", hz / 1e6)
            });
            serve_board(&a, &what, |input, out| {
                // Each connection finds a board that has kept nothing (as after a power cycle).
                let mut board = Board::new(cfg.clone());
                board.serve(input, out)?;
                Ok(board.stats)
            })
        }
        BoardEngine::Verilator => {
            use queens_sim::verilator::{Top, Verilated};
            anyhow::ensure!(
                a.clock.is_none(),
                "--clock: the verilator board runs at the simulator's pace"
            );
            let core = queens_hdl::emit::CoreConfig::new(
                a.n as usize,
                a.solvers,
                ArbiterKind::Carry4,
                cfg.with_cycles,
            )?;
            eprintln!(
                "building the emitted core with Verilator ({} units)...",
                a.solvers
            );
            let design = Verilated::build(core, Top::Core, false)?;
            serve_board(&a, "Verilator", |input, out| {
                Ok(queens_sim::board::serve_verilated(
                    &design, cfg.faults, cfg.seed, input, out,
                )?)
            })
        }
    }
}

/// Serves hosts on a pseudo-terminal or, one connection at a time, on a TCP port.
fn serve_board(
    a: &BoardArgs,
    what: &str,
    mut serve: impl FnMut(
        Box<dyn std::io::Read + Send>,
        &mut dyn std::io::Write,
    ) -> anyhow::Result<queens_sim::board::BoardStats>,
) -> anyhow::Result<()> {
    if a.pty {
        let (port, path) = queens_sim::pty::open().context("opening a pseudo-terminal")?;
        println!(
            "simulated board N = {}, {} units, {what}: serial port {path}",
            a.n, a.solvers
        );
        let mut out = port.try_clone()?;
        serve(Box::new(port), &mut out)?;
        return Ok(());
    }
    let listener =
        std::net::TcpListener::bind(&a.listen).with_context(|| format!("listening on {}", a.listen))?;
    println!(
        "simulated board N = {}, {} units, {what}: listening on {}",
        a.n,
        a.solvers,
        listener.local_addr()?
    );
    for conn in listener.incoming() {
        let conn = conn?;
        let peer = conn.peer_addr()?;
        tracing::info!(%peer, "host connected");
        let _ = conn.set_nodelay(true);
        let mut out = conn.try_clone()?;
        match serve(Box::new(conn), &mut out) {
            Ok(stats) => println!("host {peer} left: {stats:?}"),
            Err(e) => tracing::warn!(%peer, "connection lost: {e}"),
        }
    }
    Ok(())
}

/// Every subproblem, or `sample` of them at evenly spaced canonical indices.
fn select(
    size: BoardSize,
    sample: Option<u64>,
    index: Option<u64>,
) -> anyhow::Result<Vec<(u64, Subproblem)>> {
    let mut all = canonical(size).enumerate().map(|(i, s)| (i as u64, s));
    if let Some(i) = index {
        return match all.nth(i as usize) {
            Some(s) => Ok(vec![s]),
            None => bail!("--index {i}: N = {} has fewer canonical subproblems", size.n()),
        };
    }
    Ok(match sample {
        None => all.collect(),
        Some(0) => bail!("--sample must be at least 1"),
        Some(s) => {
            let total = queens_core::Enumerator::new(size).census().total();
            let s = s.min(total);
            let mut want = (0..s).map(|k| k * total / s).peekable();
            all.filter(|(i, _)| {
                if want.peek() == Some(i) {
                    want.next();
                    true
                } else {
                    false
                }
            })
            .collect()
        }
    })
}

fn run_check(a: CheckArgs) -> anyhow::Result<()> {
    let size = board(a.n)?;
    let pool = pool(a.threads)?;
    let arbiter = a.arbiter;
    let verilator = matches!(a.engine, EngineName::Verilator);
    if !verilator && (a.vcd.is_some() || a.design.is_some()) {
        bail!("--vcd and --design need --engine verilator");
    }
    if let Some(s) = a.vcd.as_deref().and_then(queens_host::store::file::campaign_at) {
        bail!(
            "--vcd {}: that file is a campaign of N = {} and is not overwritten by a waveform; choose another name",
            a.vcd.as_ref().expect("given").display(),
            s.n()
        );
    }
    let subs = select(size, a.sample, a.index)?;
    if a.vcd.is_some() && subs.len() != 1 {
        bail!("--vcd records one subproblem: add --index I or --sample 1");
    }
    let engine: Box<dyn Engine> = match a.engine {
        EngineName::Model => Box::new(ModelEngine),
        EngineName::Rtl => Box::new(RtlEngine { arbiter }),
        EngineName::Verilator => {
            let mut e = VerilatorEngine::new(arbiter, a.solvers);
            if let Some(p) = &a.design {
                e.design = Some(
                    std::fs::read_to_string(p)
                        .with_context(|| format!("reading the design {}", p.display()))?,
                );
            }
            e.vcd = a.vcd.clone();
            Box::new(e)
        }
    };
    let start = Instant::now();
    let r: CheckReport = pool
        .install(|| check(engine.as_ref(), size, &subs))
        .map_err(anyhow::Error::msg)?;
    let seconds = start.elapsed().as_secs_f64();
    let board_cycles = engine.board_cycles();
    let report = Report {
        n: a.n,
        engine: engine.name(),
        subproblems: r.subproblems,
        total: r.tally.total(),
        mismatches: r.mismatch_count,
        first_mismatches: r
            .mismatches
            .iter()
            .map(|m| MismatchJson {
                index: m.index,
                preplacement: m.sub.pre.to_string(),
                expected: m.expected,
                got: m.got,
            })
            .collect(),
        cycles: r.cycles,
        board_cycles: board_cycles.map(|b| b.0),
        board_cycles_per_second: board_cycles.map(|(c, s)| c as f64 / s.max(1e-9)),
        seconds,
    };
    if a.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        let what = if a.sample.is_some() || a.index.is_some() {
            "weighted sum over the selection".to_string()
        } else {
            format!("Q({})", a.n)
        };
        println!(
            "{} engine, N = {}: {} subproblems, {what} = {}, {} unit cycles, {:.3} s",
            report.engine,
            a.n,
            grouped(report.subproblems as u128),
            grouped(report.total),
            grouped(report.cycles as u128),
            seconds
        );
        if let Some(c) = report.board_cycles {
            println!(
                "simulated board: {} clock cycles, {} cycles/s (build excluded)",
                grouped(c as u128),
                grouped(report.board_cycles_per_second.unwrap_or(0.0) as u128)
            );
        }
        if let Some(v) = &a.vcd {
            println!("waveform written to {}", v.display());
        }
        for m in &report.first_mismatches {
            println!(
                "MISMATCH subproblem #{} {}: circuit counted {}, software counts {}",
                m.index, m.preplacement, m.got, m.expected
            );
        }
    }
    if report.mismatches > 0 {
        bail!(
            "{} of {} subproblems disagree with the software counter",
            report.mismatches,
            report.subproblems
        );
    }
    Ok(())
}
