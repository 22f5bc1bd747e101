//! Vivado (7-series and UltraScale+): XDC constraints and a non-project Tcl build that fails
//! when timing is not met.

use super::{false_paths, ref_clock, ref_period_ns, Files, SOURCES, TOP};
use crate::board::top::Port;
use crate::board::Board;

/// The PCIe build's top module.
pub const PCIE_TOP: &str = "queens_pcie";

/// Pins, I/O standards (none on transceiver pins) and the reference clock's period.
fn pins_and_clock(ports: &[Port], period_ns: f64) -> String {
    let mut s = String::new();
    for p in ports {
        if p.standard.is_empty() {
            s += &format!("set_property PACKAGE_PIN {} [get_ports {}]\n", p.pin, p.name);
        } else {
            s += &format!(
                "set_property -dict {{PACKAGE_PIN {} IOSTANDARD {}}} [get_ports {}]\n",
                p.pin, p.standard, p.name
            );
        }
    }
    s += &format!(
        "create_clock -period {period_ns:.3} -name clk_ref [get_ports {}]\n",
        ref_clock(ports).name
    );
    s
}

fn xdc(b: &Board, ports: &[Port]) -> String {
    let mut s = format!(
        "# {name} ({part}): pins and clock of the board top `{TOP}`.\n",
        name = b.name,
        part = b.part
    );
    s += &pins_and_clock(ports, ref_period_ns(b));
    s += &false_paths(ports);
    s
}

/// The non-project flow for top `top`: `prelude` (IP generation) first, then synthesis,
/// implementation, reports, a stop when timing is not met, and the bitstream.
fn script(b: &Board, what: &str, prelude: &str, sources: &[&str], xdc_name: &str, top: &str) -> String {
    let sources: Vec<String> = sources.iter().map(|f| format!("$here/{f}")).collect();
    let (cfgbvs, config_voltage) = b
        .config_bank()
        .expect("a Vivado board's configuration bank was checked on load");
    format!(
        r#"# Vivado non-project build of {what} ({part}).
# Run: vivado -mode batch -source build.tcl
set here [file dirname [file normalize [info script]]]
set out [file join $here out]
file mkdir $out
{prelude}read_verilog [list {sources}]
read_xdc [file join $here {xdc_name}]
synth_design -top {top} -part {part}
opt_design -retarget -propconst -sweep
place_design -directive Explore
route_design -directive Explore
report_utilization -file [file join $out utilization.rpt]
report_timing_summary -file [file join $out timing.rpt]
# Fail the build when timing is not met.
set setup [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -setup]]
set hold [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -hold]]
if {{$setup eq "" || $hold eq "" || $setup < 0 || $hold < 0}} {{
    puts "ERROR: timing not met (worst setup slack $setup ns, hold slack $hold ns); see out/timing.rpt"
    exit 1
}}
set_property BITSTREAM.GENERAL.COMPRESS TRUE [current_design]
set_property CFGBVS {cfgbvs} [current_design]
set_property CONFIG_VOLTAGE {config_voltage} [current_design]
write_bitstream -force [file join $out {top}.bit]
puts "bitstream: [file join $out {top}.bit] (setup slack $setup ns)"
"#,
        part = b.part,
        sources = sources.join(" "),
        cfgbvs = cfgbvs.name(),
    )
}

/// The programming script: loads `out/{top}.bit` over JTAG.
fn program(top: &str) -> String {
    format!(
        r#"# Loads out/{top}.bit into the first device of the first JTAG cable.
# Run: vivado -mode batch -source program.tcl
set here [file dirname [file normalize [info script]]]
open_hw_manager
connect_hw_server
open_hw_target
set device [lindex [get_hw_devices] 0]
current_hw_device $device
set_property PROGRAM.FILE [file join $here out {top}.bit] $device
program_hw_devices $device
close_hw_manager
"#
    )
}

pub fn files(b: &Board, ports: &[Port]) -> Files {
    let xdc_name = format!("{}.xdc", b.name);
    let script = script(
        b,
        &format!("the queens accelerator for {}", b.name),
        "",
        &SOURCES,
        &xdc_name,
        TOP,
    );
    Files {
        constraints: vec![(xdc_name, xdc(b, ports))],
        script,
        script_name: "build.tcl",
        command: "vivado -mode batch -source build.tcl",
        program: "vivado -mode batch -source program.tcl".into(),
        extra: vec![("program.tcl".into(), program(TOP))],
    }
}

/// The PCIe build: XDC for the PCIe top, and a build script that first generates Xilinx's
/// XDMA IP (x`lanes` Gen`gen`, AXI4-Stream, one channel each way at 250 MHz: 128-bit on the
/// 7-series boards, 512-bit at UltraScale+ x16 Gen3, with Xilinx's AXI4-Stream width
/// converters to the stream top's 128 bits).
pub fn pcie_files(b: &Board, ports: &[Port], sources: &[&str]) -> Files {
    let p = b.pcie.as_ref().expect("a board with a [pcie] table");
    let xdc_name = format!("{}_pcie.xdc", b.name);
    let mut x = format!(
        "# {} ({}): pins and clock of the PCIe top `{PCIE_TOP}` (the XDMA IP places the lanes).\n",
        b.name, b.part
    );
    // The PCIe reference clock runs at 100 MHz.
    x += &pins_and_clock(ports, 10.0);
    x += &false_paths(ports);
    let speed = match p.gen {
        3 => "8.0_GT/s",
        2 => "5.0_GT/s",
        _ => "2.5_GT/s",
    };
    let bytes = crate::board::top::pcie_stream_bytes(b);
    let mut ip = format!(
        r#"set_part {part}
# Xilinx's DMA/Bridge Subsystem for PCI Express (PG195): streaming, one channel each way.
create_ip -name xdma -vendor xilinx.com -library ip -module_name xdma_0 -dir $out
set_property -dict [list \
    CONFIG.mode_selection {{Advanced}} \
    CONFIG.pl_link_cap_max_link_width {{X{lanes}}} \
    CONFIG.pl_link_cap_max_link_speed {{{speed}}} \
    CONFIG.ref_clk_freq {{100_MHz}} \
    CONFIG.axi_data_width {{{bits}_bit}} \
    CONFIG.axisten_freq {{250}} \
    CONFIG.xdma_axi_intf_mm {{AXI_Stream}} \
    CONFIG.xdma_rnum_chnl {{1}} \
    CONFIG.xdma_wnum_chnl {{1}} \
] [get_ips xdma_0]
generate_target {{synthesis implementation}} [get_ips xdma_0]
synth_ip [get_ips xdma_0]
"#,
        part = b.part,
        lanes = p.lanes,
        bits = bytes * 8,
    );
    if bytes != 16 {
        for (name, from, to) in [("axis_h2c_0", bytes, 16), ("axis_c2h_0", 16, bytes)] {
            ip += &format!(
                r#"# AXI4-Stream Data Width Converter (PG085): {from} bytes in, {to} out, TKEEP and TLAST kept.
create_ip -name axis_dwidth_converter -vendor xilinx.com -library ip -module_name {name} -dir $out
set_property -dict [list \
    CONFIG.S_TDATA_NUM_BYTES {{{from}}} \
    CONFIG.M_TDATA_NUM_BYTES {{{to}}} \
    CONFIG.HAS_TKEEP {{1}} \
    CONFIG.HAS_TLAST {{1}} \
] [get_ips {name}]
generate_target {{synthesis implementation}} [get_ips {name}]
synth_ip [get_ips {name}]
"#
            );
        }
    }
    let script = script(
        b,
        &format!("the queens accelerator behind PCIe for {}", b.name),
        &ip,
        sources,
        &xdc_name,
        PCIE_TOP,
    );
    Files {
        constraints: vec![(xdc_name, x)],
        script,
        script_name: "build.tcl",
        command: "vivado -mode batch -source build.tcl",
        program: "vivado -mode batch -source program.tcl   (then reboot the host, or rescan the PCI bus, so that it enumerates the board; load Xilinx's XDMA driver, which makes /dev/xdma0_h2c_0 and /dev/xdma0_c2h_0)".into(),
        extra: vec![("program.tcl".into(), program(PCIE_TOP))],
    }
}
