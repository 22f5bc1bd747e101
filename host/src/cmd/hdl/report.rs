//! `queens hdl report`: yosys figures of the unit and the stage, or routed ECP5 figures
//! (`--pnr`, in [`super::routed`]).

use super::{parse_kind, CostJson};
use anyhow::Context;
use queens_core::BoardSize;
use queens_hdl::pnr::figures::Units;
use queens_hdl::report::synthesize;
use queens_hdl::solver::tally::TallyPipe;
use queens_hdl::ArbiterKind;
use serde::Serialize;

#[derive(clap::Args)]
pub struct ReportArgs {
    /// Board size, 6..=32.
    #[arg(long, default_value = "27")]
    pub(in crate::cmd) n: BoardSize,
    /// Arbiter implementation: adder, carry4, ccu2c or prefix (default: carry4 for the xc7
    /// figures, the board's with --pnr: ccu2c on the ECP5).
    #[arg(long, value_parser = parse_kind)]
    pub(in crate::cmd) arbiter: Option<ArbiterKind>,
    /// Place and route on an ECP5 with the open tools (yosys synth_ecp5, nextpnr-ecp5): the
    /// unit and the stage out of context, and the whole board top with --solvers units.
    /// Takes minutes.
    #[arg(long)]
    pub(in crate::cmd) pnr: bool,
    /// With --pnr: the arrays to route, units each, comma-separated; `fit` = as many as
    /// `hdl fit` puts on the board.
    #[arg(long, value_delimiter = ',', default_value = "8", value_parser = parse_units)]
    pub(in crate::cmd) solvers: Vec<Units>,
    /// With --pnr: the ECP5 board whose top is routed.
    #[arg(long, default_value = "ulx3s")]
    pub(in crate::cmd) board: String,
    /// The grouped tally's form, direct or registered (default: with --pnr, the board
    /// file's `[build] tally`; without, direct).
    #[arg(long, value_parser = str::parse::<TallyPipe>)]
    pub(in crate::cmd) tally: Option<TallyPipe>,
    /// With --pnr: the clock every design is asked for, in MHz (above what they reach, so
    /// that each is pushed as hard as the others).
    #[arg(long, default_value_t = 125.0, value_parser = parse_mhz)]
    pub(in crate::cmd) target_mhz: f64,
    /// With --pnr: keep each design's tool files (sources, netlist, yosys' log, and each
    /// seed's nextpnr log and report with every critical path) in DIR/<design>.
    #[arg(long, value_name = "DIR")]
    pub(in crate::cmd) keep: Option<std::path::PathBuf>,
    /// With --pnr: synthesize every design once and route that netlist with placer seeds
    /// 1..=K (as many at once as there are cores); give the median clock beside each seed's
    /// (routed clocks vary by several percent from seed to seed); an array's clock is
    /// compared with the stage's by median.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=25))]
    pub(in crate::cmd) seeds: u64,
    /// With --pnr: route the arrays with seeds 1..=K instead (a full-device array takes
    /// half an hour a seed).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..=25))]
    pub(in crate::cmd) array_seeds: Option<u64>,
    /// With --pnr: more arguments for nextpnr-ecp5 on every design, e.g.
    /// --nextpnr-args="--placer-heap-timingweight 30" (placer and router settings to try).
    #[arg(long, value_name = "ARGS", allow_hyphen_values = true)]
    pub(in crate::cmd) nextpnr_args: Option<String>,
    /// (The unit, the stage and the arrays are all of this kind.)
    #[command(flatten)]
    pub(in crate::cmd) unit: crate::cmd::UnitArg,
    #[arg(long)]
    pub(in crate::cmd) json: bool,
}

fn parse_units(s: &str) -> Result<Units, String> {
    match s {
        "fit" => Ok(Units::Fit),
        _ => match s.parse::<usize>() {
            Ok(k) if (1..=crate::cmd::MAX_UNITS as usize).contains(&k) => Ok(Units::Count(k)),
            _ => Err(format!(
                "{s:?}: a unit count 1..={}, or fit",
                crate::cmd::MAX_UNITS
            )),
        },
    }
}

/// A clock in MHz, 1..=10000 (the ECP5 flow checks its own narrower range).
fn parse_mhz(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if (1.0..=10_000.0).contains(&x) => Ok(x),
        _ => Err("expected a clock in MHz, 1 to 10000".into()),
    }
}

#[derive(Serialize)]
struct Report {
    n: u32,
    arbiter: &'static str,
    unit_kind: queens_core::UnitKind,
    unit: CostJson,
    stage: CostJson,
}

/// The figures without `--pnr` (with it, [`super::routed`]'s).
pub(super) fn run(a: ReportArgs) -> anyhow::Result<()> {
    let arbiter = a.arbiter.unwrap_or(ArbiterKind::Carry4);
    // The xc7 figures are of a Kintex-7: a form has to build there.
    let xc7 = queens_hdl::board::Family::Kintex7;
    anyhow::ensure!(
        xc7.builds(arbiter),
        "--arbiter {} is made of {} cells: the xc7 figures take {} (--pnr routes it on an ECP5)",
        arbiter.name(),
        arbiter.primitive().unwrap_or_default(),
        xc7.arbiters()
    );
    let m = a.n.inner() as usize;
    let unit_kind = a.unit.circuit(a.n, true)?;
    let pipe = a.tally.unwrap_or_default();
    let part = queens_hdl::emit::Part {
        unit: unit_kind,
        m,
        arbiter,
        pipe,
    };
    let v = queens_hdl::emit::unit_verilog(part, "queens_unit");
    let unit = synthesize(&v, "queens_unit").context("synthesizing the unit")?;
    let v = queens_hdl::emit::stage_verilog(part, "queens_stage");
    let stage = synthesize(&v, "queens_stage").context("synthesizing the stage")?;
    if a.json {
        let r = Report {
            n: a.n.n(),
            arbiter: arbiter.name(),
            unit_kind,
            unit: (&unit).into(),
            stage: (&stage).into(),
        };
        println!("{}", serde_json::to_string(&r)?);
        return Ok(());
    }
    println!(
        "N = {} (inner {m} x {m}), {unit_kind} units, {} arbiter, yosys synth_xilinx -family xc7 -flatten (synthesized, not placed; `--pnr` for routed ECP5 figures)",
        a.n,
        arbiter.name()
    );
    for (what, c) in [("unit", &unit), ("stage", &stage)] {
        println!(
            "{what}: {} LUT ({} logic + {} in LUT-RAM), {} FF, {} CARRY4, {} MUXF7/8, longest path {} cells",
            c.lut_sites(),
            c.lut,
            c.lutram,
            c.ff,
            c.carry4,
            c.muxf,
            c.longest_path
        );
        println!("  path: {}", c.path.join(" -> "));
    }
    Ok(())
}
