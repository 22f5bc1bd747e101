//! A 32-word distributed (LUT) RAM: one synchronous write port, two asynchronous read ports.
//! Synthesis maps it onto LUT-RAM cells (RAM32M on Xilinx, MLABs on Altera): a few LUTs
//! instead of a register file with its multiplexers.

use crate::solver::words::Words;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct LutRam<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub we: Signal<In, Bit>,
    pub waddr: Signal<In, Bits<5>>,
    pub wdata: Signal<In, Bits<W>>,
    pub raddr0: Signal<In, Bits<5>>,
    pub rdata0: Signal<Out, Bits<W>>,
    pub raddr1: Signal<In, Bits<5>>,
    pub rdata1: Signal<Out, Bits<W>>,
    _mem: Words<W, 32>,
}

impl<const W: usize> Logic for LutRam<W> {
    fn update(&mut self) {
        if self.clock.pos_edge() && self.we.val() {
            self._mem[self.waddr.val().index()] = self.wdata.val();
        }
        self.rdata0.next = self._mem[self.raddr0.val().index()];
        self.rdata1.next = self._mem[self.raddr1.val().index()];
    }

    fn connect(&mut self) {
        self.rdata0.connect();
        self.rdata1.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
reg [{msb}:0] mem [0:31];
integer i;
initial for (i = 0; i < 32; i = i + 1) mem[i] = 0;
always @(posedge clock) begin
    if (we) mem[waddr] <= wdata;
end
always @(*) begin
    rdata0 = mem[raddr0];
    rdata1 = mem[raddr1];
end
",
            msb = W - 1
        ))
    }
}
