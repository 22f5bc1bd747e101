//! A block RAM of 1,024 words: one synchronous write port and one read port whose data is
//! registered (the block RAM's own read register). Written as the template every vendor's
//! synthesis maps onto block RAM (DP16KD on the ECP5, RAMB18/36 on Xilinx, M9K/M144K on
//! Altera); it starts all zeros. A word read in the cycle it is written reads undefined on
//! some of them (`no_rw_check` tells yosys so, which then adds no bypass): its users never
//! use such a read (the tally forwards the written word instead).

use rust_hdl::prelude::*;

/// Address bits: 1,024 words.
pub const BRAM_ADDR_BITS: usize = 10;

#[derive(LogicBlock)]
pub struct BlockRam<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub we: Signal<In, Bit>,
    pub waddr: Signal<In, Bits<BRAM_ADDR_BITS>>,
    pub wdata: Signal<In, Bits<W>>,
    pub raddr: Signal<In, Bits<BRAM_ADDR_BITS>>,
    /// The word at `raddr` as it stood at the last clock edge (written words read after it).
    pub rdata: Signal<Out, Bits<W>>,
    _mem: Vec<Bits<W>>,
    _out: Bits<W>,
}

impl<const W: usize> Default for BlockRam<W> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            we: Default::default(),
            waddr: Default::default(),
            wdata: Default::default(),
            raddr: Default::default(),
            rdata: Default::default(),
            _mem: vec![Bits::<W>::default(); 1 << BRAM_ADDR_BITS],
            _out: Default::default(),
        }
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
        Verilog::Custom(format!(
            "\
(* no_rw_check *)
reg [{msb}:0] mem [0:{top}];
integer i;
initial begin
    for (i = 0; i <= {top}; i = i + 1) mem[i] = 0;
    rdata = 0;
end
always @(posedge clock) begin
    rdata <= mem[raddr];
    if (we) mem[waddr] <= wdata;
end
",
            msb = W - 1,
            top = (1 << BRAM_ADDR_BITS) - 1
        ))
    }
}
