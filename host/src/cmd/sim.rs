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
    /// its clock, and the units Queens@TUD ran on it unless --solvers says) or a board file.
    #[arg(long, default_value = "generic")]
    board: String,
    /// Board size, 6..=32 (default: the board's; 27 for generic).
    #[arg(long)]
    n: Option<u32>,
    /// Subproblems to run through the model, spread evenly over the canonical order.
    #[arg(long, default_value_t = 256)]
    sample: u64,
    /// Solver units on the board (generic: 360).
    #[arg(long)]
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
    #[arg(long)]
    threads: Option<usize>,
    #[arg(long)]
    json: bool,
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
    use queens_sim::estimate::{estimate, BoardSpeed};
    let (n, solvers, clock) = if a.board == "generic" {
        (
            a.n.unwrap_or(27),
            a.solvers.unwrap_or(360),
            a.clock.unwrap_or(250e6),
        )
    } else {
        let b = queens_hdl::board::Board::load(&a.board)?;
        let units = match (a.solvers, &b.reference) {
            (Some(k), _) => k,
            (None, Some(r)) => r.units,
            (None, None) => bail!(
                "{}: the board file has no reference units; give --solvers",
                b.name
            ),
        };
        (
            a.n.unwrap_or(b.defaults.n as u32),
            units,
            a.clock.unwrap_or(b.defaults.clock_hz as f64),
        )
    };
    let size = board(n)?;
    anyhow::ensure!(solvers > 0, "--solvers must be at least 1");
    anyhow::ensure!(a.baud > 0, "--baud must be positive");
    let pool = pool(a.threads)?;
    let total = queens_core::Enumerator::new(size).census().total();
    let subs: Vec<Subproblem> = select(size, Some(a.sample), None)?
        .into_iter()
        .map(|s| s.1)
        .collect();
    let speed = BoardSpeed {
        units: solvers,
        clock_hz: clock,
        link_bytes_per_s: a.baud as f64 / 10.0,
        with_cycles: !a.no_cycles,
    };
    let e = pool.install(|| estimate(size, &subs, total, speed));
    if a.json {
        println!("{}", serde_json::to_string(&e)?);
        return Ok(());
    }
    println!(
        "{}, N = {n}: {} subproblems; {} sampled, mean {:.0} unit cycles (± {:.1}%)",
        a.board,
        grouped(total as u128),
        e.sampled,
        e.mean_cycles,
        100.0 * e.mean_cycles_stderr / e.mean_cycles.max(1.0)
    );
    println!(
        "{} units at {:.0} MHz: {:.3} h of solving; link at {} baud: {:.3} h of frames; estimate {:.3} h ({}-bound)",
        solvers,
        clock / 1e6,
        e.compute_hours,
        a.baud,
        e.link_hours,
        e.hours,
        if e.link_hours > e.compute_hours { "link" } else { "solver" }
    );
    Ok(())
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
