//! Verilog text of the circuits.

use crate::arbiter::ArbiterKind;
use rust_hdl::prelude::*;

/// The Verilog of a bare unit for inner width m, its top module renamed to `name`.
pub fn unit_verilog(m: usize, kind: ArbiterKind, name: &str) -> String {
    let v = crate::with_unit!(m, U => {
        let mut u = U::new(kind);
        u.connect_all();
        generate_verilog(&u)
    });
    rename_top(&v, name)
}

/// The Verilog of one solver stage (unit, result record, chain registers) for inner width m.
pub fn stage_verilog(m: usize, kind: ArbiterKind, name: &str) -> String {
    macro_rules! stage {
        ($($a:literal $b:literal $c:literal),*) => {
            match m {
                $( $a => {
                    let mut st = crate::stage::Stage::<$a, $b, $c>::new(kind);
                    st.connect_all();
                    generate_verilog(&st)
                } )*
                other => panic!("no stage for inner width {other}"),
            }
        };
    }
    let v = stage!(2 3 3, 3 4 5, 4 5 7, 5 6 9, 6 7 11, 7 8 13, 8 9 15, 9 10 17, 10 11 19, 11 12 21,
        12 13 23, 13 14 25, 14 15 27, 15 16 29, 16 17 31, 17 18 33, 18 19 35, 19 20 37,
        20 21 39, 21 22 41, 22 23 43, 23 24 45, 24 25 47, 25 26 49, 26 27 51, 27 28 53, 28 29 55);
    rename_top(&v, name)
}

/// rust-hdl names the top module `top` and its children `top$path`: give them a prefix of
/// our own so that several generated blocks can share one file.
pub fn rename_top(v: &str, name: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for line in v.lines() {
        let l = line
            .replace("module top(", &format!("module {name}("))
            .replace("module top$", &format!("module {name}$"));
        // Instantiations of children: "top$a$b inst(" at the start of a line.
        let l = if let Some(rest) = l.trim_start().strip_prefix("top$") {
            let indent = &l[..l.len() - l.trim_start().len()];
            format!("{indent}{name}${rest}")
        } else {
            l
        };
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// The Verilog of one arbiter for m rows, its module named `name`.
pub fn arbiter_verilog(m: usize, kind: ArbiterKind, name: &str) -> String {
    macro_rules! arb {
        ($($m:literal $m1:literal),*) => {
            match m {
                $( $m => {
                    let mut a = crate::arbiter::Arbiter::<$m, $m1>::new(kind);
                    a.connect_all();
                    generate_verilog(&a)
                } )*
                other => panic!("no arbiter for {other} rows"),
            }
        };
    }
    let v = arb!(2 3, 3 4, 4 5, 5 6, 6 7, 7 8, 8 9, 9 10, 10 11, 11 12, 12 13, 13 14, 14 15, 15 16, 16 17,
        17 18, 18 19, 19 20, 20 21, 21 22, 22 23, 23 24, 24 25, 25 26, 26 27, 27 28, 28 29);
    rename_top(&v, name)
}

/// Behavioural model of CARRY4 for simulators (not for synthesis).
pub const CARRY4_SIM: &str = include_str!("../verilog/CARRY4_sim.v");
/// CARRY4 port list as a black box, for checks outside the vendor tools.
pub const CARRY4_STUB: &str = include_str!("../verilog/CARRY4_stub.v");
