//! Quartus (Stratix IV): QSF pin assignments, SDC clocks, and a Tcl build (quartus_sh -t)
//! that fails when TimeQuest reports a negative slack.

use super::{false_paths, ref_clock, ref_period_ns, Files, SOURCES, TOP};
use crate::board::top::Port;
use crate::board::Board;

fn qsf(b: &Board, ports: &[Port]) -> String {
    let mut s = format!("# {} ({}): pins of the board top `{TOP}`.\n", b.name, b.part);
    for p in ports {
        s += &format!(
            "set_location_assignment PIN_{} -to {}\nset_instance_assignment -name IO_STANDARD \"{}\" -to {}\n",
            p.pin, p.name, p.standard, p.name
        );
    }
    s
}

fn sdc(b: &Board, ports: &[Port]) -> String {
    let mut s = format!("# {} ({}): clocks of the board top `{TOP}`.\n", b.name, b.part);
    s += &format!(
        "create_clock -name clk_ref -period {:.3} [get_ports {{{}}}]\nderive_pll_clocks\nderive_clock_uncertainty\n",
        ref_period_ns(b),
        ref_clock(ports).name
    );
    s += &false_paths(ports);
    s
}

pub fn files(b: &Board, ports: &[Port], compute_hz: f64) -> Files {
    let (qsf_name, sdc_name) = (format!("{}.qsf", b.name), format!("{}.sdc", b.name));
    let sources: String = SOURCES
        .iter()
        .map(|f| format!("set_global_assignment -name VERILOG_FILE {f}\n"))
        .collect();
    let family = "Stratix IV";
    let script = format!(
        r#"# Quartus build of the queens accelerator for {name} ({part}), {mhz:.3} MHz compute clock.
# Run: quartus_sh -t build.tcl
load_package flow
set here [file dirname [file normalize [info script]]]
cd $here
project_new {TOP} -overwrite
set_global_assignment -name FAMILY "{family}"
set_global_assignment -name DEVICE {part}
set_global_assignment -name TOP_LEVEL_ENTITY {TOP}
set_global_assignment -name PROJECT_OUTPUT_DIRECTORY out
{sources}set_global_assignment -name SDC_FILE {sdc_name}
set_global_assignment -name OPTIMIZATION_TECHNIQUE SPEED
set_global_assignment -name PHYSICAL_SYNTHESIS_REGISTER_RETIMING ON
set_global_assignment -name PHYSICAL_SYNTHESIS_REGISTER_DUPLICATION ON
set_global_assignment -name ROUTER_TIMING_OPTIMIZATION_LEVEL MAXIMUM
source {qsf_name}
export_assignments
if {{[catch {{execute_flow -compile}} result]}} {{
    puts "ERROR: compilation failed: $result"
    project_close
    exit 1
}}
project_close
# Fail the build when timing is not met: every slack in TimeQuest's summary must be >= 0.
set f [open [file join out {TOP}.sta.summary]]
set summary [read $f]
close $f
foreach {{line slack}} [regexp -all -inline {{Slack\s*:\s*(-?[0-9.]+)}} $summary] {{
    if {{$slack < 0}} {{
        puts "ERROR: timing not met (slack $slack ns); see out/{TOP}.sta.summary"
        exit 1
    }}
}}
puts "bitstream: [file join $here out {TOP}.sof]"
"#,
        name = b.name,
        part = b.part,
        mhz = compute_hz / 1e6,
    );
    Files {
        constraints: vec![(qsf_name, qsf(b, ports)), (sdc_name, sdc(b, ports))],
        script,
        script_name: "build.tcl",
        command: "quartus_sh -t build.tcl",
        program: format!("quartus_pgm -c USB-Blaster -m jtag -o \"p;out/{TOP}.sof\""),
        extra: vec![],
    }
}
