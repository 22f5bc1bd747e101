//! The netlist engine: a board's top as its build makes it, not the Verilog we emit.
//!
//! [`make`] runs the board's own flow on a build directory emitted for a small array and a
//! fast test baud rate, and writes the result back as Verilog:
//! - ECP5 after synthesis: the yosys script of the board's `build.sh` (`synth_ecp5`, abc9's
//!   delay target, kept stage modules), the netlist written back by yosys;
//! - ECP5 after place and route: `build.sh` itself, with nextpnr told to `--write` the routed
//!   netlist, which yosys reads back;
//! - Xilinx 7-series: yosys `synth_xilinx -family xc7`, the nearest open stand-in for the
//!   vendor's mapping, which cannot run here.
//! - Virtex UltraScale+ (the U55C): yosys `synth_xilinx -family xcup` of the PCIe build's
//!   stream top, the core behind its AXI4-Stream ports; the XDMA IP around it is Vivado's
//!   alone. It runs behind the harness's model of XDMA's streams, not a bench of pins. Its
//!   grouped units keep their tallies in block RAM, where a build for the card puts the
//!   first in UltraRAM: yosys has no simulation model of URAM288.
//!
//! [`NetlistEngine`] simulates it with yosys' own cell models (`cells_sim.v` of the same
//! yosys), our models of the cells yosys leaves as black boxes (`netlist/ecp5.v`,
//! `netlist/xc7.v`, `netlist/xcup.v`, the Xilinx block RAMs in `netlist/xilinx_ramb.v`), and
//! a bench module that drives the board top's pins: the reference clock, and the UART at the
//! test baud rate, through the PLL's lock and the start-up gate (the stream top: the
//! harness's stream ports instead).
//! The frames are the host's own (`crate::wire`).
//!
//! Simulator: Verilator. The routed two-unit ULX3S netlist (about 4,400 cells) builds in
//! about 40 s and runs about 260,000 cycles a second; Icarus Verilog, which would also show
//! X propagation, runs it at about 475 (docs/design/netlist-simulation.md): ten hours for
//! every canonical subproblem of N = 10 through a UART. What 2-state simulation hides is
//! covered by the models: every flip-flop of a netlist starts from its INIT, every RAM from
//! its INITVAL, and an input nextpnr left unconnected is tied as silicon reads it.

mod bench;
mod flow;

pub use bench::bench_verilog;
pub use flow::{cell_models, make, Flow, NetlistError, STREAM_TOP};

use crate::check::Engine;
use crate::model::UnitRun;
use crate::verilator::Verilated;
use queens_core::{BoardSize, Subproblem};
use queens_hdl::board::clock::Settings;
use queens_hdl::board::Board;
use queens_hdl::emit::CoreConfig;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Cycles per UART sample of the test builds: 24 clock cycles a bit (the UART is tested at
/// 3 cycles per sample too).
pub const TEST_CYCLES_PER_SAMPLE: u32 = 3;

/// A board top after synthesis or routing, as Verilog, with what it was built from.
#[derive(Debug, Clone)]
pub struct BoardNetlist {
    pub board: Board,
    pub flow: Flow,
    pub core: CoreConfig,
    pub clock: Settings,
    pub cycles_per_sample: u32,
    /// The netlist, top module [`queens_hdl::board::toolchain::TOP`] (the stream top
    /// [`STREAM_TOP`] for [`Flow::XcupSynthesized`]).
    pub verilog: String,
    /// yosys' cell models for the family, includes resolved.
    pub library: String,
    /// Where the tools' files are (the netlist as `netlist.v`).
    pub dir: PathBuf,
}

impl BoardNetlist {
    /// The whole design the simulator compiles: the solver's settings for the clock
    /// primitive's check, our models, yosys' library, the netlist and the bench (no bench
    /// and no settings for the stream top).
    pub fn simulation_sources(&self) -> String {
        let s = &self.clock;
        let defines = match self.flow {
            Flow::Ecp5Synthesized | Flow::Ecp5Routed => format!(
                "`define EXPECT_CLKI_DIV {}\n`define EXPECT_CLKFB_DIV {}\n`define EXPECT_CLKOP_DIV {}\n",
                s.divide, s.multiply, s.output_divide
            ),
            Flow::Xc7Synthesized => format!(
                "`define EXPECT_DIVIDE {}\n`define EXPECT_MULTIPLY {}\n`define EXPECT_OUTPUT_DIVIDE {}\n",
                s.divide, s.multiply, s.output_divide
            ),
            // The stream top has no clock primitive and no pins: the harness drives its ports.
            Flow::XcupSynthesized => {
                return format!("{}\n{}\n{}", self.flow.models(), self.library, self.verilog);
            }
        };
        let models = self.flow.models();
        format!(
            "{defines}{models}\n{lib}\n{net}\n{bench}",
            lib = self.library,
            net = self.verilog,
            bench = bench_verilog(&self.board)
        )
    }
}

/// Runs subproblems through a board netlist under Verilator, frames in and out through the
/// UART pins.
pub struct NetlistEngine {
    pub netlist: BoardNetlist,
    /// Wall time without a byte from the board after which a run fails.
    pub quiet: Duration,
    board_cycles: AtomicU64,
    board_seconds: AtomicU64,
    build_seconds: AtomicU64,
    built: Mutex<Option<Verilated>>,
}

impl NetlistEngine {
    pub fn new(netlist: BoardNetlist) -> Self {
        Self {
            netlist,
            quiet: Duration::from_secs(120),
            board_cycles: Default::default(),
            board_seconds: Default::default(),
            build_seconds: Default::default(),
            built: Mutex::new(None),
        }
    }

    /// Compiles the simulation (or finds it in the cache).
    pub fn build(&self) -> Result<(), String> {
        let mut built = self.built.lock().unwrap_or_else(|e| e.into_inner());
        if built.is_none() {
            let start = Instant::now();
            let sources = self.netlist.simulation_sources();
            let v = match self.netlist.flow {
                Flow::XcupSynthesized => {
                    Verilated::build_stream_netlist(self.netlist.core, STREAM_TOP, sources)
                }
                _ => Verilated::build_board(
                    self.netlist.core,
                    bench::BENCH,
                    sources,
                    self.netlist.cycles_per_sample,
                ),
            }
            .map_err(|e| e.to_string())?;
            self.build_seconds
                .store(start.elapsed().as_secs_f64().to_bits(), Relaxed);
            *built = Some(v);
        }
        Ok(())
    }

    /// The compiled simulation, to serve the wire protocol with (`crate::board::serve_verilated`).
    pub fn verilated(&self) -> Result<Verilated, String> {
        self.build()?;
        let built = self.built.lock().unwrap_or_else(|e| e.into_inner());
        Ok(built.as_ref().expect("built above").clone())
    }

    /// Seconds the last [`build`](Self::build) took (0 when it came from the cache).
    pub fn build_seconds(&self) -> f64 {
        f64::from_bits(self.build_seconds.load(Relaxed))
    }
}

impl Engine for NetlistEngine {
    fn name(&self) -> &'static str {
        self.netlist.flow.engine_name()
    }

    fn run(&self, size: BoardSize, subproblems: &[Subproblem]) -> Result<Vec<UnitRun>, String> {
        if size.n() as usize != self.netlist.core.n {
            return Err(format!(
                "the netlist was built for N = {}, not {}",
                self.netlist.core.n,
                size.n()
            ));
        }
        self.build()?;
        let built = self.built.lock().unwrap_or_else(|e| e.into_inner());
        let board = built.as_ref().expect("built above");
        let start = Instant::now();
        // The units, and as many queued as the front end's word queue takes.
        let window = self.netlist.core.units + 8;
        let (runs, cycles) = board
            .run(subproblems, window, None, self.quiet)
            .map_err(|e| e.to_string())?;
        self.board_seconds
            .store(start.elapsed().as_secs_f64().to_bits(), Relaxed);
        self.board_cycles.store(cycles, Relaxed);
        Ok(runs)
    }

    fn board_cycles(&self) -> Option<(u64, f64)> {
        Some((
            self.board_cycles.load(Relaxed),
            f64::from_bits(self.board_seconds.load(Relaxed)),
        ))
    }
}

impl crate::group_check::GroupEngine for NetlistEngine {
    fn name(&self) -> &'static str {
        self.netlist.flow.engine_name()
    }

    fn run_groups(
        &self,
        size: BoardSize,
        members: &[queens_core::Preplacement],
    ) -> Result<Vec<Vec<queens_core::group::GroupRecord>>, String> {
        let core = &self.netlist.core;
        if size.n() as usize != core.n || core.unit != queens_core::UnitKind::Grouped {
            return Err(format!(
                "the netlist was built of {} units at N = {}, not of grouped units at N = {}",
                core.unit,
                core.n,
                size.n()
            ));
        }
        let board = self.verilated()?;
        let start = Instant::now();
        // The units, and as many queued as the front end's word queue takes.
        let window = self.netlist.core.units + 8;
        let (answers, cycles) = crate::group_check::ask_board(&board, size, members, window, self.quiet)?;
        self.board_seconds
            .store(start.elapsed().as_secs_f64().to_bits(), Relaxed);
        self.board_cycles.store(cycles, Relaxed);
        Ok(answers)
    }

    fn board_cycles(&self) -> Option<(u64, f64)> {
        Engine::board_cycles(self)
    }
}
