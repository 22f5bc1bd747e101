//! `queens hdl`: the circuits as Verilog, and what they cost.

use super::board;
use anyhow::Context;
use queens_hdl::board::fit::{fit, Fit};
use queens_hdl::board::{Board, Family, Link, Vendor};
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
    /// and the top for a board, with a design.json that records what was built. For a board
    /// (vc707, kc705, ml605, de4, ulx3s, or a board file) the directory also holds the constraints,
    /// the vendor build script and a README: a complete bitstream project.
    Emit(EmitArgs),
    /// How many solver units fit a board's device (yosys figures of one stage and of the
    /// front end, the device capacity and the board's fill factor), and the clock to ask for.
    Fit(FitArgs),
}

#[derive(clap::Args)]
pub struct FitArgs {
    /// A built-in board (vc707, kc705, ml605, de4, ulx3s) or a board file.
    #[arg(long)]
    board: String,
    /// Board size (default: the board's).
    #[arg(long, value_parser = super::parse_n)]
    n: Option<u32>,
    /// Arbiter (default: carry4 on Xilinx, adder on Altera).
    #[arg(long, value_parser = parse_kind)]
    arbiter: Option<ArbiterKind>,
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct EmitArgs {
    /// Target board: generic (the core behind a UART, no vendor files), a built-in board
    /// (vc707, kc705, ml605, de4, ulx3s) or a board file (path/to/my.toml).
    #[arg(long, default_value = "generic")]
    board: String,
    /// Output directory (created; files in it are replaced).
    #[arg(long)]
    out: std::path::PathBuf,
    /// Board size, 6..=32 (default: the board's, 27 for generic).
    #[arg(long, value_parser = super::parse_n)]
    n: Option<u32>,
    /// Solver units, 1..=1024 (default: as many as fit the board, 8 for generic).
    #[arg(long, value_parser = super::units())]
    solvers: Option<usize>,
    /// Arbiter implementation: adder, carry4 or prefix (default: carry4 on Xilinx boards,
    /// adder on Altera and generic).
    #[arg(long, value_parser = parse_kind)]
    arbiter: Option<ArbiterKind>,
    /// Compute clock in Hz (default: the board's; 100 MHz for generic). A board derives its
    /// clock primitive's settings from it, or says why it cannot.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1_000..=10_000_000_000))]
    clock_hz: Option<u64>,
    /// UART baud rate, 300..=100000000.
    #[arg(long, default_value_t = 115_200, value_parser = clap::value_parser!(u64).range(300..=100_000_000))]
    baud: u64,
    /// Results without the 48-bit cycle counter (the frames of the Queens@TUD boards).
    #[arg(long)]
    no_cycles: bool,
    /// The link of a board's top: uart, or pcie (XDMA, 7-series boards).
    #[arg(long, default_value = "uart", value_parser = parse_link)]
    link: Link,
}

fn parse_link(s: &str) -> Result<Link, String> {
    match s {
        "uart" => Ok(Link::Uart),
        "pcie" => Ok(Link::Pcie),
        _ => Err(format!("unknown link {s:?}: use uart or pcie")),
    }
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
    files: Vec<&'a str>,
}

#[derive(clap::Args)]
pub struct ReportArgs {
    /// Board size, 6..=32.
    #[arg(long, default_value_t = 27, value_parser = super::parse_n)]
    n: u32,
    /// Arbiter implementation: adder, carry4 or prefix (default: carry4 for the xc7 figures,
    /// adder with --pnr).
    #[arg(long, value_parser = parse_kind)]
    arbiter: Option<ArbiterKind>,
    /// Place and route on an ECP5 with the open tools (yosys synth_ecp5, nextpnr-ecp5): the
    /// unit and the stage out of context, and the whole board top with --solvers units.
    /// Takes minutes.
    #[arg(long)]
    pnr: bool,
    /// With --pnr: the arrays to route, units each, comma-separated; `fit` = as many as
    /// `hdl fit` puts on the board.
    #[arg(long, value_delimiter = ',', default_value = "8", value_parser = parse_units)]
    solvers: Vec<Units>,
    /// With --pnr: the ECP5 board whose top is routed.
    #[arg(long, default_value = "ulx3s")]
    board: String,
    /// With --pnr: the clock every design is asked for, in MHz (above what they reach, so
    /// that each is pushed as hard as the others).
    #[arg(long, default_value_t = 125.0, value_parser = parse_mhz)]
    target_mhz: f64,
    #[arg(long)]
    json: bool,
}

/// An array size for `report --pnr`.
#[derive(Debug, Clone, Copy)]
pub enum Units {
    Count(usize),
    Fit,
}

fn parse_units(s: &str) -> Result<Units, String> {
    match s {
        "fit" => Ok(Units::Fit),
        _ => match s.parse::<usize>() {
            Ok(k) if (1..=1024).contains(&k) => Ok(Units::Count(k)),
            _ => Err(format!("{s:?}: a unit count 1..=1024, or fit")),
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
        Command::Emit(a) if a.board == "generic" => emit(a),
        Command::Emit(a) => emit_board(a),
        Command::Fit(a) => fit_cmd(a),
    }
}

pub(super) fn default_arbiter(b: &Board) -> ArbiterKind {
    match b.vendor() {
        Vendor::Xilinx => ArbiterKind::Carry4,
        Vendor::Altera | Vendor::Lattice => ArbiterKind::Adder,
    }
}

/// Synthesizes one stage and the front end for `n` and fits them into the board.
pub(super) fn fit_board(b: &Board, n: u32, arbiter: ArbiterKind) -> anyhow::Result<(Fit, Cost, Cost)> {
    use queens_hdl::emit::{front_verilog, stage_verilog, CoreConfig};
    if b.family == Family::Ecp5 {
        let (f, stage, front) = super::pnr::fit_ecp5(b, n, arbiter)?;
        return Ok((f, super::pnr::cost(&stage), super::pnr::cost(&front)));
    }
    let size = board(n)?;
    let m = size.inner() as usize;
    let stage = synthesize(&stage_verilog(m, arbiter, "queens_stage"), "queens_stage")
        .context("synthesizing one solver stage")?;
    let cfg = CoreConfig::new(n as usize, 1024, arbiter, true)?;
    let front = synthesize(&front_verilog(&cfg, "queens_front"), "queens_front")
        .context("synthesizing the front end")?;
    Ok((fit(b, &stage, &front), stage, front))
}

#[derive(Serialize)]
struct FitJson<'a> {
    board: &'a str,
    part: &'a str,
    n: u32,
    arbiter: &'static str,
    #[serde(flatten)]
    fit: Fit,
    stage: CostJson,
    front: CostJson,
    device_luts: u64,
    device_flip_flops: u64,
    fill: f64,
    reference_units: Option<usize>,
    reference_clock_hz: Option<u64>,
}

fn fit_cmd(a: FitArgs) -> anyhow::Result<()> {
    let b = Board::load(&a.board)?;
    let n = a.n.unwrap_or(b.defaults.n as u32);
    let arbiter = a.arbiter.unwrap_or_else(|| default_arbiter(&b));
    let (f, stage, front) = fit_board(&b, n, arbiter)?;
    let clock = b.clock_for(f.clock_hz)?;
    if a.json {
        let j = FitJson {
            board: &b.name,
            part: &b.part,
            n,
            arbiter: arbiter.name(),
            fit: f,
            stage: (&stage).into(),
            front: (&front).into(),
            device_luts: b.device.luts,
            device_flip_flops: b.device.flip_flops,
            fill: b.defaults.fill,
            reference_units: b.reference.as_ref().map(|r| r.units),
            reference_clock_hz: b.reference.as_ref().map(|r| r.clock_hz),
        };
        println!("{}", serde_json::to_string(&j)?);
        return Ok(());
    }
    println!(
        "{} ({}), N = {n}, {} arbiter: {} solver units (limited by {} at {:.0}% fill)",
        b.name,
        b.part,
        arbiter.name(),
        f.units,
        f.limit,
        b.defaults.fill * 100.0
    );
    println!(
        "  stage {} LUT / {} FF, front end {} LUT / {} FF ({}): {} of {} LUTs ({:.0}%), {} of {} FFs ({:.0}%)",
        stage.lut_sites(),
        stage.ff,
        front.lut_sites(),
        front.ff,
        if b.family == Family::Ecp5 {
            "LUT4 sites, RAM included, placed and routed out of context by nextpnr-ecp5"
        } else {
            "yosys synth_xilinx"
        },
        f.luts,
        b.device.luts,
        f.lut_share * 100.0,
        f.flip_flops,
        b.device.flip_flops,
        f.ff_share * 100.0
    );
    println!(
        "  clock to ask for: {:.3} MHz ({}: divide {}, multiply {}, output divide {})",
        clock.output_hz(b.clock.hz as f64) / 1e6,
        clock.primitive.name(),
        clock.divide,
        clock.multiply,
        clock.output_divide
    );
    if let Some(r) = &b.reference {
        println!(
            "  Queens@TUD ran {} units at {:.1} MHz on this board",
            r.units,
            r.clock_hz as f64 / 1e6
        );
    }
    Ok(())
}

fn emit_board(a: EmitArgs) -> anyhow::Result<()> {
    use queens_hdl::board::build::{build_dir, BuildOptions};
    use queens_hdl::emit::CoreConfig;
    let b = Board::load(&a.board)?;
    let n = a.n.unwrap_or(b.defaults.n as u32);
    let size = board(n)?;
    let arbiter = a.arbiter.unwrap_or_else(|| default_arbiter(&b));
    let clock_hz = a.clock_hz.unwrap_or(b.defaults.clock_hz);
    let clock = b
        .clock_for(clock_hz)
        .with_context(|| format!("{}: a {} MHz compute clock", b.name, clock_hz as f64 / 1e6))?;
    let units = match a.solvers {
        Some(k) => k,
        None => {
            let (f, _, _) = fit_board(&b, n, arbiter)?;
            println!("{}: {} units fit (limited by {})", b.name, f.units, f.limit);
            f.units
        }
    };
    let core = CoreConfig::new(size.n() as usize, units, arbiter, !a.no_cycles)?;
    let dir = build_dir(
        &b,
        &BuildOptions {
            core,
            clock,
            baud: a.baud,
            link: a.link,
        },
    )?;
    let design = DesignJson {
        board: &b.name,
        n,
        solvers: units,
        arbiter: arbiter.name(),
        clock_hz: dir.compute_hz.round() as u64,
        baud: a.baud,
        uart_cycles_per_sample: dir.uart_cycles_per_sample,
        result_cycles: core.with_cycles,
        top: if a.link == Link::Pcie {
            "queens_pcie"
        } else {
            "queens_board"
        },
        files: dir.files.iter().map(|f| f.0.as_str()).collect(),
    };
    write_dir(
        &a.out,
        dir.files.iter().map(|(n, t)| (n.as_str(), t.as_str())),
        &design,
    )?;
    println!(
        "{} ({}): N = {n}, {units} solver units ({} arbiter), {:.3} MHz -> {}; build with `{}` there",
        b.name,
        b.part,
        arbiter.name(),
        dir.compute_hz / 1e6,
        a.out.display(),
        dir.command
    );
    Ok(())
}

fn emit(a: EmitArgs) -> anyhow::Result<()> {
    use queens_hdl::emit::{core_verilog, cycles_per_sample, uart_top_verilog, CoreConfig};
    let n = a.n.unwrap_or(27);
    let solvers = a.solvers.unwrap_or(8);
    let arbiter = a.arbiter.unwrap_or(ArbiterKind::Adder);
    let clock_hz = a.clock_hz.unwrap_or(100_000_000);
    let size = board(n)?;
    let cfg = CoreConfig::new(size.n() as usize, solvers, arbiter, !a.no_cycles)?;
    let cps = cycles_per_sample(clock_hz, a.baud)?;
    let files = [
        ("queens_core.v", core_verilog(&cfg, "queens_core")),
        ("queens_top.v", uart_top_verilog(cps, "queens_top", "queens_core")),
    ];
    let design = DesignJson {
        board: &a.board,
        n,
        solvers,
        arbiter: arbiter.name(),
        clock_hz,
        baud: a.baud,
        uart_cycles_per_sample: cps,
        result_cycles: cfg.with_cycles,
        top: "queens_top",
        files: files.iter().map(|f| f.0).collect(),
    };
    write_dir(&a.out, files.iter().map(|(n, t)| (*n, t.as_str())), &design)?;
    println!(
        "{}: N = {}, {} solver units ({} arbiter), {} Hz clock, {} baud -> {}",
        a.board,
        n,
        solvers,
        arbiter.name(),
        clock_hz,
        a.baud,
        a.out.display()
    );
    Ok(())
}

/// Writes the files of a design and its design.json into `out` (created if missing).
fn write_dir<'a>(
    out: &std::path::Path,
    files: impl IntoIterator<Item = (&'a str, &'a str)>,
    design: &DesignJson,
) -> anyhow::Result<()> {
    use std::path::{Component, Path};
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let design = serde_json::to_string_pretty(design)? + "\n";
    let write = |name: &str, text: &str| {
        // Only inside --out: a name is one plain component (a board's name makes some).
        let mut parts = Path::new(name).components();
        anyhow::ensure!(
            matches!((parts.next(), parts.next()), (Some(Component::Normal(_)), None)),
            "{name:?} is not a plain file name: refused, it would be written outside --out {}",
            out.display()
        );
        super::write_output("--out", &out.join(name), text.as_bytes())
    };
    for (name, text) in files {
        write(name, text)?;
    }
    write("design.json", &design)?;
    Ok(())
}

fn report(a: ReportArgs) -> anyhow::Result<()> {
    if a.pnr {
        return super::pnr::report(
            a.n,
            a.arbiter.unwrap_or(ArbiterKind::Adder),
            &a.board,
            &a.solvers,
            a.target_mhz,
            a.json,
        );
    }
    let arbiter = a.arbiter.unwrap_or(ArbiterKind::Carry4);
    let size = board(a.n)?;
    let m = size.inner() as usize;
    let v = queens_hdl::emit::unit_verilog(m, arbiter, "queens_unit");
    let unit = synthesize(&v, "queens_unit").context("synthesizing the unit")?;
    let v = queens_hdl::emit::stage_verilog(m, arbiter, "queens_stage");
    let stage = synthesize(&v, "queens_stage").context("synthesizing the stage")?;
    if a.json {
        let r = Report {
            n: a.n,
            arbiter: arbiter.name(),
            unit: (&unit).into(),
            stage: (&stage).into(),
        };
        println!("{}", serde_json::to_string(&r)?);
        return Ok(());
    }
    println!(
        "N = {} (inner {m} x {m}), {} arbiter, yosys synth_xilinx -family xc7 -flatten (synthesized, not placed; `--pnr` for routed ECP5 figures)",
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
