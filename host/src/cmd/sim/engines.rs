//! The engines of `sim check` that are built before they run: the emitted core under
//! Verilator, and a board's netlist.

use anyhow::Context;
use queens_core::BoardSize;
use queens_hdl::ArbiterKind;
use queens_sim::check::VerilatorEngine;
use queens_sim::netlist::{make, Flow, NetlistEngine};
use std::path::{Path, PathBuf};

/// The emitted core with `units` units under Verilator, or the Verilog of `design` (a core
/// changed by hand) in its place; `vcd` records a waveform.
pub(super) fn verilator(
    arbiter: ArbiterKind,
    units: usize,
    design: Option<&Path>,
    vcd: Option<PathBuf>,
) -> anyhow::Result<VerilatorEngine> {
    let mut e = VerilatorEngine::new(arbiter, units);
    if let Some(p) = design {
        let read = std::fs::read_to_string(p);
        e.design = Some(read.with_context(|| format!("reading the design {}", p.display()))?);
    }
    e.vcd = vcd;
    Ok(e)
}

/// The netlist of `board` for `size` and `units` units of kind `unit`: made by the board's flow (or found in the
/// cache), or the one given as `design`, compiled for the simulator. `synthesized`: the
/// ECP5 netlist before place and route.
pub(super) fn netlist(
    board: &str,
    size: BoardSize,
    units: usize,
    unit: queens_core::UnitKind,
    synthesized: bool,
    design: Option<&Path>,
) -> anyhow::Result<NetlistEngine> {
    let b = queens_hdl::board::Board::load(board)?;
    let flow = Flow::for_board(&b, synthesized)?;
    let mut net = make(&b, size.n() as usize, units, unit, flow, &|p| {
        eprintln!("{}: {p}", b.name)
    })?;
    if let Some(p) = design {
        let read = std::fs::read_to_string(p);
        net.verilog = read.with_context(|| format!("reading the netlist {}", p.display()))?;
    }
    let engine = NetlistEngine::new(net);
    eprintln!("{}: compiling the netlist with Verilator", b.name);
    engine.build().map_err(anyhow::Error::msg)?;
    Ok(engine)
}
