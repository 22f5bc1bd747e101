//! A simple dual-port RAM of 2^N words, or fewer: one synchronous write port, one synchronous
//! read port, one clock. What a read of the word being written returns is left undefined
//! (`no_rw_check`), which every user here allows: yosys otherwise wraps an ECP5 block RAM in
//! a comparator and a bypass multiplexer to define it (55 LUT4 and 84 flip-flops for a
//! 1024 x 36 RAM), and that bypass lay on the front end's longest routed path.
//!
//! The simulation returns the old word, as the Verilog does in a simulator.

use rust_hdl::prelude::*;
use std::collections::BTreeMap;

#[derive(LogicBlock)]
pub struct Ram<D: Synth, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<N>>,
    pub read_data: Signal<Out, D>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<N>>,
    pub write_data: Signal<In, D>,
    _mem: BTreeMap<usize, D>,
    /// Address bits in use: 2^bits words, the addresses' upper bits ignored.
    _bits: usize,
}

impl<D: Synth, const N: usize> Default for Ram<D, N> {
    fn default() -> Self {
        Self::with_bits(N)
    }
}

impl<D: Synth, const N: usize> Ram<D, N> {
    /// A RAM of 2^`bits` words (`bits` at most N): a table addressed by N-bit unit ids sized
    /// for the units there are, not for every id.
    pub fn with_bits(bits: usize) -> Self {
        assert!((1..=N).contains(&bits), "1 to {N} address bits");
        Self {
            clock: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            write_enable: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            _mem: Default::default(),
            _bits: bits,
        }
    }
}

impl<D: Synth, const N: usize> Logic for Ram<D, N> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let mask = (1usize << self._bits) - 1;
            let at = |a: Bits<N>| a.index() & mask;
            self.read_data.next = self
                ._mem
                .get(&at(self.read_address.val()))
                .copied()
                .unwrap_or_default();
            if self.write_enable.val() {
                self._mem
                    .insert(at(self.write_address.val()), self.write_data.val());
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
(* no_rw_check *) reg [{msb}:0] mem [0:{top}];
always @(posedge clock) begin
    read_data <= mem[read_address[{a}:0]];
    if (write_enable) mem[write_address[{a}:0]] <= write_data;
end
",
            msb = D::BITS - 1,
            top = (1usize << self._bits) - 1,
            a = self._bits - 1
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "ram".into(),
            clock: "clock".into(),
            inputs: vec![
                "read_address".into(),
                "write_address".into(),
                "write_data".into(),
                "write_enable".into(),
            ],
            outputs: vec!["read_data".into()],
        }]
    }
}
