//! A wire synthesis must keep: a cut point that stops yosys/abc from folding a late decision
//! into every register's input logic (which deepens the longest path).

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Keep {
    pub a: Signal<In, Bit>,
    pub y: Signal<Out, Bit>,
}

impl Logic for Keep {
    fn update(&mut self) {
        self.y.next = self.a.val();
    }

    fn connect(&mut self) {
        self.y.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom("(* keep *) wire w = a;\nalways @(*) y = w;\n".into())
    }
}

/// [`Keep`] for a word, where the fabric asks for it: a value computed early, kept whole so
/// that only a multiplexer follows the late decision that picks it. With `keep` off it is a
/// plain wire, for fabrics whose LUT holds the whole choice anyway.
#[derive(LogicBlock)]
pub struct KeepBits<const W: usize> {
    pub a: Signal<In, Bits<W>>,
    pub y: Signal<Out, Bits<W>>,
    _keep: bool,
}

impl<const W: usize> KeepBits<W> {
    pub fn new(keep: bool) -> Self {
        Self {
            a: Default::default(),
            y: Default::default(),
            _keep: keep,
        }
    }
}

impl<const W: usize> Logic for KeepBits<W> {
    fn update(&mut self) {
        self.y.next = self.a.val();
    }

    fn connect(&mut self) {
        self.y.connect();
    }

    fn hdl(&self) -> Verilog {
        let keep = if self._keep { "(* keep *) " } else { "" };
        Verilog::Custom(format!("{keep}wire [{}:0] w = a;\nalways @(*) y = w;\n", W - 1))
    }
}
