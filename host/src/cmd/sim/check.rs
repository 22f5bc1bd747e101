//! `queens sim check`: subproblems through a simulated circuit, every count compared with
//! the software counter.

use super::engines;
use crate::cmd::{pool, thousands};
use anyhow::bail;
use queens_core::{BoardSize, UnitKind};
use queens_hdl::ArbiterKind;
use queens_sim::{check, select, CheckReport, Engine, ModelEngine, RtlEngine, Selection};
use serde::Serialize;
use std::time::Instant;

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum EngineName {
    /// The fast cycle model (machine words, all cores).
    Model,
    /// rust-hdl's own simulator on the unit circuit of `queens-hdl`.
    Rtl,
    /// The emitted core compiled with Verilator: frames in and out as bytes, through the
    /// frame parser, an array of `--solvers` units and the framer.
    Verilator,
    /// The board top of `--board` as its build makes it (ECP5: placed and routed by
    /// nextpnr, or synthesized with --synthesized; Xilinx 7-series: yosys synth_xilinx),
    /// on the vendor's cell models under Verilator, driven through its clock and UART pins.
    Netlist,
}

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Board size, 6..=32.
    n: BoardSize,
    #[arg(long, value_enum, default_value = "model")]
    engine: EngineName,
    /// Only S subproblems, spread evenly over the canonical order.
    #[arg(long, value_name = "S", conflicts_with = "index")]
    sample: Option<u64>,
    /// Only the subproblem at this canonical index.
    #[arg(long, value_name = "I")]
    index: Option<u64>,
    /// Solver units in the simulated array (verilator engine: default 16; netlist: 2).
    #[arg(long, value_name = "K", value_parser = crate::cmd::units())]
    solvers: Option<usize>,
    /// The board whose netlist runs (netlist engine): ulx3s, kc705, vc707, u55c (its PCIe
    /// stream top) or a board file.
    #[arg(long, value_name = "B")]
    board: Option<String>,
    /// The ECP5 netlist after synthesis rather than after place and route (netlist engine).
    #[arg(long)]
    synthesized: bool,
    /// (Grouped units walk every pre-placement sharing a west, north and east side in one
    /// walk, each count read off the group's answer and its cycles a share of the walk's,
    /// compared with the grouped walk's model; the rtl engine runs them for N = 8 to 11.
    /// --vcd, --synthesized and verilator --design run plain units.)
    #[command(flatten)]
    unit: crate::cmd::UnitArg,
    /// Arbiter form of the circuits (rtl and verilator engines).
    #[arg(long, default_value = "carry4", value_parser = crate::cmd::hdl::parse_kind)]
    arbiter: ArbiterKind,
    /// Run this core instead of the emitted one (Verilog with top module `queens_core`, e.g.
    /// an emitted core changed by hand; verilator engine), or this netlist instead of the
    /// one the flow makes (top module `queens_board`, e.g. the printed netlist.v changed by
    /// hand; netlist engine).
    #[arg(long, value_name = "FILE")]
    design: Option<std::path::PathBuf>,
    /// Write a waveform (VCD, for GTKWave) of a check of one subproblem (verilator engine).
    #[arg(long, value_name = "FILE")]
    vcd: Option<std::path::PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = crate::cmd::parse_threads)]
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
    /// Subproblems whose unit cycles differ from the cycle model's.
    cycle_mismatches: u64,
    first_cycle_mismatches: Vec<MismatchJson>,
    cycles: u64,
    /// The netlist that ran (netlist engine).
    #[serde(skip_serializing_if = "Option::is_none")]
    netlist: Option<String>,
    /// Clock cycles of the simulated board and their rate, build excluded (verilator engine).
    #[serde(skip_serializing_if = "Option::is_none")]
    board_cycles: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    board_cycles_per_second: Option<f64>,
    seconds: f64,
}

pub(super) fn run(a: CheckArgs) -> anyhow::Result<()> {
    let size = a.n;
    let pool = pool(a.threads)?;
    let verilator = matches!(a.engine, EngineName::Verilator);
    let netlist = matches!(a.engine, EngineName::Netlist);
    if !verilator && a.vcd.is_some() {
        bail!("--vcd needs --engine verilator");
    }
    if !verilator && !netlist && a.design.is_some() {
        bail!("--design needs --engine verilator or netlist");
    }
    if netlist != a.board.is_some() {
        bail!("--engine netlist and --board go together (the board whose netlist runs)");
    }
    if a.synthesized && !netlist {
        bail!("--synthesized needs --engine netlist");
    }
    if let Some(s) = a.vcd.as_deref().and_then(queens_host::store::file::campaign_at) {
        bail!(
            "--vcd {}: that file is a campaign of N = {} and is not overwritten by a waveform; choose another name",
            a.vcd.as_ref().expect("given").display(),
            s.n()
        );
    }
    let selection = match (a.index, a.sample) {
        (Some(i), _) => Selection::Index(i),
        (None, Some(0)) => bail!("--sample must be at least 1"),
        (None, Some(s)) => Selection::Sample(s),
        (None, None) => Selection::All,
    };
    let Some(subs) = select(size, selection) else {
        bail!(
            "--index {}: N = {} has fewer canonical subproblems",
            a.index.unwrap_or_default(),
            size.n()
        );
    };
    if a.vcd.is_some() && subs.len() != 1 {
        bail!("--vcd records one subproblem: add --index I or --sample 1");
    }
    let plain_only = a.vcd.is_some() || (a.design.is_some() && verilator) || a.synthesized;
    let unit = match (a.unit.unit, plain_only) {
        (None, true) => UnitKind::Plain,
        (Some(UnitKind::Grouped), true) => bail!(
            "--unit grouped runs the emitted grouped core or the routed netlist: no --vcd, --synthesized or verilator --design"
        ),
        _ if matches!(a.engine, EngineName::Model) => a.unit.model(true)?,
        // A board's netlist is built of the unit its board file names, if it names one.
        _ => match &a.board {
            Some(b) => a.unit.on_board(&queens_hdl::board::Board::load(b)?, size, true)?,
            None => a.unit.circuit(size, true)?,
        },
    };
    let mut netlist_path = None;
    let engine: Box<dyn Engine> = if unit == UnitKind::Grouped {
        use queens_sim::group_check::{GroupModel, Grouped, RtlGroupCore, VerilatorGroupCore};
        match a.engine {
            EngineName::Model => Box::new(Grouped(GroupModel)),
            EngineName::Rtl => Box::new(Grouped(RtlGroupCore { arbiter: a.arbiter })),
            EngineName::Verilator => Box::new(Grouped(VerilatorGroupCore {
                arbiter: a.arbiter,
                units: a.solvers.unwrap_or(16),
                // The board's form with --board, else the direct one.
                pipe: match a.board.as_deref() {
                    Some(b) => queens_hdl::board::Board::load(b)?.tally_pipe(),
                    None => Default::default(),
                },
            })),
            EngineName::Netlist => {
                let board = a.board.as_deref().expect("checked with the engine");
                let e = engines::netlist(
                    board,
                    a.n,
                    a.solvers.unwrap_or(2),
                    unit,
                    false,
                    a.design.as_deref(),
                )?;
                netlist_path = Some(match &a.design {
                    Some(p) => p.display().to_string(),
                    None => e.netlist.dir.join("netlist.v").display().to_string(),
                });
                Box::new(Grouped(e))
            }
        }
    } else {
        match a.engine {
            EngineName::Model => Box::new(ModelEngine),
            EngineName::Rtl => Box::new(RtlEngine { arbiter: a.arbiter }),
            EngineName::Netlist => {
                let board = a.board.as_deref().expect("checked with the engine");
                let units = a.solvers.unwrap_or(2);
                let e = engines::netlist(board, a.n, units, unit, a.synthesized, a.design.as_deref())?;
                netlist_path = Some(match &a.design {
                    Some(p) => p.display().to_string(),
                    None => e.netlist.dir.join("netlist.v").display().to_string(),
                });
                Box::new(e)
            }
            EngineName::Verilator => {
                let units = a.solvers.unwrap_or(16);
                Box::new(engines::verilator(
                    a.arbiter,
                    units,
                    a.design.as_deref(),
                    a.vcd.clone(),
                )?)
            }
        }
    };
    let start = Instant::now();
    let r: CheckReport = pool
        .install(|| check(engine.as_ref(), size, &subs))
        .map_err(anyhow::Error::msg)?;
    let board_cycles = engine.board_cycles();
    let report = Report {
        n: size.n(),
        engine: engine.name(),
        subproblems: r.subproblems,
        total: r.tally.total(),
        mismatches: r.mismatch_count,
        first_mismatches: r.mismatches.iter().map(mismatch_json).collect(),
        cycle_mismatches: r.cycle_mismatch_count,
        first_cycle_mismatches: r.cycle_mismatches.iter().map(mismatch_json).collect(),
        cycles: r.cycles,
        netlist: netlist_path,
        board_cycles: board_cycles.map(|b| b.0),
        board_cycles_per_second: board_cycles.map(|(c, s)| c as f64 / s.max(1e-9)),
        seconds: start.elapsed().as_secs_f64(),
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
            thousands(report.subproblems as u128),
            thousands(report.total),
            thousands(report.cycles as u128),
            report.seconds
        );
        if let Some(c) = report.board_cycles {
            println!(
                "simulated board: {} clock cycles, {} cycles/s (build excluded)",
                thousands(c as u128),
                thousands(report.board_cycles_per_second.unwrap_or(0.0) as u128)
            );
        }
        if let Some(v) = &a.vcd {
            println!("waveform written to {}", v.display());
        }
        if let Some(p) = &report.netlist {
            println!("netlist: {p}");
        }
        for m in &report.first_mismatches {
            println!(
                "MISMATCH subproblem #{} {}: circuit counted {}, software counts {}",
                m.index, m.preplacement, m.got, m.expected
            );
        }
        for m in &report.first_cycle_mismatches {
            println!(
                "CYCLES subproblem #{} {}: circuit took {} unit cycles, the cycle model {}",
                m.index, m.preplacement, m.got, m.expected
            );
        }
    }
    anyhow::ensure!(
        report.mismatches == 0,
        "{} of {} subproblems disagree with the software counter (the first: #{})",
        report.mismatches,
        report.subproblems,
        report.first_mismatches[0].index
    );
    anyhow::ensure!(
        report.cycle_mismatches == 0,
        "{} of {} subproblems took other unit cycles than the cycle model (the first: #{})",
        report.cycle_mismatches,
        report.subproblems,
        report.first_cycle_mismatches[0].index
    );
    Ok(())
}

fn mismatch_json(m: &queens_sim::Mismatch) -> MismatchJson {
    MismatchJson {
        index: m.index,
        preplacement: m.sub.pre.to_string(),
        expected: m.expected,
        got: m.got,
    }
}
