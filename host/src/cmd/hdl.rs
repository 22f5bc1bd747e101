//! `queens hdl`: the circuits as Verilog, and what they cost.

use super::board;
use anyhow::Context;
use queens_hdl::report::{synthesize, Cost};
use queens_hdl::ArbiterKind;
use serde::Serialize;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Synthesize the bare solver unit and one solver stage with yosys (synth_xilinx -family xc7
    /// -flatten) and print LUTs, flip-flops, CARRY4 cells and the longest flip-flop-to-flip-flop
    /// path in cells.
    Report(ReportArgs),
}

#[derive(clap::Args)]
pub struct ReportArgs {
    /// Board size, 6..=32.
    #[arg(long, default_value_t = 27)]
    n: u32,
    /// Arbiter implementation: adder, carry4 or prefix.
    #[arg(long, default_value = "carry4", value_parser = parse_kind)]
    arbiter: ArbiterKind,
    #[arg(long)]
    json: bool,
}

fn parse_kind(s: &str) -> Result<ArbiterKind, String> {
    ArbiterKind::parse(s).ok_or_else(|| format!("unknown arbiter {s:?}: use adder, carry4 or prefix"))
}

#[derive(Serialize)]
struct CostJson {
    lut: u64,
    lutram: u64,
    ff: u64,
    carry4: u64,
    longest_path: u64,
}

impl From<&Cost> for CostJson {
    fn from(c: &Cost) -> Self {
        Self {
            lut: c.lut_sites(),
            lutram: c.lutram,
            ff: c.ff,
            carry4: c.carry4,
            longest_path: c.longest_path,
        }
    }
}

#[derive(Serialize)]
struct Report {
    n: u32,
    arbiter: &'static str,
    unit: CostJson,
    stage: CostJson,
}

pub fn run(cmd: Command) -> anyhow::Result<()> {
    match cmd {
        Command::Report(a) => report(a),
    }
}

fn report(a: ReportArgs) -> anyhow::Result<()> {
    let size = board(a.n)?;
    let m = size.inner() as usize;
    let v = queens_hdl::emit::unit_verilog(m, a.arbiter, "queens_unit");
    let unit = synthesize(&v, "queens_unit").context("synthesizing the unit")?;
    let v = queens_hdl::emit::stage_verilog(m, a.arbiter, "queens_stage");
    let stage = synthesize(&v, "queens_stage").context("synthesizing the stage")?;
    if a.json {
        let r = Report {
            n: a.n,
            arbiter: a.arbiter.name(),
            unit: (&unit).into(),
            stage: (&stage).into(),
        };
        println!("{}", serde_json::to_string(&r)?);
        return Ok(());
    }
    println!(
        "N = {} (inner {m} x {m}), {} arbiter, yosys synth_xilinx -family xc7 -flatten",
        a.n,
        a.arbiter.name()
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
