//! The netlist engine as a user runs it: a board top after synthesis or routing, simulated
//! through its pins, counts every canonical subproblem exactly with the cycle model's cycles;
//! a netlist broken by hand is caught and the subproblem named; the U55C's stream top,
//! synthesized for UltraScale+, counts through its stream ports and under `queens run --link
//! pcie:`. Needs the open ECP5 tools and Verilator (scripts/test.sh installs them).

use crate::common;

use queens_core::{BoardSize, Enumerator};
use std::path::Path;

fn check_json(args: &[&str]) -> serde_json::Value {
    let out = common::queens()
        .args(args)
        .arg("--json")
        .output()
        .expect("queens runs");
    let text = common::ok(&out);
    serde_json::from_str(&text).expect("one JSON object")
}

fn subproblems(n: u32) -> u64 {
    Enumerator::new(BoardSize::new(n).unwrap()).census().total()
}

/// Exact and cycle-exact: the whole of N with no mismatch of either kind.
fn assert_exact(v: &serde_json::Value, n: u32, q: u64) {
    assert_eq!(v["subproblems"], subproblems(n), "{v}");
    assert_eq!(v["total"], q, "{v}");
    assert_eq!(v["mismatches"], 0, "{v}");
    assert_eq!(v["cycle_mismatches"], 0, "{v}");
    assert!(v["board_cycles"].as_u64().unwrap() > 0, "{v}");
}

#[test]
fn the_routed_ulx3s_netlist_counts_n10_exactly_and_a_flipped_lut_is_named() {
    let v = check_json(&["sim", "check", "10", "--engine", "netlist", "--board", "ulx3s"]);
    assert_exact(&v, 10, 724);
    assert_eq!(v["engine"], "netlist (ECP5, placed and routed)");
    let path = v["netlist"].as_str().expect("the netlist's path").to_string();
    a_bitstream_with_timing_met(Path::new(&path).parent().expect("its build directory"));

    // The same netlist with one LUT of unit 0's solution count inverted.
    let netlist = std::fs::read_to_string(&path).unwrap();
    let (broken, lut) = flip_count_lut(&netlist).expect("a LUT that feeds unit 0's count");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.v");
    std::fs::write(&file, broken).unwrap();
    let out = common::queens()
        .args([
            "sim", "check", "10", "--engine", "netlist", "--board", "ulx3s", "--sample", "400", "--design",
        ])
        .arg(&file)
        .output()
        .unwrap();
    common::fails_with(
        &out,
        &["subproblems disagree with the software counter", "(the first: #"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("MISMATCH subproblem #"), "LUT {lut}: {text}");
}

/// The routed netlist's build is the board's project run by its own `build.sh`, from
/// scratch on a fresh machine: timing met at the clock it asked, every carry chain whole,
/// and an LFE5U-85F bitstream.
fn a_bitstream_with_timing_met(dir: &Path) {
    let read =
        |f: &str| std::fs::read(dir.join(f)).unwrap_or_else(|e| panic!("{f} in {}: {e}", dir.display()));
    // nextpnr stops build.sh when timing fails; its report says so too.
    let report: serde_json::Value = serde_json::from_slice(&read("out/report.json")).unwrap();
    let fmax = report["fmax"].as_object().expect("clocks in the report");
    assert!(!fmax.is_empty());
    for (clock, f) in fmax {
        let (achieved, asked) = (f["achieved"].as_f64().unwrap(), f["constraint"].as_f64().unwrap());
        assert!(
            achieved >= asked,
            "{clock}: {achieved} MHz routed, {asked} MHz asked"
        );
    }
    // Every carry chain is whole: no carry between two cells feeds the fabric (nextpnr would
    // break the chain to bring it out, a hop on every path through it).
    let top = queens_hdl::board::toolchain::TOP;
    let net: serde_json::Value = serde_json::from_slice(&read(&format!("out/{top}.json"))).unwrap();
    let (cells, broken) = carries_into_fabric(&net);
    assert!(
        cells > 0 && broken.is_empty(),
        "of {cells} CCU2C cells: {broken:?}"
    );
    // An LFE5U-85F bitstream, compressed: hundreds of kilobytes, starting with the preamble.
    let bit = read("queens.bit");
    assert!(bit.len() > 100_000, "queens.bit is {} bytes", bit.len());
    assert!(
        bit.windows(4).any(|w| w == [0xFF, 0xFF, 0xBD, 0xB3]),
        "no ECP5 preamble in queens.bit"
    );
}

/// In a yosys netlist: how many CCU2C cells there are, and those whose carry out feeds both
/// the next cell's carry in and the fabric (a chain's last carry out, a comparison's result,
/// may feed the fabric: nextpnr ends the chain there with a cell of its own).
fn carries_into_fabric(net: &serde_json::Value) -> (usize, Vec<String>) {
    let mut cells = 0;
    let mut broken = vec![];
    for (module, m) in net["modules"].as_object().unwrap() {
        let all = m["cells"].as_object().unwrap();
        // Each net bit's loads: (cell type, port).
        let mut loads: std::collections::HashMap<u64, Vec<(&str, &str)>> = Default::default();
        for c in all.values() {
            for (port, bits) in c["connections"].as_object().unwrap() {
                if c["port_directions"][port] == "input" {
                    for b in bits.as_array().unwrap().iter().filter_map(|b| b.as_u64()) {
                        loads
                            .entry(b)
                            .or_default()
                            .push((c["type"].as_str().unwrap(), port));
                    }
                }
            }
        }
        for (name, c) in all.iter().filter(|(_, c)| c["type"] == "CCU2C") {
            cells += 1;
            let cout = c["connections"]["COUT"][0].as_u64();
            let out = cout.and_then(|b| loads.get(&b)).map_or(&[][..], |l| &l[..]);
            let next = out.contains(&("CCU2C", "CIN"));
            if next && out.iter().any(|&l| l != ("CCU2C", "CIN")) {
                broken.push(format!("{module}: {name} -> {out:?}"));
            }
        }
    }
    (cells, broken)
}

#[test]
fn the_synthesized_ulx3s_netlist_counts_a_sample_exactly() {
    let v = check_json(&[
        "sim",
        "check",
        "10",
        "--engine",
        "netlist",
        "--board",
        "ulx3s",
        "--synthesized",
        "--sample",
        "300",
    ]);
    assert_eq!(v["engine"], "netlist (ECP5, synthesized)");
    assert_eq!(v["subproblems"], 300);
    assert_eq!(v["mismatches"], 0, "{v}");
    assert_eq!(v["cycle_mismatches"], 0, "{v}");
}

#[test]
fn the_kc705_xc7_netlist_counts_n8_exactly() {
    let v = check_json(&[
        "sim", "check", "8", "--unit", "plain", "--engine", "netlist", "--board", "kc705",
    ]);
    assert_exact(&v, 8, 92);
    assert_eq!(v["engine"], "netlist (xc7, synth_xilinx)");
}

/// A board of grouped units (issue 50) through its pins: each group's records, read member
/// by member, count every pre-placement exactly, with the grouped model's cycles.
#[test]
fn the_routed_ulx3s_grouped_netlist_counts_n10_exactly() {
    let v = check_json(&[
        "sim", "check", "10", "--unit", "grouped", "--engine", "netlist", "--board", "ulx3s",
    ]);
    assert_exact(&v, 10, 724);
    assert_eq!(v["engine"], "netlist (ECP5, placed and routed)");
}

#[test]
fn the_kc705_xc7_grouped_netlist_counts_n8_exactly() {
    let v = check_json(&[
        "sim", "check", "8", "--unit", "grouped", "--engine", "netlist", "--board", "kc705",
    ]);
    assert_exact(&v, 8, 92);
}

/// The U55C's PCIe build without the XDMA IP: its stream top (the core behind its
/// AXI4-Stream ports) as yosys maps it for Virtex UltraScale+, driven through its stream ports
/// by the harness's model of XDMA's streams (beats of 1 to 16 bytes, a ready that comes and
/// goes, TLAST checked at every frame's end).
#[test]
fn the_u55c_xcup_netlist_counts_n10_exactly_through_its_stream_ports() {
    let v = check_json(&[
        "sim", "check", "10", "--unit", "plain", "--engine", "netlist", "--board", "u55c",
    ]);
    assert_exact(&v, 10, 724);
    assert_eq!(v["engine"], "netlist (xcup, synth_xilinx, stream ports)");
    let netlist = std::fs::read_to_string(v["netlist"].as_str().expect("its path")).unwrap();
    // An UltraScale+ mapping: the block RAMs are the E2 cells (on our models), the LUT-RAMs
    // RAM32M16; no I/O buffers (the stream top sits inside the PCIe top).
    for cell in ["RAMB18E2 ", "RAM32M16 "] {
        assert!(netlist.contains(cell), "no {cell}in the xcup netlist");
    }
    for cell in ["RAMB18E1 ", "RAMB36E1 ", "IBUF ", "OBUF "] {
        assert!(!netlist.contains(cell), "{cell}in the xcup netlist");
    }
}

#[test]
fn the_u55c_xcup_grouped_netlist_counts_n10_exactly_through_its_stream_ports() {
    let v = check_json(&[
        "sim", "check", "10", "--unit", "grouped", "--engine", "netlist", "--board", "u55c",
    ]);
    assert_exact(&v, 10, 724);
}

/// `queens run --link pcie:...` against the U55C netlist: `queens sim board --xdma` serves
/// it on FIFOs standing in for XDMA's character devices, the netlist under Verilator behind
/// them with the harness playing XDMA's streams.
#[test]
fn queens_run_over_pcie_counts_n10_exactly_on_the_u55c_netlist() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("xdma0");
    let mut board = common::queens()
        .args([
            "sim", "board", "--n", "10", "--unit", "plain", "--engine", "netlist",
        ])
        .args(["--board", "u55c", "--xdma"])
        .arg(&base)
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("queens sim board starts");
    // The FIFOs appear once the netlist is made and compiled.
    let c2h = dir.path().join("xdma0_c2h_0");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(900);
    while !c2h.exists() {
        if let Some(status) = board.try_wait().unwrap() {
            panic!("queens sim board exited with {status}");
        }
        assert!(std::time::Instant::now() < deadline, "no FIFOs after 15 minutes");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let out = common::queens()
        .args(["run", "10", "--json", "--solvers", "2", "--link"])
        .arg(format!("pcie:{}", base.display()))
        .arg("--campaign")
        .arg(dir.path().join("q10"))
        .output()
        .expect("queens runs");
    let _ = board.kill();
    let _ = board.wait();
    let r: serde_json::Value = serde_json::from_str(&common::ok(&out)).expect("one JSON object");
    assert_eq!(r["total"], 724, "{r}");
    assert_eq!(r["complete"], true, "{r}");
    assert_eq!(r["solved"], r["subproblems"], "{r}");
}

#[test]
fn a_board_without_an_open_flow_is_refused_by_name() {
    let out = common::queens()
        .args(["sim", "check", "8", "--engine", "netlist", "--board", "de4"])
        .output()
        .unwrap();
    common::fails_with(&out, &["de4", "no open flow"]);
    let out = common::queens()
        .args(["sim", "check", "8", "--engine", "netlist"])
        .output()
        .unwrap();
    common::fails_with(&out, &["--board"]);
}

#[test]
fn a_yosys_without_its_cell_library_is_named_with_the_pinned_install() {
    // Debian's yosys on PATH (it has no yosys-config) and the pinned PyPI tools not: a PATH
    // with only a shell and a yosys that does nothing.
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("/bin/sh", dir.path().join("sh")).unwrap();
    let yosys = dir.path().join("yosys");
    std::fs::write(&yosys, "#!/bin/sh\nexit 1\n").unwrap();
    std::fs::set_permissions(&yosys, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = common::queens()
        .args(["sim", "check", "8", "--engine", "netlist", "--board", "kc705"])
        .env("PATH", dir.path())
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap();
    common::fails_with(
        &out,
        &[
            "yosys on PATH came without yosys-config",
            &queens_hdl::board::toolchain::trellis::pip_install(),
            "target/ecp5-tools/bin",
        ],
    );
}

/// The netlist with the LUT that computes the lowest bit of unit 0's solution count that
/// the routed netlist names inverted (a flip-flop fed by a LUT: through DI when paired in its
/// slice, else through M), and that LUT's instance name.
fn flip_count_lut(netlist: &str) -> Option<(String, String)> {
    let cells = cells(netlist);
    let (_, data) = cells
        .iter()
        .filter(|c| c.text.starts_with("  QUEENS_FF"))
        .filter_map(|c| {
            // A flip-flop of the count's low half, by its instance name (its output's name is
            // whichever alias yosys kept: the count's, or the record's it feeds); the lowest
            // bit by that name's index.
            let name = c.text.lines().find(|l| l.trim_start().starts_with(')'))?;
            if !name.contains("unit[0].s.count.lo.q") {
                return None;
            }
            let q = port(c.text, "Q")?;
            let bit: u32 = q.rsplit('[').next()?.split(']').next()?.parse().ok()?;
            let from = if c.text.contains(".SD(\"1\")") { "DI" } else { "M" };
            Some((bit, port(c.text, from)?))
        })
        .min()?;
    let lut = cells.iter().find(|c| {
        c.text.starts_with("  QUEENS_COMB") && port(c.text, "F").as_deref() == Some(data.as_str())
    })?;
    let init = lut.text.find(".INITVAL(16'h")? + ".INITVAL(16'h".len();
    let old = u16::from_str_radix(&lut.text[init..init + 4], 16).ok()?;
    let mut out = netlist.to_string();
    let at = lut.start + init;
    out.replace_range(at..at + 4, &format!("{:04x}", !old));
    let name = lut.text.lines().find(|l| l.trim_start().starts_with(')'))?;
    Some((out, name.trim().to_string()))
}

struct Cell<'a> {
    start: usize,
    text: &'a str,
}

/// The cell instances of a yosys-written netlist: from `  TYPE #(` to the closing `  );`.
fn cells(netlist: &str) -> Vec<Cell<'_>> {
    let mut v = Vec::new();
    let mut at = 0;
    while let Some(i) = netlist[at..].find(" #(\n") {
        let line = netlist[..at + i].rfind('\n').map_or(0, |p| p + 1);
        let Some(end) = netlist[at + i..].find("\n  );") else {
            break;
        };
        let end = at + i + end + 5;
        v.push(Cell {
            start: line,
            text: &netlist[line..end],
        });
        at = end;
    }
    v
}

/// The net on port `name` of a cell, as written.
fn port(cell: &str, name: &str) -> Option<String> {
    let key = format!(".{name}(");
    let i = cell.find(&key)? + key.len();
    let end = cell[i..].find("),\n").or_else(|| cell[i..].find(")\n"))?;
    Some(cell[i..i + end].trim().to_string())
}
