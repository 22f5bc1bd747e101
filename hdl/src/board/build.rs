//! A build directory for one board: the Verilog (core, UART top, board top), the
//! constraints, the toolchain's build script, a README with the one command to run, and
//! design.json.

use super::clock::Settings;
use super::toolchain::vivado::PCIE_TOP;
use super::toolchain::{self, SOURCES, TOP};
use super::top::{ports, top_verilog};
use super::{Board, HostLink};
use crate::emit::{
    core_verilog, cycles_per_sample, stream_top_verilog, uart_top_verilog, CoreConfig, EmitError,
};

/// What to build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub core: CoreConfig,
    pub clock: Settings,
    pub baud: u64,
    /// The link the top gives the host.
    pub link: HostLink,
}

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Emit(#[from] EmitError),
    #[error("{board}: {reason}")]
    Board { board: String, reason: String },
    #[error("{board} has no {link:?} link (it offers {offers:?})")]
    NoLink {
        board: String,
        link: HostLink,
        offers: Vec<HostLink>,
    },
}

/// The PCIe build's Verilog sources.
pub const PCIE_SOURCES: [&str; 3] = ["queens_core.v", "queens_stream.v", "queens_pcie.v"];

/// The files of the directory, (name, contents), and what went into them.
pub struct BuildDir {
    pub files: Vec<(String, String)>,
    /// The core as built: with the board's part of its identity (`core.ident()` is what the
    /// board answers an identification request with).
    pub core: CoreConfig,
    pub compute_hz: f64,
    pub uart_cycles_per_sample: u32,
    pub command: &'static str,
}

pub fn build_dir(b: &Board, o: &BuildOptions) -> Result<BuildDir, BuildError> {
    // File names are made from the board's name: a name, never a path (checked when a board
    // file is loaded; a board built in code is checked here).
    if !super::is_board_name(&b.name) {
        return Err(BuildError::Board {
            board: format!("{:?}", b.name),
            reason: "not a board name (letters, digits, _ or -): its files would be written elsewhere".into(),
        });
    }
    if !b.links.contains(&o.link) {
        return Err(BuildError::NoLink {
            board: b.name.clone(),
            link: o.link,
            offers: b.links.clone(),
        });
    }
    if o.link == HostLink::Pcie {
        return Ok(pcie_dir(b, o));
    }
    let fout = o.clock.output_hz(b.clock.hz as f64);
    let cps = cycles_per_sample(fout.round() as u64, o.baud)?;
    let core = o.core.built(
        &format!("board={} link=uart baud={}", b.name, o.baud),
        fout.round() as u64,
    );
    let ps = ports(b);
    let tc = toolchain::files(b, &ps, fout);
    let mut files = vec![
        (SOURCES[0].to_string(), core_verilog(&core, "queens_core")),
        (
            SOURCES[1].to_string(),
            uart_top_verilog(cps, "queens_top", "queens_core"),
        ),
        (
            SOURCES[2].to_string(),
            top_verilog(b, &o.clock, core.units, TOP, "queens_top"),
        ),
    ];
    files.extend(tc.constraints.iter().cloned());
    files.push((tc.script_name.into(), tc.script.clone()));
    files.extend(tc.extra.iter().cloned());
    let readme = readme(
        &b.name,
        &format!(
            "N = {}, {} solver units ({} arbiter), {:.3} MHz compute clock ({}: divide {}, multiply {}, output divide {}), UART {} baud 8N1{}.",
            core.n,
            core.units,
            core.arbiter.name(),
            fout / 1e6,
            o.clock.primitive.name(),
            o.clock.divide,
            o.clock.multiply,
            o.clock.output_divide,
            o.baud,
            cycles_note(&core).to_string() + &ultra_note(&core)
        ),
        &b.part,
        &tc,
        &format!("serial:/dev/ttyUSB0@{}", o.baud),
        core,
        &files,
    );
    files.push(("README.md".into(), readme));
    Ok(BuildDir {
        files,
        core,
        compute_hz: fout,
        uart_cycles_per_sample: cps,
        command: tc.command,
    })
}

/// XDMA's user clock, which the PCIe build's array runs on.
const PCIE_CLOCK_HZ: u64 = 250_000_000;

/// The PCIe build: the array behind XDMA on its 250 MHz user clock (the board's own clock
/// primitive is not used).
fn pcie_dir(b: &Board, o: &BuildOptions) -> BuildDir {
    use super::top::{pcie_ports, pcie_top_verilog};
    let ps = pcie_ports(b);
    let tc = toolchain::vivado::pcie_files(b, &ps, &PCIE_SOURCES);
    let core = o
        .core
        .built(&format!("board={} link=pcie", b.name), PCIE_CLOCK_HZ);
    let mut files = vec![
        (PCIE_SOURCES[0].to_string(), core_verilog(&core, "queens_core")),
        (
            PCIE_SOURCES[1].to_string(),
            stream_top_verilog("queens_stream", "queens_core"),
        ),
        (
            PCIE_SOURCES[2].to_string(),
            pcie_top_verilog(b, core.units, PCIE_TOP, "queens_stream"),
        ),
    ];
    files.extend(tc.constraints.iter().cloned());
    files.push((tc.script_name.into(), tc.script.clone()));
    files.extend(tc.extra.iter().cloned());
    let readme = readme(
        &format!("{}, PCIe", b.name),
        &format!(
            "N = {}, {} solver units ({} arbiter) on XDMA's 250 MHz user clock, AXI4-Stream in and out{}.",
            core.n,
            core.units,
            core.arbiter.name(),
            cycles_note(&core).to_string() + &ultra_note(&core)
        ),
        &format!("{}; generates the XDMA IP first", b.part),
        &tc,
        "pcie:/dev/xdma0",
        core,
        &files,
    ) + &pcie_checks(b);
    files.push(("README.md".into(), readme));
    BuildDir {
        files,
        core,
        compute_hz: PCIE_CLOCK_HZ as f64,
        uart_cycles_per_sample: 0,
        command: tc.command,
    }
}

/// What was checked of a PCIe build where it was made, and what only Vivado and the card can.
fn pcie_checks(b: &Board) -> String {
    let p = b.pcie.as_ref().expect("a board with a [pcie] table");
    let bytes = super::top::pcie_stream_bytes(b);
    let converters = if bytes == 16 {
        String::new()
    } else {
        format!(
            " and of the AXI4-Stream width converters `axis_h2c_0` and `axis_c2h_0` ({bytes} \
             bytes to 16 and back: PG085's ports)"
        )
    };
    format!(
        "\n## Checked where this was made, and not\n\n\
         Checked (the project's tests, `hdl/tests/boards.rs`): the Verilog passes yosys \
         `hierarchy -check; proc; check -assert` with Xilinx's primitives as black boxes \
         (yosys' own cell library: IBUFDS_GTE{gte}, IBUF, ...) and with our port list of the \
         XDMA IP (x{lanes}, {bits}-bit streams){converters}; `build.tcl`, `program.tcl` and \
         `{name}_pcie.xdc` are complete Tcl (`tclsh`), the constraints run with the vendor \
         commands stubbed; every constrained port is a port of `queens_pcie`, with the pin and \
         I/O standard of the board file (`boards/{name}.toml`, which names the source of each \
         pin). The 128-bit stream top (this generator) counts exactly under Verilator with a \
         model of XDMA's streams (`sim/tests/verilator.rs`, N = 10){netlist}; this build's \
         core at its own N and units, and the width converters, are not simulated here.\n\n\
         Only Vivado and the card can check: that the IP configuration names \
         (`CONFIG.*`) and the IP's port names are Vivado's; that the IP's default PCIe block \
         and transceiver quads for `{part}` are the ones the edge connector is wired to (set \
         them in the IP's customisation if not); Vivado's own netlist (any simulated here is \
         yosys' mapping); that the design meets timing at 250 MHz and \
         fits (`out/utilization.rpt`, `out/timing.rpt`); the bitstream on a card, the link \
         training at x{lanes} Gen{gen}, and the XDMA driver's devices.\n",
        // The open flow that synthesizes this family's stream top (sim/src/netlist).
        netlist = if b.family == super::Family::Virtexuplus {
            ", and so does its netlist after yosys `synth_xilinx -family xcup` for two units \
             (`host/tests/netlist.rs`, N = 10, also under `queens run --link pcie:`; grouped \
             units' tallies there in block RAM: yosys has no simulation model of URAM288)"
        } else {
            ""
        },
        gte = if b.family == super::Family::Virtexuplus {
            4
        } else {
            2
        },
        lanes = p.lanes,
        gen = p.gen,
        bits = bytes * 8,
        name = b.name,
        part = b.part,
    )
}

/// Where the tallies are, when some are in UltraRAM.
fn ultra_note(core: &CoreConfig) -> String {
    match core.ultra {
        0 => String::new(),
        u => format!(
            "; the tally of the first {u} units in UltraRAM (`(* ram_style = \"ultra\" *)`), of the other {} in block RAM",
            core.units - u
        ),
    }
}

fn cycles_note(core: &CoreConfig) -> &'static str {
    if core.with_cycles {
        ", results with cycle counters"
    } else {
        ""
    }
}

/// The build directory's README: what it holds, the one command, how to load, how to count.
fn readme(
    title: &str,
    what: &str,
    part: &str,
    tc: &toolchain::Files,
    link: &str,
    core: CoreConfig,
    files: &[(String, String)],
) -> String {
    format!(
        "# queens accelerator for {title}\n\n{what}\n\n\
         Bring-up, in order:\n\n\
         1. Build the bitstream ({part}); the build fails when timing is not met, reports go to `out/`:\n\n       {cmd}\n\n\
         2. Load it:\n\n       {program}\n\n\
         3. Check the board before a campaign (that it is this design, a known-answer set, the units \
         and clock that answer; exit status 0 when healthy):\n\n       queens board check {link} --design design.json\n\n\
         4. Count:\n\n       queens run {n} --link {link} --solvers {k}\n\n\
         Files: {list}.\n",
        cmd = tc.command,
        program = tc.program,
        n = core.n,
        k = core.units,
        list = files
            .iter()
            .map(|f| format!("`{}`", f.0))
            .collect::<Vec<_>>()
            .join(", "),
    )
}
