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
    /// Write the Verilog of a design: the board-independent core (byte streams in and out)
    /// and the top for a board, with a design.json that records what was built.
    Emit(EmitArgs),
}

#[derive(clap::Args)]
pub struct EmitArgs {
    /// Target board (generic: the core behind a UART, no vendor files).
    #[arg(long, default_value = "generic")]
    board: String,
    /// Output directory (created; files in it are replaced).
    #[arg(long)]
    out: std::path::PathBuf,
    /// Board size, 6..=32.
    #[arg(long, default_value_t = 27)]
    n: u32,
    /// Solver units, 1..=1024.
    #[arg(long, default_value_t = 8)]
    solvers: usize,
    /// Arbiter implementation: adder, carry4 or prefix.
    #[arg(long, default_value = "adder", value_parser = parse_kind)]
    arbiter: ArbiterKind,
    /// Design clock in Hz (generic board).
    #[arg(long, default_value_t = 100_000_000)]
    clock_hz: u64,
    /// UART baud rate.
    #[arg(long, default_value_t = 115_200)]
    baud: u64,
    /// Results without the 48-bit cycle counter (the frames of the Queens@TUD boards).
    #[arg(long)]
    no_cycles: bool,
}

/// What `hdl emit` built, for the host and for people.
#[derive(Serialize)]
struct DesignJson<'a> {
    board: &'a str,
    n: u32,
    solvers: usize,
    arbiter: &'static str,
    clock_hz: u64,
    baud: u64,
    uart_cycles_per_sample: u32,
    result_cycles: bool,
    top: &'static str,
    files: Vec<&'static str>,
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

pub fn parse_kind(s: &str) -> Result<ArbiterKind, String> {
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
        Command::Emit(a) => emit(a),
    }
}

fn emit(a: EmitArgs) -> anyhow::Result<()> {
    use queens_hdl::emit::{core_verilog, cycles_per_sample, uart_top_verilog, CoreConfig};
    if a.board != "generic" {
        anyhow::bail!("--board {}: unknown board (known: generic)", a.board);
    }
    let size = board(a.n)?;
    let cfg = CoreConfig::new(size.n() as usize, a.solvers, a.arbiter, !a.no_cycles)?;
    let cps = cycles_per_sample(a.clock_hz, a.baud)?;
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let files = [
        ("queens_core.v", core_verilog(&cfg, "queens_core")),
        ("queens_top.v", uart_top_verilog(cps, "queens_top", "queens_core")),
    ];
    for (name, text) in &files {
        write_new(&a.out.join(name), text)?;
    }
    let design = DesignJson {
        board: &a.board,
        n: a.n,
        solvers: a.solvers,
        arbiter: a.arbiter.name(),
        clock_hz: a.clock_hz,
        baud: a.baud,
        uart_cycles_per_sample: cps,
        result_cycles: cfg.with_cycles,
        top: "queens_top",
        files: files.iter().map(|f| f.0).collect(),
    };
    write_new(
        &a.out.join("design.json"),
        &(serde_json::to_string_pretty(&design)? + "\n"),
    )?;
    println!(
        "{}: N = {}, {} solver units ({} arbiter), {} Hz clock, {} baud -> {}",
        a.board,
        a.n,
        a.solvers,
        a.arbiter.name(),
        a.clock_hz,
        a.baud,
        a.out.display()
    );
    Ok(())
}

/// Writes a file whole: to a temporary name first, then renamed over the old one.
fn write_new(path: &std::path::Path, text: &str) -> anyhow::Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path)
        .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))?;
    Ok(())
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
