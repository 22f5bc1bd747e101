//! A block RAM of 1,024 words: one synchronous write port and one read port whose data is
//! registered (the block RAM's own read register). Written as the template every vendor's
//! synthesis maps onto block RAM (DP16KD on the ECP5, RAMB18/36 on Xilinx, M9K/M144K on
//! Altera); it starts all zeros. A word read in the cycle it is written reads undefined on
//! some of them (`no_rw_check` tells yosys so, which then adds no bypass): its users never
//! use such a read (the tally forwards the written word instead).
//!
//! On UltraScale+ the same template can go to UltraRAM instead ([`Memory::Ultra`]): the
//! memory then carries `(* ram_style = "ultra" *)`, which Vivado reads and yosys' `synth_xilinx
//! -family xcup -uram` maps onto one URAM288 (1,024 words of up to 72 bits); it has no initial
//! block, as UltraRAM has no INIT and powers up at zero (UG901, "Differences between UltraRAM
//! and Block RAM").

use crate::solver::words::Words;
use rust_hdl::prelude::*;

/// Address bits: 1,024 words.
pub const BRAM_ADDR_BITS: usize = 10;

/// Which of the device's RAMs the template asks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Memory {
    /// Block RAM, as every vendor's synthesis infers it (no attribute).
    #[default]
    Block,
    /// UltraRAM (UltraScale+): `(* ram_style = "ultra" *)`, no initial contents.
    Ultra,
}

#[derive(LogicBlock, Default)]
pub struct BlockRam<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub we: Signal<In, Bit>,
    pub waddr: Signal<In, Bits<BRAM_ADDR_BITS>>,
    pub wdata: Signal<In, Bits<W>>,
    pub raddr: Signal<In, Bits<BRAM_ADDR_BITS>>,
    /// The word at `raddr` as it stood at the last clock edge (written words read after it).
    pub rdata: Signal<Out, Bits<W>>,
    _mem: Words<W, { 1 << BRAM_ADDR_BITS }>,
    _out: Bits<W>,
    _memory: Memory,
}

impl<const W: usize> BlockRam<W> {
    /// The RAM in `memory` (block RAM by default): only its Verilog differs.
    pub fn set_memory(&mut self, memory: Memory) {
        self._memory = memory;
    }
}

impl<const W: usize> Logic for BlockRam<W> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            // Read first: a word written in this edge reads back from the next.
            self._out = self._mem[self.raddr.val().index()];
            if self.we.val() {
                self._mem[self.waddr.val().index()] = self.wdata.val();
            }
        }
        self.rdata.next = self._out;
    }

    fn connect(&mut self) {
        self.rdata.connect();
    }

    fn hdl(&self) -> Verilog {
        let (style, init) = match self._memory {
            Memory::Block => (
                "",
                format!(
                    "\
integer i;
initial begin
    for (i = 0; i <= {top}; i = i + 1) mem[i] = 0;
    rdata = 0;
end
",
                    top = (1 << BRAM_ADDR_BITS) - 1
                ),
            ),
            // UltraRAM has no INIT: it powers up at zero.
            Memory::Ultra => ("(* ram_style = \"ultra\" *)\n", String::new()),
        };
        Verilog::Custom(format!(
            "\
{style}(* no_rw_check *)
reg [{msb}:0] mem [0:{top}];
{init}always @(posedge clock) begin
    rdata <= mem[raddr];
    if (we) mem[waddr] <= wdata;
end
",
            msb = W - 1,
            top = (1 << BRAM_ADDR_BITS) - 1
        ))
    }
}
