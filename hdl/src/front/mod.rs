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
pub mod base;
pub mod bytes;
pub mod chain_end;
pub mod collect;
pub mod constant;
pub mod dispatch;
pub mod frame;
pub mod free_list;
pub mod grouped;
pub mod intake;
pub mod level;
pub mod pointer;
pub mod queue;
pub mod ram;

use crate::front::base::Base;
use crate::front::bytes::Bytes;
use crate::front::chain_end::ChainEnd;
use crate::front::constant::c;
use crate::front::frame::Layout;
use crate::front::queue::Queue;
use crate::link::frame_tx::PAYLOAD_BITS;
use crate::solver::beat::BeatOut;
use crate::solver::decoder::{PlainDecoder, LATENCY};
use crate::solver::load::UNITS_BITS;
use crate::solver::orient::{self, Orient};
use crate::solver::stage::{COUNT_BITS, CYCLE_BITS, ID_BITS, SLOT_BITS, SLOT_COUNT_AT};
use queens_core::ident::Ident;
use rust_hdl::prelude::*;

pub(crate) use intake::WORD_QUEUE_BITS;

/// A result as the payload carries it below the echoed word: count mod 13, count mod 15,
/// count (the slot's record above its cycles).
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
    pub link: Bytes,
    /// Nothing being received, queued, running or sent (see [`Base`]).
    pub idle: Signal<Out, Bit>,

    /// The chain's end; its first slot always empty.
    pub chain: ChainEnd<M, SLOT_BITS>,

    base: Base<M, D, W, ENTRY_BITS>,
    dec: PlainDecoder<M, D, W>,
    orient: Orient<M, D>,
    results: Queue<Bits<ENTRY_BITS>, ID_BITS, UNITS_BITS>,
    cycles: Queue<Bits<CYCLE_BITS>, ID_BITS, UNITS_BITS>,
    /// The cycle count of the result being framed.
    entry_cycles: DFF<Bits<CYCLE_BITS>>,

    /// The cycle counter (if sent) sits above the word (see [`frame::Frame`]).
    with_cycles: Constant<Bit>,
    cycles_at: Constant<Bits<8>>,
    /// Where the entry's fields sit (constants: a const name would leak into the Verilog).
    id_at: Constant<Bits<8>>,
    slot_record_at: Constant<Bits<8>>,
}

impl<const M: usize, const M1: usize, const D: usize, const W: usize> Front<M, M1, D, W> {
    /// `units`: solver stages on the chain (ids 0..units-1); `with_cycles`: results carry the
    /// 48-bit cycle counter (the optional frame variant of the protocol); `ident`: what it
    /// answers an identification request with.
    pub fn new(units: usize, with_cycles: bool, ident: &Ident) -> Self {
        // Echoed word, mod 13, mod 15, count, padding to whole bytes; cycles in front.
        let bits = W + PADDED_RECORD_BITS + if with_cycles { CYCLE_BITS } else { 0 };
        let layout = Layout {
            pad: PADDED_RECORD_BITS - RECORD_BITS,
            bytes: bits / 8,
            crc_xor: 0,
        };
        Self {
            clock: Default::default(),
            link: Default::default(),
            idle: Default::default(),
            chain: Default::default(),
            // The rising diagonals' rotation into load order: right by M - 1.
            base: Base::new(units, layout, LATENCY + orient::LATENCY, M - 1, ident),
            dec: PlainDecoder::plain(),
            orient: Default::default(),
            results: Queue::holding(table_bits(units)),
            cycles: Queue::holding(table_bits(units)),
            entry_cycles: Default::default(),
            with_cycles: Constant::new(with_cycles),
            cycles_at: c(PAYLOAD_BITS - CYCLE_BITS),
            id_at: c(RECORD_BITS),
            slot_record_at: c(SLOT_COUNT_AT),
        }
    }
}

impl<const M: usize, const M1: usize, const D: usize, const W: usize> Logic for Front<M, M1, D, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, entry_cycles);
        clock!(self, clock, base, dec, orient, results, cycles);
        Bytes::link(&mut self.link, &mut self.base.link);
        BeatOut::<M>::link(&mut self.chain.dn, &mut self.base.dn);

        // Dispatch's word through the decoder and the orientation.
        self.dec.word.next = self.base.dec.word.val();
        self.orient.rows.next = self.dec.rows.val();
        self.orient.cols.next = self.dec.cols.val();
        self.orient.down.next = self.dec.down.val();
        self.orient.up.next = self.dec.up.val();
        self.base.dec.rows.next = self.orient.rows_o.val();
        self.base.dec.cols.next = self.orient.cols_o.val();
        self.base.dec.down.next = self.orient.down_o.val();
        self.base.dec.up.next = self.orient.up_o.val();
        self.base.dec.hi.next = 0.into();

        self.chain.first.valid.next = false;
        self.chain.first.id.next = 0.into();
        self.chain.first.data.next = 0.into();

        // Results in: every result finds room (at most one per unit id is ever in flight).
        self.results.write.next = self.chain.up.valid.val();
        self.results.data_in.next = (bit_cast::<ENTRY_BITS, ID_BITS>(self.chain.up.id.val())
            << self.id_at.val())
            | bit_cast::<ENTRY_BITS, RECORD_BITS>(
                self.chain
                    .up
                    .data
                    .val()
                    .get_bits::<RECORD_BITS>(self.slot_record_at.val().index()),
            );
        self.cycles.write.next = self.chain.up.valid.val();
        self.cycles.data_in.next = self.chain.up.data.val().get_bits::<CYCLE_BITS>(0);

        // Out: each result with its word and cycles; its unit is free once it is framed.
        self.results.read.next = self.base.answers.read.val();
        self.cycles.read.next = self.base.answers.read.val();
        self.base.answers.head.next = self.results.data_out.val();
        self.base.answers.empty.next = self.results.empty.val();
        if self.base.answers.capture.val() {
            self.entry_cycles.d.next = self.cycles.data_out.val();
        }
        self.base.answers.above.next = 0.into();
        if self.with_cycles.val() {
            self.base.answers.above.next =
                bit_cast::<PAYLOAD_BITS, CYCLE_BITS>(self.entry_cycles.q.val()) << self.cycles_at.val();
        }
        self.base.answers.last.next = true;
        self.idle.next = self.base.idle.val();
    }
}
