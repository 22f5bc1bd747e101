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

/// rust-hdl names the top module `top` and its children `top$path`: give them a prefix of
/// our own so that several generated blocks can share one file.
pub fn rename_top(v: &str, name: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for line in v.lines() {
        let l = line.replace("module top(", &format!("module {name}(")).replace("module top$", &format!("module {name}$"));
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
