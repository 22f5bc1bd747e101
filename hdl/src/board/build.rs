//! A build directory for one board: the Verilog (core, UART top, board top), the
//! constraints, the toolchain's build script, a README with the one command to run, and
//! design.json.

use super::clock::Settings;
use super::toolchain::{self, SOURCES, TOP};
use super::top::{ports, top_verilog};
use super::Board;
use crate::emit::{core_verilog, cycles_per_sample, uart_top_verilog, CoreConfig, EmitError};

/// What to build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub core: CoreConfig,
    pub clock: Settings,
    pub baud: u64,
}

/// The files of the directory, (name, contents), and what went into them.
pub struct BuildDir {
    pub files: Vec<(String, String)>,
    pub compute_hz: f64,
    pub uart_cycles_per_sample: u32,
    pub command: &'static str,
}

pub fn build_dir(b: &Board, o: &BuildOptions) -> Result<BuildDir, EmitError> {
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
