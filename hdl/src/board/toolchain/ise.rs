//! ISE 14.7 (Virtex-6): UCF constraints and a Tcl build (xtclsh) that runs xst, ngdbuild,
//! map, par, trce and bitgen, and fails when timing is not met.

use super::{async_paths, ref_clock, ref_period_ns, Files, SOURCES, TOP};
use crate::board::top::Port;
use crate::board::Board;

fn ucf(b: &Board, ports: &[Port]) -> String {
    let mut s = format!(
        "# {} ({}): pins and clock of the board top `{TOP}`.\n",
        b.name, b.part
    );
    for p in ports {
        s += &format!(
            "NET \"{}\" LOC = \"{}\" | IOSTANDARD = \"{}\";\n",
            p.name, p.pin, p.standard
        );
    }
    let clk = &ref_clock(ports).name;
    s += &format!(
        "NET \"{clk}\" TNM_NET = \"clk_ref\";\nTIMESPEC \"TS_clk_ref\" = PERIOD \"clk_ref\" {:.3} ns HIGH 50%;\n",
        ref_period_ns(b)
    );
    // UCF ignores timing on a net, whichever way it goes.
    s += &async_paths(ports, |_, names| {
        names.split(' ').map(|n| format!("NET \"{n}\" TIG;\n")).collect()
    });
    s
}

pub fn files(b: &Board, ports: &[Port]) -> Files {
    let ucf_name = format!("{}.ucf", b.name);
    let prj: String = SOURCES
        .iter()
        .map(|f| format!("verilog work ../{f}\\n"))
        .collect();
    let script = format!(
        r#"# ISE 14.7 build of the queens accelerator for {name} ({part}).
# Run: xtclsh build.tcl   (with the ISE tools on PATH: source settings64.sh first)
set here [file dirname [file normalize [info script]]]
set part {part}
file mkdir [file join $here out]
cd [file join $here out]
proc step {{args}} {{
    puts ">> $args"
    if {{[catch {{exec {{*}}$args >@ stdout 2>@ stderr}} msg]}} {{
        puts "ERROR: [lindex $args 0] failed: $msg"
        exit 1
    }}
}}
set f [open queens.prj w]
puts -nonewline $f "{prj}"
close $f
set f [open queens.xst w]
puts $f "run -ifn queens.prj -ifmt mixed -top {TOP} -p $part -ofn queens.ngc -opt_mode speed -opt_level 2"
close $f
step xst -ifn queens.xst -ofn queens.syr
step ngdbuild -p $part -uc ../{ucf_name} queens.ngc queens.ngd
step map -p $part -ol high -o queens_map.ncd queens.ngd queens.pcf
step par -w -ol high queens_map.ncd queens.ncd queens.pcf
step trce -v 3 -u -o queens.twr queens.ncd queens.pcf
# Fail the build when timing is not met.
set f [open queens.twr]
set report [read $f]
close $f
if {{![regexp {{All constraints were met}} $report]}} {{
    puts "ERROR: timing not met; see out/queens.twr"
    exit 1
}}
step bitgen -w -g Compress queens.ncd {TOP}.bit queens.pcf
puts "bitstream: [file join $here out {TOP}.bit]"
"#,
        name = b.name,
        part = b.part,
    );
    let program = format!(
        "setMode -bs\nsetCable -port auto\nIdentify -inferir\nassignFile -p 2 -file out/{TOP}.bit\nProgram -p 2\nquit\n"
    );
    Files {
        constraints: vec![(ucf_name, ucf(b, ports))],
        script,
        script_name: "build.tcl",
        command: "xtclsh build.tcl",
        program: "impact -batch program.cmd   (the ML605 chain is System ACE, then the FPGA at position 2; `Identify` lists it)".into(),
        extra: vec![("program.cmd".into(), program)],
    }
}
