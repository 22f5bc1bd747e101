//! A build directory for one board: the Verilog (core, UART top, board top), the
//! constraints, the toolchain's build script, a README with the one command to run, and
//! design.json.

use super::clock::Settings;
use super::toolchain::{self, SOURCES, TOP};
use super::top::{ports, top_verilog};
use super::{Board, Link};
use crate::emit::{core_verilog, cycles_per_sample, stream_top_verilog, uart_top_verilog, CoreConfig, EmitError};

/// What to build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub core: CoreConfig,
    pub clock: Settings,
    pub baud: u64,
    /// The link the top gives the host.
    pub link: Link,
}

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Emit(#[from] EmitError),
    #[error("{board} has no {link:?} link (it offers {offers:?})")]
    NoLink { board: String, link: Link, offers: Vec<Link> },
}

/// The PCIe build's Verilog sources.
pub const PCIE_SOURCES: [&str; 3] = ["queens_core.v", "queens_stream.v", "queens_pcie.v"];

/// The files of the directory, (name, contents), and what went into them.
pub struct BuildDir {
    pub files: Vec<(String, String)>,
    pub compute_hz: f64,
    pub uart_cycles_per_sample: u32,
    pub command: &'static str,
}

pub fn build_dir(b: &Board, o: &BuildOptions) -> Result<BuildDir, BuildError> {
    if !b.links.contains(&o.link) {
        return Err(BuildError::NoLink {
            board: b.name.clone(),
            link: o.link,
            offers: b.links.clone(),
        });
    }
    if o.link == Link::Pcie {
        return Ok(pcie_dir(b, o));
    }
    let fout = o.clock.output_hz(b.clock.hz as f64);
    let cps = cycles_per_sample(fout.round() as u64, o.baud)?;
    let ps = ports(b);
    let tc = toolchain::files(b, &ps, fout);
    let mut files = vec![
        (SOURCES[0].to_string(), core_verilog(&o.core, "queens_core")),
        (SOURCES[1].to_string(), uart_top_verilog(cps, "queens_top", "queens_core")),
        (SOURCES[2].to_string(), top_verilog(b, &o.clock, o.core.units, TOP, "queens_top")),
    ];
    files.extend(tc.constraints.iter().cloned());
    files.push(("build.tcl".into(), tc.script.clone()));
    files.extend(tc.extra.iter().cloned());
    let readme = format!(
        "# queens accelerator for {name}\n\n\
         N = {n}, {k} solver units ({arbiter} arbiter), {mhz:.3} MHz compute clock ({prim}: divide {d}, multiply {m}, output divide {od}), UART {baud} baud 8N1{cycles}.\n\n\
         Build the bitstream ({part}):\n\n    {cmd}\n\n\
         Load it:\n\n    {program}\n\n\
         Then count, with the board's USB UART on the host:\n\n    queens run {n} --link serial:/dev/ttyUSB0@{baud} --solvers {k}\n\n\
         Files: {list}. The build fails when timing is not met; reports go to `out/`.\n",
        name = b.name,
        n = o.core.n,
        k = o.core.units,
        arbiter = o.core.arbiter.name(),
        mhz = fout / 1e6,
        prim = o.clock.primitive.name(),
        d = o.clock.divide,
        m = o.clock.multiply,
        od = o.clock.output_divide,
        baud = o.baud,
        cycles = if o.core.with_cycles { ", results with cycle counters" } else { "" },
        part = b.part,
        cmd = tc.command,
        program = tc.program,
        list = files.iter().map(|f| format!("`{}`", f.0)).collect::<Vec<_>>().join(", "),
    );
    files.push(("README.md".into(), readme));
    Ok(BuildDir {
        files,
        compute_hz: fout,
        uart_cycles_per_sample: cps,
        command: tc.command,
    })
}

/// The PCIe build: the array behind XDMA on its 250 MHz user clock (the board's own clock
/// primitive is not used).
fn pcie_dir(b: &Board, o: &BuildOptions) -> BuildDir {
    use super::top::{pcie_ports, pcie_top_verilog};
    let ps = pcie_ports(b);
    let tc = toolchain::vivado::pcie_files(b, &ps, &PCIE_SOURCES);
    let mut files = vec![
        (PCIE_SOURCES[0].to_string(), core_verilog(&o.core, "queens_core")),
        (PCIE_SOURCES[1].to_string(), stream_top_verilog(&o.core, "queens_stream", "queens_core")),
        (PCIE_SOURCES[2].to_string(), pcie_top_verilog(b, o.core.units, "queens_pcie", "queens_stream")),
    ];
    files.extend(tc.constraints.iter().cloned());
    files.push(("build.tcl".into(), tc.script.clone()));
    files.extend(tc.extra.iter().cloned());
    let readme = format!(
        "# queens accelerator for {name}, PCIe\n\n\
         N = {n}, {k} solver units ({arbiter} arbiter) on XDMA's 250 MHz user clock, AXI4-Stream in and out{cycles}.\n\n\
         Build the bitstream ({part}; generates the XDMA IP first):\n\n    {cmd}\n\n\
         Load it:\n\n    {program}\n\n\
         Then count:\n\n    queens run {n} --link pcie:/dev/xdma0 --solvers {k}\n\n\
         Files: {list}. The build fails when timing is not met; reports go to `out/`.\n",
        name = b.name,
        n = o.core.n,
        k = o.core.units,
        arbiter = o.core.arbiter.name(),
        cycles = if o.core.with_cycles { ", results with cycle counters" } else { "" },
        part = b.part,
        cmd = tc.command,
        program = tc.program,
        list = files.iter().map(|f| format!("`{}`", f.0)).collect::<Vec<_>>().join(", "),
    );
    files.push(("README.md".into(), readme));
    BuildDir {
        files,
        compute_hz: 250e6,
        uart_cycles_per_sample: 0,
        command: tc.command,
    }
}
