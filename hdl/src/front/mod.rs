//! The array's front end: everything between the byte streams of the link and the two
//! chains of solver stages. One per array, so its size does not scale with the units.
//!
//! In: frames -> [`intake`] (parser, word queue) -> [`dispatch`]: take a free unit id,
//! remember the word under that id, decode it with the kind's decoder and send the unit the
//! beats that load and start it.
//! Out: answers from the chain -> the kind's answer queue -> [`collect`]: look the word up by
//! id, frame it; the id returns to the free list once its unit's last answer is framed.
//! Identification: a request the parser reports is answered between two answer frames with
//! a constant frame (`queens_core::ident`), what the core was built as.
//!
//! The three shared parts serve both kinds of unit; each kind's front end wires them to its
//! decoder and its answers: [`Front`] for plain units, [`grouped::GroupFront`] for grouped.
//!
//! Every path is cut to the length of a unit's or shorter, so that the units set the array's
//! clock: dispatch and collection start from registered conditions, the queues' read
//! addresses are one multiplexer after the read ([`crate::front::queue`]), every block RAM's read
//! data lands in a register before any logic uses it (ECP5 block RAMs have no output
//! register that yosys infers, and their read data is slow), the decoder is pipelined, and
//! the diagonal beats come from shift registers instead of barrel shifters. This costs a few
//! cycles per subproblem in the front end, none in the units.
pub mod collect;
pub mod constant;
pub mod dispatch;
pub mod grouped;
pub mod intake;
pub mod queue;
pub mod ram;

use crate::front::collect::Collect;
use crate::front::constant::c;
use crate::front::dispatch::Dispatch;
use crate::front::intake::Intake;
use crate::front::queue::Queue;
use crate::link::frame_tx::PAYLOAD_BITS;
use crate::solver::decoder::{Decoder, LATENCY};
use crate::solver::load::UNITS_BITS;
use crate::solver::orient::{self, Orient};
use crate::solver::stage::{COUNT_BITS, CYCLE_BITS, ID_BITS};
use queens_core::ident::Ident;
use rust_hdl::prelude::*;

pub(crate) use intake::WORD_QUEUE_BITS;

/// A result as the payload carries it below the echoed word: count mod 13, count mod 15,
/// count.
const RECORD_BITS: usize = 4 + 4 + COUNT_BITS;
/// The record padded to whole bytes.
const PADDED_RECORD_BITS: usize = RECORD_BITS.div_ceil(8) * 8;
/// Result queue entry: id and record (the cycle counter has its own queue).
const ENTRY_BITS: usize = ID_BITS + RECORD_BITS;

/// Words the core queues beyond those its units hold: a host may send this many more than
/// the units before a frame is dropped for lack of room.
pub const WORD_QUEUE: usize = 1 << WORD_QUEUE_BITS;

/// Address bits of the front end's tables of unit ids and answers (the free list, the word
/// table, the answer queues): enough for `units`, and never below 10, a block RAM's 1,024
/// words, so that a core of up to 1,024 units is built as before the ids widened.
pub fn table_bits(units: usize) -> usize {
    units.next_power_of_two().trailing_zeros().max(10) as usize
}

/// Subproblems a core of `units` units holds at once: one in each unit and the word queue.
pub fn holds(units: usize) -> usize {
    units + WORD_QUEUE
}

/// Cycles the front end spends on one dispatch, from a queued word and a free unit to the
/// start beat: taking them, the decoder's and the orientation stage's pipelines, and the
/// beats of `load::beats` (rows, columns, 2M - 1 diagonals, start).
pub fn dispatch_cycles(m: usize) -> usize {
    2 + LATENCY + orient::LATENCY + 2 * m + 2
}

/// The front end of an array of plain units: a pre-placement in, decoded and oriented for
/// its unit; its result out, with the word echoed.
#[derive(LogicBlock)]
pub struct Front<const M: usize, const M1: usize, const D: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub rx_data: Signal<In, Bits<8>>,
    pub rx_valid: Signal<In, Bit>,
    /// The core takes the byte offered: a source that can wait (a simulator, a PCIe link)
    /// holds it while this is low; a UART cannot, and the frame it starts is lost whole.
    pub rx_ready: Signal<Out, Bit>,
    pub tx_data: Signal<Out, Bits<8>>,
    pub tx_valid: Signal<Out, Bit>,
    /// The byte offered ends its frame.
    pub tx_last: Signal<Out, Bit>,
    pub tx_ready: Signal<In, Bit>,
    /// Nothing being received, queued, running or sent (the queue shows a word a cycle or
    /// two after it is written).
    pub idle: Signal<Out, Bit>,

    pub up_valid: Signal<In, Bit>,
    pub up_id: Signal<In, Bits<ID_BITS>>,
    pub up_m13: Signal<In, Bits<4>>,
    pub up_m15: Signal<In, Bits<4>>,
    pub up_count: Signal<In, Bits<COUNT_BITS>>,
    pub up_cycles: Signal<In, Bits<CYCLE_BITS>>,
    pub dn_valid: Signal<Out, Bit>,
    pub dn_id: Signal<Out, Bits<ID_BITS>>,
    pub dn_kind: Signal<Out, Bits<2>>,
    pub dn_data: Signal<Out, Bits<M>>,

    intake: Intake<W>,
    dispatch: Dispatch<M, D, W>,
    dec: Decoder<M, D, W>,
    orient: Orient<M, D>,
    results: Queue<Bits<ENTRY_BITS>, ID_BITS, UNITS_BITS>,
    cycles: Queue<Bits<CYCLE_BITS>, ID_BITS, UNITS_BITS>,
    collect: Collect<ENTRY_BITS, W>,
    /// The cycle count of the result being framed.
    entry_cycles: DFF<Bits<CYCLE_BITS>>,
    tail: Signal<Local, Bits<PAYLOAD_BITS>>,

    /// Payload layout: the cycle counter (if sent) sits above the word, and the whole payload
    /// is shifted to the top of the framer's register.
    with_cycles: Constant<Bit>,
    cycles_at: Constant<Bits<8>>,
    align: Constant<Bits<8>>,
    /// Where the entry's fields and the echoed word sit (constants: a const name would leak
    /// into the Verilog).
    id_at: Constant<Bits<8>>,
    m13_at: Constant<Bits<8>>,
    m15_at: Constant<Bits<8>>,
    word_at: Constant<Bits<8>>,
    pad: Constant<Bits<8>>,
    result_bytes: Constant<Bits<5>>,
}

impl<const M: usize, const M1: usize, const D: usize, const W: usize> Front<M, M1, D, W> {
    /// `units`: solver stages on the chain (ids 0..units-1); `with_cycles`: results carry the
    /// 48-bit cycle counter (the optional frame variant of the protocol); `ident`: what it
    /// answers an identification request with.
    pub fn new(units: usize, with_cycles: bool, ident: &Ident) -> Self {
        // Echoed word, mod 13, mod 15, count, padding to whole bytes; cycles in front.
        let bits = W + PADDED_RECORD_BITS + if with_cycles { CYCLE_BITS } else { 0 };
        assert!(bits <= PAYLOAD_BITS);
        Self {
            clock: Default::default(),
            rx_data: Default::default(),
            rx_valid: Default::default(),
            rx_ready: Default::default(),
            tx_data: Default::default(),
            tx_valid: Default::default(),
            tx_last: Default::default(),
            tx_ready: Default::default(),
            idle: Default::default(),
            up_valid: Default::default(),
            up_id: Default::default(),
            up_m13: Default::default(),
            up_m15: Default::default(),
            up_count: Default::default(),
            up_cycles: Default::default(),
            dn_valid: Default::default(),
            dn_id: Default::default(),
            dn_kind: Default::default(),
            dn_data: Default::default(),
            intake: Intake::new(0),
            // The rising diagonals' rotation into load order: right by M - 1.
            dispatch: Dispatch::new(units, LATENCY + orient::LATENCY, M - 1),
            dec: Decoder::new(),
            orient: Default::default(),
            results: Queue::holding(table_bits(units)),
            cycles: Queue::holding(table_bits(units)),
            collect: Collect::new(units, ident),
            entry_cycles: Default::default(),
            tail: Default::default(),
            with_cycles: Constant::new(with_cycles),
            cycles_at: c(W + PADDED_RECORD_BITS),
            align: c(PAYLOAD_BITS - bits),
            id_at: c(RECORD_BITS),
            m13_at: c(COUNT_BITS + 4),
            m15_at: c(COUNT_BITS),
            word_at: c(PADDED_RECORD_BITS),
            pad: c(PADDED_RECORD_BITS - RECORD_BITS),
            result_bytes: c(bits / 8),
        }
    }
}

impl<const M: usize, const M1: usize, const D: usize, const W: usize> Logic for Front<M, M1, D, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, entry_cycles);
        clock!(self, clock, intake, dispatch, dec, orient, results, cycles, collect);

        // Frames in; a queued word to a free unit through the decoder and the orientation.
        self.intake.rx_data.next = self.rx_data.val();
        self.intake.rx_valid.next = self.rx_valid.val();
        self.rx_ready.next = self.intake.rx_ready.val();
        self.intake.take.next = self.dispatch.take.val();
        self.dispatch.queued.next = !self.intake.empty.val();
        self.dispatch.queue_head.next = self.intake.word.val();
        self.dec.word.next = self.dispatch.word.val();
        self.orient.rows.next = self.dec.rows.val();
        self.orient.cols.next = self.dec.cols.val();
        self.orient.down.next = self.dec.down.val();
        self.orient.up.next = self.dec.up.val();
        self.dispatch.rows.next = self.orient.rows_o.val();
        self.dispatch.cols.next = self.orient.cols_o.val();
        self.dispatch.down.next = self.orient.down_o.val();
        self.dispatch.up.next = self.orient.up_o.val();
        self.dispatch.hi.next = 0.into();
        self.dn_valid.next = self.dispatch.dn_valid.val();
        self.dn_id.next = self.dispatch.dn_id.val();
        self.dn_kind.next = self.dispatch.dn_kind.val();
        self.dn_data.next = self.dispatch.dn_data.val();
        self.collect.request.next = self.intake.request.val();
        self.collect.store.next = self.dispatch.store.val();
        self.collect.store_id.next = self.dispatch.store_id.val();
        self.collect.store_word.next = self.dispatch.store_word.val();
        self.dispatch.give_back.next = self.collect.give_back.val();
        self.dispatch.back_id.next = self.collect.back_id.val();

        // Results in: every result finds room (at most one per unit id is ever in flight).
        self.results.write.next = self.up_valid.val();
        self.results.data_in.next = (bit_cast::<ENTRY_BITS, ID_BITS>(self.up_id.val()) << self.id_at.val())
            | (bit_cast::<ENTRY_BITS, 4>(self.up_m13.val()) << self.m13_at.val())
            | (bit_cast::<ENTRY_BITS, 4>(self.up_m15.val()) << self.m15_at.val())
            | bit_cast::<ENTRY_BITS, COUNT_BITS>(self.up_count.val());
        self.cycles.write.next = self.up_valid.val();
        self.cycles.data_in.next = self.up_cycles.val();

        // Out: each result with its word and cycles; its unit is free once it is framed.
        self.results.read.next = self.collect.read.val();
        self.cycles.read.next = self.collect.read.val();
        self.collect.head.next = self.results.data_out.val();
        self.collect.empty.next = self.results.empty.val();
        if self.collect.capture.val() {
            self.entry_cycles.d.next = self.cycles.data_out.val();
        }
        self.tail.next = (bit_cast::<PAYLOAD_BITS, W>(self.collect.entry_word.val()) << self.word_at.val())
            | (bit_cast::<PAYLOAD_BITS, RECORD_BITS>(self.collect.entry.val().get_bits::<RECORD_BITS>(0))
                << self.pad.val());
        if self.with_cycles.val() {
            self.tail.next = self.tail.val()
                | (bit_cast::<PAYLOAD_BITS, CYCLE_BITS>(self.entry_cycles.q.val()) << self.cycles_at.val());
        }
        self.collect.payload.next = self.tail.val() << self.align.val();
        self.collect.nbytes.next = self.result_bytes.val();
        self.collect.crc_xor.next = 0.into();
        self.collect.last.next = true;
        self.tx_data.next = self.collect.tx_data.val();
        self.tx_valid.next = self.collect.tx_valid.val();
        self.tx_last.next = self.collect.tx_last.val();
        self.collect.tx_ready.next = self.tx_ready.val();
        self.idle.next = !self.intake.busy.val()
            & self.intake.empty.val()
            & self.dispatch.idle.val()
            & self.collect.idle.val();
    }
}
