//! A simple dual-port RAM of 2^N words: one synchronous write port, one synchronous read port,
//! one clock. What a read of the word being written returns is left undefined
//! (`no_rw_check`), which every user here allows: yosys otherwise wraps an ECP5 block RAM in
//! a comparator and a bypass multiplexer to define it (55 LUT4 and 84 flip-flops for a
//! 1024 x 36 RAM), and that bypass lay on the front end's longest routed path.
//!
//! The simulation returns the old word, as the Verilog does in a simulator.

use rust_hdl::prelude::*;
use std::collections::BTreeMap;

#[derive(LogicBlock, Default)]
pub struct Ram<D: Synth, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<N>>,
    pub read_data: Signal<Out, D>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<N>>,
    pub write_data: Signal<In, D>,
    _mem: BTreeMap<Bits<N>, D>,
}

impl<D: Synth, const N: usize> Logic for Ram<D, N> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.read_data.next = self
                ._mem
                .get(&self.read_address.val())
                .copied()
                .unwrap_or_default();
            if self.write_enable.val() {
                self._mem.insert(self.write_address.val(), self.write_data.val());
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
    read_data <= mem[read_address];
    if (write_enable) mem[write_address] <= write_data;
end
",
            msb = D::BITS - 1,
            top = (1usize << N) - 1
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
