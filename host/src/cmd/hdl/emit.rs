//! `queens hdl emit`: the Verilog of a design, and for a board a whole bitstream project.

use super::parse_kind;
use anyhow::Context;
use queens_core::BoardSize;
use queens_hdl::board::{generic, Board, HostLink};
use queens_hdl::ArbiterKind;
use serde::Serialize;

#[derive(clap::Args)]
pub struct EmitArgs {
    /// Target board: generic (the core behind a UART, no vendor files), a built-in board
    /// (vc707, kc705, ml605, de4, ulx3s, u55c) or a board file (path/to/my.toml).
    #[arg(long, default_value = "generic")]
    board: String,
    /// Output directory (created; files in it are replaced).
    #[arg(long)]
    out: std::path::PathBuf,
    /// Board size, 6..=32 (default: the board's, 27 for generic).
    #[arg(long)]
    n: Option<BoardSize>,
    /// Solver units, 1..=4096 (default: as many as fit the board, 8 for generic).
    #[arg(long, value_parser = crate::cmd::units())]
    solvers: Option<usize>,
    /// Arbiter implementation: adder, carry4, ccu2c or prefix (default: carry4 on Xilinx
    /// boards, ccu2c on the ECP5, adder on Altera and generic).
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
    link: HostLink,
    #[command(flatten)]
    unit: crate::cmd::UnitArg,
}

fn parse_link(s: &str) -> Result<HostLink, String> {
    match s {
        "uart" => Ok(HostLink::Uart),
        "pcie" => Ok(HostLink::Pcie),
        _ => Err(format!("unknown link {s:?}: use uart or pcie")),
    }
}

pub(super) fn run(a: EmitArgs) -> anyhow::Result<()> {
    if a.board == generic::NAME {
        generic_design(a)
    } else {
        on_board(a)
    }
}

/// What `hdl emit` built, for the host and for people.
#[derive(Serialize)]
struct DesignJson<'a> {
    board: &'a str,
    n: u32,
    solvers: usize,
    /// Of them, the first whose tally is in UltraRAM (UltraScale+ boards).
    #[serde(skip_serializing_if = "is_zero")]
    ultra_units: usize,
    /// The tally's form (`[build] tally`), for units that keep one.
    #[serde(skip_serializing_if = "Option::is_none")]
    tally: Option<queens_hdl::solver::tally::TallyPipe>,
    arbiter: &'static str,
    clock_hz: u64,
    baud: u64,
    uart_cycles_per_sample: u32,
    result_cycles: bool,
    top: &'static str,
    files: Vec<&'a str>,
    /// What the board answers an identification request with (`queens board check
    /// --design` compares the two).
    ident: queens_core::ident::Ident,
}

fn on_board(a: EmitArgs) -> anyhow::Result<()> {
    use queens_hdl::board::build::{build_dir, BuildOptions};
    use queens_hdl::emit::CoreConfig;
    let b = Board::load(&a.board)?;
    let size = a.n.map_or_else(|| BoardSize::new(b.defaults.n as u32), Ok)?;
    let n = size.n();
    let arbiter = a.arbiter.unwrap_or_else(|| b.default_arbiter());
    b.check_arbiter(arbiter)?;
    let clock_hz = a.clock_hz.unwrap_or(b.defaults.clock_hz);
    let clock = b
        .clock_for(clock_hz)
        .with_context(|| format!("{}: a {} MHz compute clock", b.name, clock_hz as f64 / 1e6))?;
    let unit = a.unit.on_board(&b, size, !a.no_cycles)?;
    let units = match a.solvers {
        Some(k) => k,
        None => {
            let (units, limit) = super::fit::emit_units(&b, n, unit, arbiter)?;
            println!("{}: {units} {unit} units fit (limited by {limit})", b.name);
            units
        }
    };
    let ultra = queens_hdl::board::fit::ultra_stages(&b, unit, units);
    let core = CoreConfig::new(size.n() as usize, units, unit, arbiter, !a.no_cycles)?
        .with_ultra(ultra)?
        .with_pipe(b.tally_pipe());
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
        ultra_units: ultra,
        tally: queens_hdl::kind::of(unit).has_tally().then_some(core.pipe),
        arbiter: arbiter.name(),
        clock_hz: dir.compute_hz.round() as u64,
        baud: a.baud,
        uart_cycles_per_sample: dir.uart_cycles_per_sample,
        result_cycles: core.with_cycles,
        top: if a.link == HostLink::Pcie {
            "queens_pcie"
        } else {
            "queens_board"
        },
        files: dir.files.iter().map(|f| f.0.as_str()).collect(),
        ident: dir.core.ident(),
    };
    write_dir(
        &a.out,
        dir.files.iter().map(|(n, t)| (n.as_str(), t.as_str())),
        &design,
    )?;
    println!(
        "{} ({}): N = {n}, {units} {unit} solver units ({} arbiter), {:.3} MHz -> {}; build with `{}` there",
        b.name,
        b.part,
        arbiter.name(),
        dir.compute_hz / 1e6,
        a.out.display(),
        dir.command
    );
    if ultra > 0 {
        println!(
            "  the tally of the first {ultra} units in UltraRAM, of the other {} in block RAM",
            units - ultra
        );
    }
    if queens_hdl::kind::of(unit).has_tally() {
        println!("  the tally: {} (the board file's [build] tally)", core.pipe);
    }
    Ok(())
}

fn is_zero(k: &usize) -> bool {
    *k == 0
}

fn generic_design(a: EmitArgs) -> anyhow::Result<()> {
    use queens_hdl::emit::{core_verilog, cycles_per_sample, uart_top_verilog, CoreConfig};
    let size = a.n.map_or_else(|| BoardSize::new(generic::N), Ok)?;
    let n = size.n();
    let solvers = a.solvers.unwrap_or(generic::UNITS);
    let arbiter = a.arbiter.unwrap_or(generic::ARBITER);
    let clock_hz = a.clock_hz.unwrap_or(generic::CLOCK_HZ);
    let cps = cycles_per_sample(clock_hz, a.baud)?;
    let unit = a.unit.circuit(size, !a.no_cycles)?;
    let cfg = CoreConfig::new(size.n() as usize, solvers, unit, arbiter, !a.no_cycles)?
        .built(&format!("board=generic link=uart baud={}", a.baud), clock_hz);
    let files = [
        ("queens_core.v", core_verilog(&cfg, "queens_core")),
        ("queens_top.v", uart_top_verilog(cps, "queens_top", "queens_core")),
    ];
    let design = DesignJson {
        board: &a.board,
        n,
        solvers,
        ultra_units: 0,
        tally: queens_hdl::kind::of(unit).has_tally().then_some(cfg.pipe),
        arbiter: arbiter.name(),
        clock_hz,
        baud: a.baud,
        uart_cycles_per_sample: cps,
        result_cycles: cfg.with_cycles,
        top: "queens_top",
        files: files.iter().map(|f| f.0).collect(),
        ident: cfg.ident(),
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
        crate::cmd::write_output("--out", &out.join(name), text.as_bytes())
    };
    for (name, text) in files {
        write(name, text)?;
    }
    write("design.json", &design)?;
    Ok(())
}
