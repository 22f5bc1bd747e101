//! The frame parser: hunts the sentinel 0xFA, shifts in the W/8 payload bytes of a
//! pre-placement word, checks the CRC-8 byte and delivers the word whole, or drops the frame
//! whole if its CRC is wrong or the consumer has no room. A dropped frame is re-sent by the
//! host after its timeout; after any frame the parser hunts for the next sentinel.
//!
//! A frame whose CRC byte is XORed with `queens_core::ident::IDENT_CRC_XOR` and whose payload
//! starts with the identification magic is no word but a request: it is reported on
//! `request`, neither delivered nor counted as dropped. A parser built for group requests
//! ([`FrameRx::new`] with `queens_core::group::GROUP_CRC_XOR`) delivers only words whose CRC
//! byte carries that XOR, and drops plain pre-placement frames as corrupt.

use crate::link::crc8::{Crc8, INIT};
use queens_core::frame::{crc8, SENTINEL};
use queens_core::ident::{IDENT_CRC_XOR, MAGIC};
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
    /// One-cycle strobe: an identification request was received.
    pub request: Signal<Out, Bit>,
    /// A frame is partly received or its word is on its way out.
    pub busy: Signal<Out, Bit>,
    /// Between frames, looking for a sentinel.
    pub hunting: Signal<Out, Bit>,
    active: DFF<Bit>,
    count: DFF<Bits<5>>,
    /// The next byte is the CRC byte (`count` has reached the payload's length): a flag, so
    /// that no compare of `count` stands before the CRC step.
    last: DFF<Bit>,
    crc: DFF<Bits<8>>,
    sh: DFF<Bits<W>>,
    /// The CRC byte went into `crc` last cycle: the remainder is checked now, a cycle after
    /// the step, so that the step and the zero test are apart by a register (together with
    /// the queue's room they were the front end's deepest path, eight LUTs).
    check: DFF<Bit>,
    ok: DFF<Bit>,
    bad: DFF<Bit>,
    req: DFF<Bit>,
    step: Crc8,
    /// The remainder a word's CRC byte leaves: zero, or that of the XOR its frames carry.
    word_rem: Constant<Bits<8>>,
    nbytes: Constant<Bits<5>>,
    sentinel: Constant<Bits<8>>,
    init: Constant<Bits<8>>,
    /// The remainder a request's CRC byte leaves (the XOR's, whatever the payload), its
    /// magic, and where the magic sits in the word.
    req_rem: Constant<Bits<8>>,
    magic: Constant<Bits<16>>,
    magic_at: Constant<Bits<8>>,
}

impl<const W: usize> Default for FrameRx<W> {
    /// A parser of plain pre-placement frames.
    fn default() -> Self {
        Self::new(0)
    }
}

impl<const W: usize> FrameRx<W> {
    /// A parser of words whose frames' CRC byte is XORed with `word_xor` (0: plain frames).
    pub fn new(word_xor: u8) -> Self {
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
            last: Default::default(),
            crc: Default::default(),
            sh: Default::default(),
            check: Default::default(),
            ok: Default::default(),
            bad: Default::default(),
            req: Default::default(),
            request: Default::default(),
            step: Default::default(),
            word_rem: Constant::new(remainder(word_xor).to_bits()),
            nbytes: Constant::new(((W / 8) as u64).to_bits()),
            sentinel: Constant::new(SENTINEL.to_bits()),
            init: Constant::new(INIT.to_bits()),
            req_rem: Constant::new(remainder(IDENT_CRC_XOR).to_bits()),
            magic: Constant::new((u16::from_be_bytes(MAGIC) as u64).to_bits()),
            magic_at: Constant::new(((W - 16) as u64).to_bits()),
        }
    }
}

impl<const W: usize> Logic for FrameRx<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, active, count, last, crc, sh, check, ok, bad, req);
        self.step.crc.next = self.crc.q.val();
        self.step.data.next = self.data.val();
        self.check.d.next = false;
        if self.data_valid.val() {
            if !self.active.q.val() {
                if self.data.val() == self.sentinel.val() {
                    self.active.d.next = true;
                    self.count.d.next = 0.into();
                    self.last.d.next = false;
                    self.crc.d.next = self.init.val();
                }
            } else if !self.last.q.val() {
                self.sh.d.next = (self.sh.q.val() << 8) | bit_cast::<W, 8>(self.data.val());
                self.crc.d.next = self.step.out.val();
                self.count.d.next = self.count.q.val() + 1;
                self.last.d.next = (self.count.q.val() + 1) == self.nbytes.val();
            } else {
                // The CRC byte: a good frame leaves a zero remainder, tested next cycle. A
                // sentinel in that cycle reloads `crc` only after the test has read it, and
                // `sh` holds until a payload byte follows, two cycles after this one at the
                // earliest, when `ok` has delivered the word.
                self.active.d.next = false;
                self.crc.d.next = self.step.out.val();
                self.check.d.next = true;
            }
        }
        self.ok.d.next = self.check.q.val() & (self.crc.q.val() == self.word_rem.val()) & self.room.val();
        self.req.d.next = self.check.q.val()
            & (self.crc.q.val() == self.req_rem.val())
            & (self.sh.q.val().get_bits::<16>(self.magic_at.val().index()) == self.magic.val());
        self.bad.d.next = self.check.q.val()
            & !((self.crc.q.val() == self.word_rem.val()) & self.room.val())
            & !((self.crc.q.val() == self.req_rem.val())
                & (self.sh.q.val().get_bits::<16>(self.magic_at.val().index()) == self.magic.val()));
        self.word.next = self.sh.q.val();
        self.word_valid.next = self.ok.q.val();
        self.dropped.next = self.bad.q.val();
        self.request.next = self.req.q.val();
        self.busy.next = self.active.q.val() | self.check.q.val() | self.ok.q.val() | self.req.q.val();
        self.hunting.next = !self.active.q.val();
    }
}

/// The remainder a frame leaves whose CRC byte is the payload's CRC XOR `xor`: by the CRC's
/// linearity the same for every payload, so a two-byte one serves.
pub fn remainder(xor: u8) -> u8 {
    crc8(&[MAGIC[0], MAGIC[1], crc8(&MAGIC) ^ xor])
}
