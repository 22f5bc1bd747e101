//! A first-word-fall-through queue on a synchronous RAM whose read address is one multiplexer
//! after `read`: the front end's queues.
//!
//! It behaves as rust-hdl's `SynchronousFIFO` (N + 1-bit pointers, a write seen by the read
//! side a cycle later, the head on `data_out` while not empty, reads of an empty queue and
//! writes to a full one ignored), built so that routing does not find it slow. There, the
//! read address is `read & !empty ? rd + 1 : rd` with `empty` an (N + 1)-bit comparison, so a
//! comparison, an adder and the RAM's address lie in series behind `read`; routed at 8 units
//! on an ECP5 that was the whole top's critical path (110.7 MHz). Here `rd + 1` is a register
//! beside `rd`, and `empty` is registered, computed a cycle ahead for both outcomes of the
//! read. The two outcomes are kept apart from `read` (a multiplexer after the comparisons, not
//! `read` folded into them: routed, that was six LUT levels behind `read`).
//!
//! The write side likewise: `full` is registered, decided a cycle ahead from `wr + 1` (a
//! register beside `wr`) and `rd`, so the RAM's write enable is one LUT after `write`. From
//! the pointers' comparison, shared by synthesis with the read side's, to the block RAM's
//! byte enable had been six LUT levels, the 32-unit top's critical path at one seed.
//!
//! A queue may hold fewer than 2^N entries ([`Queue::holding`]): the queues of unit ids are
//! sized for the units there are. Only the pointers' low bits are read then, and synthesis
//! drops the others.

use crate::front::pointer::Pointer;
use crate::front::ram::Ram;
use crate::solver::keep::Keep;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Queue<D: Synth, const N: usize, const NP1: usize> {
    pub clock: Signal<In, Clock>,
    /// Take the head (ignored when empty); `data_out` shows the next one a cycle later.
    pub read: Signal<In, Bit>,
    pub data_out: Signal<Out, D>,
    pub empty: Signal<Out, Bit>,
    /// Append `data_in` (ignored when full).
    pub write: Signal<In, Bit>,
    pub data_in: Signal<In, D>,
    pub full: Signal<Out, Bit>,
    /// One free place left, or none.
    pub almost_full: Signal<Out, Bit>,

    ram: Ram<D, N>,
    /// Read and write pointers, and the write pointer as the read side sees it (a cycle
    /// late: the RAM holds the entry).
    rd: Pointer<NP1>,
    wr: Pointer<NP1>,
    wr_seen: DFF<Bits<NP1>>,
    /// Not empty: `rd != wr_seen`, registered.
    filled: DFF<Bit>,
    /// Full: the pointers differ in their wrap bit alone, registered.
    full_r: DFF<Bit>,
    /// Full next cycle if a write alone comes.
    keep_fill: Keep,
    /// Not empty next cycle if the head stays, and if it is taken.
    keep_stay: Keep,
    keep_take: Keep,
    take: Signal<Local, Bit>,
    put: Signal<Local, Bit>,
    level: Signal<Local, Bits<NP1>>,
    /// The wrap bit alone, the level of one free place, and the pointers' bits in use.
    wrap: Constant<Bits<NP1>>,
    nearly: Constant<Bits<NP1>>,
    used: Constant<Bits<NP1>>,
}

impl<D: Synth, const N: usize, const NP1: usize> Logic for Queue<D, N, NP1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wr_seen, filled, full_r);
        clock!(self, clock, ram, rd, wr);

        // Write side: full when the pointers differ only in their wrap bit.
        self.put.next = self.write.val() & !self.full_r.q.val();
        self.take.next = self.read.val() & self.filled.q.val();
        self.ram.write_enable.next = self.put.val();
        self.ram.write_address.next = self.wr.at.val().get_bits::<N>(0);
        self.ram.write_data.next = self.data_in.val();
        self.wr.step.next = self.put.val();
        self.wr_seen.d.next = self.wr.at.val();
        // A write alone fills the last place; a read, alone or with a write (which a full
        // queue refuses), leaves one free; neither leaves `full` as it is.
        self.keep_fill.a.next =
            ((self.wr.ahead.val() ^ self.rd.at.val()) & self.used.val()) == self.wrap.val();
        self.full_r.d.next = self.full_r.q.val();
        if self.take.val() {
            self.full_r.d.next = false;
        } else if self.put.val() {
            self.full_r.d.next = self.keep_fill.y.val();
        }
        self.full.next = self.full_r.q.val();
        // As `SynchronousFIFO` with a block of one: the level the read side sees, or the
        // whole queue when full.
        self.level.next = (self.wr_seen.q.val() - self.rd.at.val()) & self.used.val();
        self.almost_full.next = self.full_r.q.val() | (self.level.val() >= self.nearly.val());

        // Read side: the RAM reads the head, or the next entry when the head is taken.
        self.ram.read_address.next = self.rd.at.val().get_bits::<N>(0);
        self.keep_stay.a.next = ((self.rd.at.val() ^ self.wr.at.val()) & self.used.val()) != 0;
        self.keep_take.a.next = ((self.rd.ahead.val() ^ self.wr.at.val()) & self.used.val()) != 0;
        self.filled.d.next = self.keep_stay.y.val();
        self.rd.step.next = self.take.val();
        if self.take.val() {
            self.ram.read_address.next = self.rd.ahead.val().get_bits::<N>(0);
            self.filled.d.next = self.keep_take.y.val();
        }
        self.empty.next = !self.filled.q.val();
        self.data_out.next = self.ram.read_data.val();
    }
}

impl<D: Synth, const N: usize, const NP1: usize> Default for Queue<D, N, NP1> {
    fn default() -> Self {
        Self::holding(N)
    }
}

impl<D: Synth, const N: usize, const NP1: usize> Queue<D, N, NP1> {
    /// A queue of 2^`bits` entries (`bits` at most N).
    pub fn holding(bits: usize) -> Self {
        assert_eq!(NP1, N + 1);
        assert!((1..=N).contains(&bits), "1 to {N} address bits");
        Self {
            clock: Default::default(),
            read: Default::default(),
            data_out: Default::default(),
            empty: Default::default(),
            write: Default::default(),
            data_in: Default::default(),
            full: Default::default(),
            almost_full: Default::default(),
            ram: Ram::with_bits(bits),
            rd: Default::default(),
            wr: Default::default(),
            wr_seen: Default::default(),
            filled: Default::default(),
            full_r: Default::default(),
            keep_fill: Default::default(),
            keep_stay: Default::default(),
            keep_take: Default::default(),
            take: Default::default(),
            put: Default::default(),
            level: Default::default(),
            wrap: Constant::new((1_u64 << bits).to_bits()),
            nearly: Constant::new(((1_u64 << bits) - 1).to_bits()),
            used: Constant::new(((2_u64 << bits) - 1).to_bits()),
        }
    }
}
