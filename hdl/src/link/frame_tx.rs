//! The framer: sentinel, payload bytes (taken from the top of a left-aligned register),
//! CRC-8, XORed with `crc_xor` (0 for results; identification answers have their own).
//! Payloads up to 160 bits (the result frame with cycle counter for N <= 32 is 144).

use crate::link::crc8::{Crc8, INIT};
use queens_core::frame::SENTINEL;
use rust_hdl::prelude::*;

pub const PAYLOAD_BITS: usize = 160;
const _: () = assert!(PAYLOAD_BITS - 8 == 152);

/// Where the framer is in a frame.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum Phase {
    Idle,
    Sentinel,
    Payload,
    Crc,
}

#[derive(LogicBlock)]
pub struct FrameTx {
    pub clock: Signal<In, Clock>,
    /// Start a frame with `payload` (taken when not `busy`).
    pub load: Signal<In, Bit>,
    /// The payload, first byte in the top 8 bits.
    pub payload: Signal<In, Bits<PAYLOAD_BITS>>,
    /// Payload bytes per frame.
    pub nbytes: Signal<In, Bits<5>>,
    /// XORed into the frame's CRC byte (taken with `payload`).
    pub crc_xor: Signal<In, Bits<8>>,
    pub busy: Signal<Out, Bit>,
    pub tx_data: Signal<Out, Bits<8>>,
    pub tx_valid: Signal<Out, Bit>,
    /// The byte offered is its frame's last (the CRC).
    pub tx_last: Signal<Out, Bit>,
    pub tx_ready: Signal<In, Bit>,
    state: DFF<Phase>,
    sh: DFF<Bits<PAYLOAD_BITS>>,
    left: DFF<Bits<5>>,
    crc: DFF<Bits<8>>,
    /// `crc_xor` as taken (`xor` is a Verilog keyword).
    mask: DFF<Bits<8>>,
    step: Crc8,
    top: Signal<Local, Bits<8>>,
    sentinel: Constant<Bits<8>>,
    init: Constant<Bits<8>>,
}

impl Default for FrameTx {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            load: Default::default(),
            payload: Default::default(),
            nbytes: Default::default(),
            crc_xor: Default::default(),
            busy: Default::default(),
            tx_data: Default::default(),
            tx_valid: Default::default(),
            tx_last: Default::default(),
            tx_ready: Default::default(),
            state: Default::default(),
            sh: Default::default(),
            left: Default::default(),
            crc: Default::default(),
            mask: Default::default(),
            step: Default::default(),
            top: Default::default(),
            sentinel: Constant::new(SENTINEL.to_bits()),
            init: Constant::new(INIT.to_bits()),
        }
    }
}

impl Logic for FrameTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, sh, left, crc, mask);
        // PAYLOAD_BITS - 8, written out: a const name would leak into the Verilog.
        self.top.next = self.sh.q.val().get_bits::<8>(152);
        self.step.crc.next = self.crc.q.val();
        self.step.data.next = self.top.val();
        self.busy.next = self.state.q.val() != Phase::Idle;
        self.tx_valid.next = self.state.q.val() != Phase::Idle;
        self.tx_last.next = self.state.q.val() == Phase::Crc;
        self.tx_data.next = self.sentinel.val();
        if self.state.q.val() == Phase::Payload {
            self.tx_data.next = self.top.val();
        }
        if self.state.q.val() == Phase::Crc {
            self.tx_data.next = self.crc.q.val() ^ self.mask.q.val();
        }
        if self.state.q.val() == Phase::Idle {
            if self.load.val() {
                self.sh.d.next = self.payload.val();
                self.left.d.next = self.nbytes.val();
                self.crc.d.next = self.init.val();
                self.mask.d.next = self.crc_xor.val();
                self.state.d.next = Phase::Sentinel;
            }
        } else if self.tx_ready.val() {
            if self.state.q.val() == Phase::Sentinel {
                self.state.d.next = Phase::Payload;
            } else if self.state.q.val() == Phase::Payload {
                self.crc.d.next = self.step.out.val();
                self.sh.d.next = self.sh.q.val() << 8;
                self.left.d.next = self.left.q.val() - 1;
                if self.left.q.val() == 1 {
                    self.state.d.next = Phase::Crc;
                }
            } else {
                self.state.d.next = Phase::Idle;
            }
        }
    }
}
