//! The frame parser: hunts the sentinel 0xFA, shifts in the W/8 payload bytes of a
//! pre-placement word, checks the CRC-8 byte and delivers the word whole, or drops the frame
//! whole if its CRC is wrong or the consumer has no room. A dropped frame is re-sent by the
//! host after its timeout; after any frame the parser hunts for the next sentinel.

use crate::crc8::{Crc8, INIT};
use queens_core::frame::SENTINEL;
use rust_hdl::prelude::*;

/// W: wire word width (8 × bytes).
#[derive(LogicBlock)]
pub struct FrameRx<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub data: Signal<In, Bits<8>>,
    pub data_valid: Signal<In, Bit>,
    /// The consumer can take a word now.
    pub room: Signal<In, Bit>,
    pub word: Signal<Out, Bits<W>>,
    /// One-cycle strobe: `word` holds a checked word.
    pub word_valid: Signal<Out, Bit>,
    /// One-cycle strobe: a frame was dropped (bad CRC or no room).
    pub dropped: Signal<Out, Bit>,
    /// A frame is partly received or its word is on its way out.
    pub busy: Signal<Out, Bit>,
    /// Between frames, looking for a sentinel.
    pub hunting: Signal<Out, Bit>,
    active: DFF<Bit>,
    count: DFF<Bits<5>>,
    crc: DFF<Bits<8>>,
    sh: DFF<Bits<W>>,
    ok: DFF<Bit>,
    bad: DFF<Bit>,
    step: Crc8,
    nbytes: Constant<Bits<5>>,
    sentinel: Constant<Bits<8>>,
    init: Constant<Bits<8>>,
}

impl<const W: usize> Default for FrameRx<W> {
    fn default() -> Self {
        assert!(W % 8 == 0 && W <= 64);
        Self {
            clock: Default::default(),
            data: Default::default(),
            data_valid: Default::default(),
            room: Default::default(),
            word: Default::default(),
            word_valid: Default::default(),
            dropped: Default::default(),
            busy: Default::default(),
            hunting: Default::default(),
            active: Default::default(),
            count: Default::default(),
            crc: Default::default(),
            sh: Default::default(),
            ok: Default::default(),
            bad: Default::default(),
            step: Default::default(),
            nbytes: Constant::new(((W / 8) as u64).to_bits()),
            sentinel: Constant::new(SENTINEL.to_bits()),
            init: Constant::new(INIT.to_bits()),
        }
    }
}

impl<const W: usize> Logic for FrameRx<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, active, count, crc, sh, ok, bad);
        self.step.crc.next = self.crc.q.val();
        self.step.data.next = self.data.val();
        self.ok.d.next = false;
        self.bad.d.next = false;
        if self.data_valid.val() {
            if !self.active.q.val() {
                if self.data.val() == self.sentinel.val() {
                    self.active.d.next = true;
                    self.count.d.next = 0.into();
                    self.crc.d.next = self.init.val();
                }
            } else if self.count.q.val() != self.nbytes.val() {
                self.sh.d.next = (self.sh.q.val() << 8) | bit_cast::<W, 8>(self.data.val());
                self.crc.d.next = self.step.out.val();
                self.count.d.next = self.count.q.val() + 1;
            } else {
                // The CRC byte: a good frame leaves a zero remainder.
                self.active.d.next = false;
                if (self.step.out.val() == 0) & self.room.val() {
                    self.ok.d.next = true;
                } else {
                    self.bad.d.next = true;
                }
            }
        }
        self.word.next = self.sh.q.val();
        self.word_valid.next = self.ok.q.val();
        self.dropped.next = self.bad.q.val();
        self.busy.next = self.active.q.val() | self.ok.q.val();
        self.hunting.next = !self.active.q.val();
    }
}
