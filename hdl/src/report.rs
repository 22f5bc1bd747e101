//! The cost of a circuit as yosys sees it: `synth_xilinx -family xc7 -flatten` (or `-family
//! xcup` for UltraScale+), then cell counts and the longest flip-flop-to-flip-flop path, in
//! cells.
//!
//! The path is measured on the mapped netlist (yosys' `write_json`): every LUT, carry, wide
//! multiplexer and LUT-RAM read counts as one cell; flip-flops, ports and clock buffers end a
//! path; a LUT-RAM is combinational only from its read address to its data out.

use crate::scratch::{run_tool, Scratch, ScratchError};
use serde::Deserialize;
use std::collections::HashMap;
use std::process::Command;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum SynthError {
    #[error("yosys is not installed (apt-get install yosys): {0}")]
    NoYosys(std::io::Error),
    #[error("yosys failed on {top}: {log_tail}")]
    Failed { top: String, log_tail: String },
    #[error("reading yosys output {path}: {reason}")]
    Output { path: String, reason: String },
    #[error("the netlist has a combinational loop through cell {cell}")]
    Loop { cell: String },
}

/// The family `synth_xilinx` maps for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SynthFamily {
    /// 7-series: LUT6, CARRY4, RAMB18E1/RAMB36E1.
    Xc7,
    /// UltraScale+: LUT6, CARRY8, RAMB18E2/RAMB36E2, URAM288.
    Xcup,
}

impl SynthFamily {
    /// As `synth_xilinx -family` takes it.
    pub fn name(self) -> &'static str {
        match self {
            SynthFamily::Xc7 => "xc7",
            SynthFamily::Xcup => "xcup",
        }
    }
}

/// Cells of one synthesized module.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Cost {
    /// LUT1..LUT6 cells.
    pub lut: u64,
    /// LUTs taken by LUT-RAM cells (a RAM32M occupies four).
    pub lutram: u64,
    /// Block RAM in 18 Kbit blocks (a RAMB18E1 one, a RAMB36E1 two).
    pub ram18: u64,
    pub ff: u64,
    pub carry4: u64,
    /// CARRY8 (UltraScale+).
    pub carry8: u64,
    /// UltraRAM blocks (URAM288, UltraScale+).
    pub uram: u64,
    /// MUXF7/MUXF8: slice multiplexers, free of LUTs but on the path.
    pub muxf: u64,
    pub longest_path: u64,
    /// Cell types along that path, first to last.
    #[serde(skip)]
    pub path: Vec<String>,
}

impl Cost {
    /// LUT sites: logic plus LUT-RAM.
    pub fn lut_sites(&self) -> u64 {
        self.lut + self.lutram
    }
}

/// Synthesizes `verilog` (top module `top`) for 7-series and measures it.
pub fn synthesize(verilog: &str, top: &str) -> Result<Cost, SynthError> {
    synthesize_for(verilog, top, SynthFamily::Xc7)
}

/// Synthesizes `verilog` (top module `top`) for `family` and measures it.
pub fn synthesize_for(verilog: &str, top: &str, family: SynthFamily) -> Result<Cost, SynthError> {
    synthesize_with(verilog, top, family, false)
}

/// [`synthesize_for`], with `-uram` when `uram` (UltraScale+: yosys may then map memories onto
/// URAM288; one marked `(* ram_style = "ultra" *)` it maps there in any case).
pub fn synthesize_with(
    verilog: &str,
    top: &str,
    family: SynthFamily,
    uram: bool,
) -> Result<Cost, SynthError> {
    let dir = Scratch::new("queens-yosys").map_err(output)?;
    let src = dir.path().join("design.v");
    let json = dir.path().join("netlist.json");
    let log = dir.path().join("yosys.log");
    dir.write("design.v", verilog).map_err(output)?;
    let script = format!(
        "read_verilog {src}\nsynth_xilinx -family {family}{uram} -flatten -top {top}\nwrite_json {json}\n",
        family = family.name(),
        uram = if uram { " -uram" } else { "" },
        src = src.display(),
        json = json.display()
    );
    let out = run_tool(
        Command::new("yosys")
            .args(["-q", "-l"])
            .arg(&log)
            .args(["-p", &script]),
    )
    .map_err(SynthError::NoYosys)?;
    if !out.status.success() {
        let text = dir.read("yosys.log").unwrap_or_default() + &String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = text.lines().rev().take(12).collect();
        return Err(SynthError::Failed {
            top: top.into(),
            log_tail: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
        });
    }
    let text = dir.read("netlist.json").map_err(output)?;
    let netlist: Netlist = serde_json::from_str(&text).map_err(|e| SynthError::Output {
        path: "netlist.json".into(),
        reason: e.to_string(),
    })?;
    let module = netlist.modules.get(top).ok_or_else(|| SynthError::Output {
        path: "netlist.json".into(),
        reason: format!("no module {top}"),
    })?;
    measure(module)
}

fn output(e: ScratchError) -> SynthError {
    SynthError::Output {
        path: e.path,
        reason: e.reason,
    }
}

#[derive(Deserialize)]
struct Netlist {
    modules: HashMap<String, Module>,
}

#[derive(Deserialize)]
struct Module {
    #[serde(default)]
    cells: HashMap<String, Cell>,
    #[serde(default)]
    netnames: HashMap<String, NetName>,
}

#[derive(Deserialize)]
struct NetName {
    #[serde(default)]
    bits: Vec<serde_json::Value>,
}

#[derive(Deserialize)]
struct Cell {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    port_directions: HashMap<String, String>,
    #[serde(default)]
    connections: HashMap<String, Vec<serde_json::Value>>,
}

/// How a cell type takes part in paths.
enum Role {
    /// Ends paths (flip-flops, ports, clock buffers).
    Boundary,
    /// Combinational from every input to every output.
    Logic,
    /// Combinational from the read-address inputs only.
    RamRead,
}

fn role(kind: &str) -> Role {
    if kind.starts_with("LUT")
        || kind.starts_with("MUXF")
        || kind == "CARRY4"
        || kind == "CARRY8"
        || kind == "INV"
    {
        Role::Logic
    } else if kind.starts_with("RAM") && ram18_blocks(kind).is_none() {
        // LUT-RAM reads are combinational; a block RAM's output is registered.
        Role::RamRead
    } else {
        Role::Boundary
    }
}

/// 18 Kbit blocks of a block RAM cell.
fn ram18_blocks(kind: &str) -> Option<u64> {
    match kind {
        "RAMB18E1" | "RAMB18E2" => Some(1),
        "RAMB36E1" | "RAMB36E2" => Some(2),
        _ => None,
    }
}

fn lutram_sites(kind: &str) -> u64 {
    match kind {
        // UltraScale's eight-LUT forms: a whole SLICEM.
        "RAM32M16" | "RAM64M8" | "RAM256X1D" | "RAM512X1S" => 8,
        "RAM256X1S" => 4,
        "RAM32M" | "RAM64M" | "RAM128X1D" => 4,
        "RAM32X1D" | "RAM64X1D" | "RAM128X1S" => 2,
        k if k.starts_with("RAM") && k.contains("X1S") => 1,
        k if k.starts_with("RAM") => 4,
        _ => 0,
    }
}

fn measure(m: &Module) -> Result<Cost, SynthError> {
    let mut cost = Cost::default();
    for c in m.cells.values() {
        let k = c.kind.as_str();
        if k.starts_with("LUT") {
            cost.lut += 1;
        } else if k.starts_with("FD") {
            cost.ff += 1;
        } else if k == "CARRY4" {
            cost.carry4 += 1;
        } else if k == "CARRY8" {
            cost.carry8 += 1;
        } else if k == "URAM288" || k == "URAM288_BASE" {
            cost.uram += 1;
        } else if k.starts_with("MUXF") {
            cost.muxf += 1;
        } else if let Some(blocks) = ram18_blocks(k) {
            cost.ram18 += blocks;
        } else if k.starts_with("RAM") {
            cost.lutram += lutram_sites(k);
        }
    }
    // Driver of every net bit, among combinational cells.
    let names: Vec<&String> = m.cells.keys().collect();
    let mut driver: HashMap<u64, usize> = HashMap::new();
    for (i, n) in names.iter().enumerate() {
        let c = &m.cells[*n];
        if matches!(role(&c.kind), Role::Boundary) {
            continue;
        }
        for (port, bits) in &c.connections {
            if c.port_directions.get(port).map(String::as_str) == Some("output") {
                for b in bits.iter().filter_map(|b| b.as_u64()) {
                    driver.insert(b, i);
                }
            }
        }
    }
    // Combinational predecessors of each cell.
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); names.len()];
    for (i, n) in names.iter().enumerate() {
        let c = &m.cells[*n];
        let ram = match role(&c.kind) {
            Role::Boundary => continue,
            Role::Logic => false,
            Role::RamRead => true,
        };
        for (port, bits) in &c.connections {
            if c.port_directions.get(port).map(String::as_str) != Some("input") {
                continue;
            }
            if ram && !port.starts_with("ADDR") && !port.starts_with("A") && !port.starts_with("DPRA") {
                continue;
            }
            for b in bits.iter().filter_map(|b| b.as_u64()) {
                if let Some(&d) = driver.get(&b) {
                    preds[i].push(d);
                }
            }
        }
    }
    // Longest path ending at each cell (memoised depth-first search, loops reported).
    let mut depth: Vec<u64> = vec![0; names.len()];
    let mut via: Vec<Option<usize>> = vec![None; names.len()];
    let mut state: Vec<u8> = vec![0; names.len()]; // 0 new, 1 on stack, 2 done
    for start in 0..names.len() {
        if state[start] == 2 || matches!(role(&m.cells[names[start]].kind), Role::Boundary) {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        state[start] = 1;
        while let Some(&mut (v, ref mut k)) = stack.last_mut() {
            if *k < preds[v].len() {
                let p = preds[v][*k];
                *k += 1;
                match state[p] {
                    0 => {
                        state[p] = 1;
                        stack.push((p, 0));
                    }
                    1 => {
                        return Err(SynthError::Loop {
                            cell: names[p].clone(),
                        })
                    }
                    _ => {}
                }
            } else {
                via[v] = preds[v].iter().copied().max_by_key(|&p| depth[p]);
                depth[v] = 1 + via[v].map_or(0, |p| depth[p]);
                state[v] = 2;
                stack.pop();
            }
        }
    }
    if let Some(end) = (0..names.len()).max_by_key(|&i| depth[i]) {
        cost.longest_path = depth[end];
        let mut at = Some(end);
        // Name each step by the public net its cell drives, where there is one.
        let mut net_of: HashMap<u64, &str> = HashMap::new();
        for (name, n) in &m.netnames {
            if !name.starts_with('$') {
                for b in n.bits.iter().filter_map(|b| b.as_u64()) {
                    net_of.insert(b, name.as_str());
                }
            }
        }
        while let Some(i) = at {
            let c = &m.cells[names[i]];
            let out = outputs(c).find_map(|b| net_of.get(&b));
            cost.path.push(match out {
                Some(n) => format!("{}({n})", c.kind),
                None => c.kind.clone(),
            });
            at = via[i];
        }
        cost.path.reverse();
        // And the flip-flop or port the path ends at.
        let last = &m.cells[names[end]];
        let out_bits: Vec<u64> = outputs(last).collect();
        if let Some(sink) = m.cells.values().find(|c| {
            matches!(role(&c.kind), Role::Boundary)
                && c.connections.iter().any(|(p, bits)| {
                    c.port_directions.get(p).map(String::as_str) == Some("input")
                        && bits
                            .iter()
                            .filter_map(|b| b.as_u64())
                            .any(|b| out_bits.contains(&b))
                })
        }) {
            let q = outputs(sink).find_map(|b| net_of.get(&b));
            cost.path
                .push(format!("{}({})", sink.kind, q.copied().unwrap_or("?")));
        }
    }
    Ok(cost)
}

/// Net bits driven by a cell.
fn outputs(c: &Cell) -> impl Iterator<Item = u64> + '_ {
    c.connections
        .iter()
        .filter(|(p, _)| c.port_directions.get(*p).map(String::as_str) == Some("output"))
        .flat_map(|(_, bits)| bits.iter().filter_map(|b| b.as_u64()))
}
