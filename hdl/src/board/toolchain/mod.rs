//! One module per vendor toolchain: its constraint format and its build script, each written
//! from the board file by one template.

pub mod ise;
pub mod quartus;
pub mod trellis;
pub mod vivado;

use super::top::{Dir, Port};
use super::{Board, Toolchain};

/// What a build directory holds for the toolchain.
pub struct Files {
    /// (file name, contents) of the constraints.
    pub constraints: Vec<(String, String)>,
    /// The build script (`script_name`), run by `command`.
    pub script: String,
    pub script_name: &'static str,
    pub command: &'static str,
    /// How to load the bitstream, for the README.
    pub program: String,
    /// Extra files (a programming script), (name, contents).
    pub extra: Vec<(String, String)>,
}

/// The Verilog sources of a build, in compile order, and the top module.
pub const SOURCES: [&str; 3] = ["queens_core.v", "queens_top.v", "queens_board.v"];
pub const TOP: &str = "queens_board";

pub fn files(b: &Board, ports: &[Port], compute_hz: f64) -> Files {
    match b.toolchain() {
        Toolchain::Vivado => vivado::files(b, ports),
        Toolchain::Ise => ise::files(b, ports),
        Toolchain::Quartus => quartus::files(b, ports, compute_hz),
        Toolchain::Trellis => trellis::files(b, ports, compute_hz),
    }
}

/// The reference clock's input pin (the first one of a differential pair).
pub fn ref_clock(ports: &[Port]) -> &Port {
    ports
        .iter()
        .find(|p| p.role.is_clock())
        .expect("every top has a reference clock")
}

/// The pins asynchronous to the compute clock (UART, fan, reset, ties): `line(dir, names)`
/// writes the constraint for the inputs and for the outputs, names joined by spaces.
pub fn async_paths(ports: &[Port], line: impl Fn(Dir, &str) -> String) -> String {
    let mut s = String::from("# UART, fan and reset are asynchronous to the compute clock.\n");
    for dir in [Dir::In, Dir::Out] {
        let names: Vec<&str> = ports
            .iter()
            .filter(|p| p.dir == dir && !p.role.is_clock())
            .map(|p| p.name.as_str())
            .collect();
        if !names.is_empty() {
            s += &line(dir, &names.join(" "));
        }
    }
    s
}

/// The asynchronous pins as false paths, in the syntax XDC and SDC share.
pub fn false_paths(ports: &[Port]) -> String {
    async_paths(ports, |dir, names| match dir {
        Dir::In => format!("set_false_path -from [get_ports {{{names}}}]\n"),
        Dir::Out => format!("set_false_path -to [get_ports {{{names}}}]\n"),
    })
}

/// The constraint files of a board (what `constraints/` holds for the built-in ones).
pub fn constraints(b: &Board, ports: &[Port]) -> Vec<(String, String)> {
    files(b, ports, b.defaults.clock_hz as f64).constraints
}

/// Clock period of the reference oscillator in ns.
pub fn ref_period_ns(b: &Board) -> f64 {
    1e9 / b.clock.hz as f64
}
