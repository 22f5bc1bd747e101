//! `queens hdl`: the circuits as Verilog, and what they cost. One file per subcommand:
//! [`emit`], [`fit`], [`report`] (its routed figures in [`routed`]).

mod emit;
mod fit;
mod report;
mod routed;

pub(super) use fit::estimate_units;

use emit::EmitArgs;
use fit::FitArgs;
use queens_hdl::report::Cost;
use queens_hdl::ArbiterKind;
use report::ReportArgs;
use serde::Serialize;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Synthesize the bare solver unit and one solver stage with yosys (synth_xilinx -family xc7
    /// -flatten) and print LUTs, flip-flops, CARRY4 cells and the longest flip-flop-to-flip-flop
    /// path in cells. With --pnr: placed and routed on an ECP5 with the open tools.
    #[command(after_help = "Examples:
  queens hdl report                              # xc7 cells of the unit and the stage
  queens hdl report --pnr --solvers 8 --seeds 3  # routed on the ULX3S's ECP5, minutes")]
    Report(ReportArgs),
    /// Write the Verilog of a design: the board-independent core (byte streams in and out)
    /// and the top for a board, with a design.json that records what was built. For a board
    /// (vc707, kc705, ml605, de4, ulx3s, u55c, or a board file) the directory also holds the constraints,
    /// the vendor build script and a README: a complete bitstream project.
    #[command(after_help = "Examples:
  queens hdl emit --board ulx3s --out ulx3s-build         # then: cd ulx3s-build && sh build.sh
  queens hdl emit --board kc705 --n 27 --out kc705-build  # Vivado project, units as fit
  queens hdl emit --board vc707 --link pcie --out vc707-pcie")]
    Emit(EmitArgs),
    /// How many solver units fit a board's device (yosys figures of one stage and of the
    /// front end, the device capacity and the board's fill factor), and the clock to ask for.
    #[command(after_help = "Examples:
  queens hdl fit --board kc705
  queens hdl fit --board ulx3s --n 27 --json    # placed and routed: minutes")]
    Fit(FitArgs),
}

pub fn parse_kind(s: &str) -> Result<ArbiterKind, String> {
    ArbiterKind::parse(s).ok_or_else(|| {
        let names: Vec<&str> = ArbiterKind::ALL.iter().map(|k| k.name()).collect();
        format!("unknown arbiter {s:?}: use {}", names.join(", "))
    })
}

#[derive(Serialize)]
struct CostJson {
    lut: u64,
    lutram: u64,
    ff: u64,
    carry4: u64,
    carry8: u64,
    /// Block RAM in 18 Kbit blocks.
    ram18: u64,
    /// UltraRAM blocks (URAM288).
    uram: u64,
    longest_path: u64,
}

impl From<&Cost> for CostJson {
    fn from(c: &Cost) -> Self {
        Self {
            lut: c.lut_sites(),
            lutram: c.lutram,
            ff: c.ff,
            carry4: c.carry4,
            carry8: c.carry8,
            ram18: c.ram18,
            uram: c.uram,
            longest_path: c.longest_path,
        }
    }
}

/// A Ctrl-C, hang-up or kill ends the process without dropping anything: from now on one
/// stops the outside tools and removes their scratch directories first (a place and route
/// leaves hundreds of MB), then exits with status 130. For every command that runs them.
pub(in crate::cmd) fn clean_up_on_interrupt() -> anyhow::Result<()> {
    static ONCE: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    ONCE.get_or_init(|| {
        ctrlc::set_handler(|| {
            let dirs = queens_hdl::scratch::interrupt();
            eprintln!("interrupted: the tools stopped, {dirs} scratch directories removed");
            std::process::exit(130);
        })
        .map_err(|e| format!("setting the interrupt handler: {e}"))
    })
    .clone()
    .map_err(anyhow::Error::msg)
}

pub fn run(cmd: Command) -> anyhow::Result<()> {
    clean_up_on_interrupt()?;
    match cmd {
        Command::Report(a) if a.pnr => routed::report(&a),
        Command::Report(a) => report::run(a),
        Command::Emit(a) => emit::run(a),
        Command::Fit(a) => fit::run(a),
    }
}
