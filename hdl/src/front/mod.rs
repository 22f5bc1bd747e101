//! The array's shared front end: everything between the byte streams of the link and the
//! two chains of solver stages. One per array, so its size does not scale with the units.
//!
//! In: frames -> [`FrameRx`] -> word queue -> dispatch: take a free unit id, remember the word
//! under that id, decode it and send the unit the ring's blocking and a start beat.
//! Out: results from the chain -> result queue -> look the word up by id -> [`FrameTx`]; the
//! id returns to the free list once its word has been copied into the framer.
//! Identification: a request the parser reports is answered between two result frames with
//! a constant frame (`queens_core::ident`), what the core was built as.
//!
//! Every path is cut to the length of a unit's or shorter, so that the units set the array's
//! clock: dispatch and collection start from registered conditions, the queues' read
//! addresses are one multiplexer after the read ([`crate::front::queue`]), every block RAM's read
//! data lands in a register before any logic uses it (ECP5 block RAMs have no output
//! register that yosys infers, and their read data is slow), the decoder is pipelined, and
//! the diagonal beats come from shift registers instead of barrel shifters. This costs a few
//! cycles per subproblem in the front end, none in the units.

pub mod grouped;
pub mod queue;
pub mod ram;

use crate::front::queue::Queue;
use crate::front::ram::Ram;
use crate::link::frame_rx::FrameRx;
use crate::link::frame_tx::{FrameTx, PAYLOAD_BITS};
use crate::solver::decoder::{Decoder, LATENCY};
use crate::solver::orient::{self, Orient};
use crate::solver::stage::{BEAT_COLS, BEAT_DIAG, BEAT_ROWS, BEAT_START, COUNT_BITS, CYCLE_BITS, ID_BITS};
use queens_core::ident::{Ident, IDENT_CRC_XOR};
use rust_hdl::prelude::*;

/// A result as the payload carries it below the echoed word: count mod 13, count mod 15,
/// count.
const RECORD_BITS: usize = 4 + 4 + COUNT_BITS;
/// The record padded to whole bytes.
const PADDED_RECORD_BITS: usize = RECORD_BITS.div_ceil(8) * 8;
/// Result queue entry: id and record (the cycle counter has its own queue).
const ENTRY_BITS: usize = ID_BITS + RECORD_BITS;

/// Address bits of the word queue.
pub(crate) const WORD_QUEUE_BITS: usize = 4;
const WORD_QUEUE_BITS1: usize = WORD_QUEUE_BITS + 1;
/// Words the core queues beyond those its units hold: a host may send this many more than
/// the units before a frame is dropped for lack of room.
pub const WORD_QUEUE: usize = 1 << WORD_QUEUE_BITS;

/// Subproblems a core of `units` units holds at once: one in each unit and the word queue.
pub fn holds(units: usize) -> usize {
    units + WORD_QUEUE
}

/// Cycles the front end spends on one dispatch, from a queued word and a free unit to the
/// start beat: taking them, the decoder's and the orientation stage's pipelines, and the
/// beats of `stage::beats` (rows, columns, 2M - 1 diagonals, start).
pub fn dispatch_cycles(m: usize) -> usize {
    2 + LATENCY + orient::LATENCY + 2 * m + 2
}

/// Dispatch of one word to a free unit.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum Dispatch {
    /// Waiting for a word and a free unit.
    Idle,
    /// The word goes into the word table and through the decoder's pipeline.
    Decode,
    /// The beat with the ring's rows.
    Rows,
    /// The beat with the columns it fills.
    Cols,
    /// One beat per diagonal of each direction.
    Diag,
    /// The start beat.
    Start,
}

/// Collection of one result into the framer.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum Collect {
    /// Waiting for a result and a free framer; the result queue's read data goes into
    /// registers as it is taken.
    Idle,
    /// The word table is read at the result's id.
    Lookup,
    /// Its read data goes into a register.
    Word,
    /// The framer takes the frame; the id goes back to the free list.
    Load,
}

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

    pub dn_valid: Signal<Out, Bit>,
    pub dn_id: Signal<Out, Bits<ID_BITS>>,
    pub dn_kind: Signal<Out, Bits<2>>,
    pub dn_data: Signal<Out, Bits<M>>,
    pub up_valid: Signal<In, Bit>,
    pub up_id: Signal<In, Bits<ID_BITS>>,
    pub up_m13: Signal<In, Bits<4>>,
    pub up_m15: Signal<In, Bits<4>>,
    pub up_count: Signal<In, Bits<COUNT_BITS>>,
    pub up_cycles: Signal<In, Bits<CYCLE_BITS>>,

    rx: FrameRx<W>,
    words: Queue<Bits<W>, WORD_QUEUE_BITS, WORD_QUEUE_BITS1>,
    free: Queue<Bits<ID_BITS>, ID_BITS, 11>,
    wordtab: Ram<Bits<W>, ID_BITS>,
    dec: Decoder<M, D, W>,
    orient: Orient<M, D>,
    results: Queue<Bits<ENTRY_BITS>, ID_BITS, 11>,
    cycles: Queue<Bits<CYCLE_BITS>, ID_BITS, 11>,
    tx: FrameTx,

    /// Ids 0..K-1 entered into the free list so far, and all of them are (dispatch waits).
    init: DFF<Bits<11>>,
    init_done: DFF<Bit>,
    /// The word queue's flags, registered (see the frames in, below).
    queue_open: DFF<Bit>,
    queue_room: DFF<Bit>,
    /// Units holding a subproblem whose result has not reached the framer.
    outstanding: DFF<Bits<11>>,
    dispatch_state: DFF<Dispatch>,
    /// A word and a free id are queued (registered: dispatch starts from flip-flops).
    can_dispatch: DFF<Bit>,
    /// The unit id and word being dispatched.
    unit_id: DFF<Bits<ID_BITS>>,
    word: DFF<Bits<W>>,
    /// Cycles left in the decoder's pipeline (its input is `word`, a register).
    decode_wait: DFF<Bits<4>>,
    /// The oriented blocking vectors. The diagonals shift out a bit per beat in the order of
    /// `unit::load_sequence`: falling ones from the top of `down`, rising ones from the
    /// bottom of `up`, which is loaded rotated (bit j = rising diagonal (j + M - 1) mod D).
    rows: DFF<Bits<M>>,
    cols: DFF<Bits<M>>,
    down: DFF<Bits<D>>,
    up: DFF<Bits<D>>,
    /// Diagonal beats sent.
    shifts: DFF<Bits<6>>,
    /// The beat on its way down the chain.
    beat_valid: DFF<Bit>,
    beat_kind: DFF<Bits<2>>,
    beat_data: DFF<Bits<M>>,
    collect_state: DFF<Collect>,
    /// Take the next result: a flip-flop, decided a cycle ahead (a result was queued, the
    /// framer was free, and collection was idle and stays so). Its net reaches both queues'
    /// read sides, the furthest apart of the front end; from logic, it was the full
    /// device's longest path.
    collect: DFF<Bit>,
    /// The result being framed, its cycle count and its word.
    entry: DFF<Bits<ENTRY_BITS>>,
    entry_cycles: DFF<Bits<CYCLE_BITS>>,
    entry_word: DFF<Bits<W>>,
    /// An identification request waits for the framer.
    ident_pending: DFF<Bit>,
    /// The framer takes the identification answer: decided a cycle ahead, as `collect` is
    /// (from logic, it drove the framer's 160 payload bits and was the front end's longest
    /// path).
    answer: DFF<Bit>,

    dispatch: Signal<Local, Bit>,
    give_back: Signal<Local, Bit>,
    tail: Signal<Local, Bits<PAYLOAD_BITS>>,

    units: Constant<Bits<11>>,
    decode_cycles: Constant<Bits<4>>,
    /// The rotation of `up`: right by M - 1, so left by M.
    up_right: Constant<Bits<8>>,
    up_left: Constant<Bits<8>>,
    dtop: Constant<Bits<8>>,
    last_shift: Constant<Bits<6>>,
    rows_kind: Constant<Bits<2>>,
    cols_kind: Constant<Bits<2>>,
    diag_kind: Constant<Bits<2>>,
    start_kind: Constant<Bits<2>>,
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
    /// The identification answer's payload (left-aligned), its length and its CRC's XOR.
    answer_payload: Constant<Bits<PAYLOAD_BITS>>,
    answer_bytes: Constant<Bits<5>>,
    answer_xor: Constant<Bits<8>>,
    no_xor: Constant<Bits<8>>,
}

impl<const M: usize, const M1: usize, const D: usize, const W: usize> Front<M, M1, D, W> {
    /// `units`: solver stages on the chain (ids 0..units-1); `with_cycles`: results carry the
    /// 48-bit cycle counter (the optional frame variant of the protocol); `ident`: what it
    /// answers an identification request with.
    pub fn new(units: usize, with_cycles: bool, ident: &Ident) -> Self {
        assert!((1..=1 << ID_BITS).contains(&units), "1 to 1024 units");
        assert!(
            W >= 24,
            "frames at least five bytes apart (the word queue's registered flags)"
        );
        // Echoed word, mod 13, mod 15, count, padding to whole bytes; cycles in front.
        let bits = W + PADDED_RECORD_BITS + if with_cycles { CYCLE_BITS } else { 0 };
        assert!(bits <= PAYLOAD_BITS);
        let answer = ident.payload();
        assert!(answer.len() * 8 <= PAYLOAD_BITS);
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
            dn_valid: Default::default(),
            dn_id: Default::default(),
            dn_kind: Default::default(),
            dn_data: Default::default(),
            up_valid: Default::default(),
            up_id: Default::default(),
            up_m13: Default::default(),
            up_m15: Default::default(),
            up_count: Default::default(),
            up_cycles: Default::default(),
            rx: Default::default(),
            words: Default::default(),
            free: Default::default(),
            wordtab: Default::default(),
            dec: Decoder::new(),
            orient: Default::default(),
            results: Default::default(),
            cycles: Default::default(),
            tx: Default::default(),
            init: Default::default(),
            init_done: Default::default(),
            queue_open: Default::default(),
            queue_room: Default::default(),
            outstanding: Default::default(),
            dispatch_state: Default::default(),
            can_dispatch: Default::default(),
            unit_id: Default::default(),
            word: Default::default(),
            decode_wait: Default::default(),
            rows: Default::default(),
            cols: Default::default(),
            down: Default::default(),
            up: Default::default(),
            shifts: Default::default(),
            beat_valid: Default::default(),
            beat_kind: Default::default(),
            beat_data: Default::default(),
            collect_state: Default::default(),
            collect: Default::default(),
            entry: Default::default(),
            entry_cycles: Default::default(),
            entry_word: Default::default(),
            ident_pending: Default::default(),
            dispatch: Default::default(),
            answer: Default::default(),
            give_back: Default::default(),
            tail: Default::default(),
            units: c(units),
            decode_cycles: c(LATENCY + orient::LATENCY),
            up_right: c(M - 1),
            up_left: c(M),
            dtop: c(D - 1),
            last_shift: c(D - 1),
            rows_kind: Constant::new(BEAT_ROWS.to_bits()),
            cols_kind: Constant::new(BEAT_COLS.to_bits()),
            diag_kind: Constant::new(BEAT_DIAG.to_bits()),
            start_kind: Constant::new(BEAT_START.to_bits()),
            with_cycles: Constant::new(with_cycles),
            cycles_at: c(W + PADDED_RECORD_BITS),
            align: c(PAYLOAD_BITS - bits),
            id_at: c(RECORD_BITS),
            m13_at: c(COUNT_BITS + 4),
            m15_at: c(COUNT_BITS),
            word_at: c(PADDED_RECORD_BITS),
            pad: c(PADDED_RECORD_BITS - RECORD_BITS),
            result_bytes: c(bits / 8),
            answer_payload: Constant::new(left_aligned(&answer)),
            answer_bytes: c(answer.len()),
            answer_xor: Constant::new(IDENT_CRC_XOR.to_bits()),
            no_xor: Constant::new(0u8.to_bits()),
        }
    }
}

pub(crate) fn c<const B: usize>(v: usize) -> Constant<Bits<B>> {
    Constant::new((v as u64).to_bits())
}

/// `bytes` as the framer takes a payload: the first byte in the top 8 bits.
pub(crate) fn left_aligned(bytes: &[u8]) -> Bits<PAYLOAD_BITS> {
    let byte = |b: u8| bit_cast::<PAYLOAD_BITS, 8>((b as u64).to_bits());
    let zero = std::iter::repeat_n(0, PAYLOAD_BITS / 8 - bytes.len());
    bytes
        .iter()
        .copied()
        .chain(zero)
        .fold(Bits::<PAYLOAD_BITS>::default(), |v, b| (v << 8) | byte(b))
}

impl<const M: usize, const M1: usize, const D: usize, const W: usize> Logic for Front<M, M1, D, W> {
    // rust-hdl turns match arms into Verilog case items, which take no guards.
    #[allow(clippy::collapsible_match)]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            init,
            init_done,
            queue_open,
            queue_room,
            outstanding,
            dispatch_state,
            can_dispatch,
            unit_id,
            word,
            decode_wait,
            rows,
            cols,
            down,
            up,
            shifts,
            beat_valid,
            beat_kind,
            beat_data,
            collect_state,
            collect,
            entry,
            entry_cycles,
            entry_word,
            ident_pending,
            answer
        );
        clock!(self, clock, rx, words, free, dec, orient, results, cycles, tx);
        self.wordtab.clock.next = self.clock.val();

        // Frames in: checked words into the queue (a frame without room is dropped whole).
        // The stream stalls only between frames, so that a source that cannot wait (a UART)
        // loses whole frames, never part of one. The queue's flags are registered, so that
        // its read side (dispatch) and the parser are apart by a register: they then lag a
        // write by up to three cycles, and frames are at least five bytes apart (W >= 24), so
        // at most one word is unseen: the one slot of slack of `almost_full` covers it.
        self.queue_open.d.next = !self.words.almost_full.val();
        self.queue_room.d.next = !self.words.full.val();
        self.rx_ready.next = !self.rx.hunting.val() | self.queue_open.q.val();
        self.rx.data.next = self.rx_data.val();
        self.rx.data_valid.next = self.rx_valid.val() & self.rx_ready.val();
        self.rx.room.next = self.queue_room.q.val();
        self.words.write.next = self.rx.word_valid.val();
        self.words.data_in.next = self.rx.word.val();

        // The free list starts with every id.
        self.give_back.next = false;
        self.free.write.next = false;
        self.free.data_in.next = self.init.q.val().get_bits::<ID_BITS>(0);
        if self.init.q.val() != self.units.val() {
            self.free.write.next = true;
            self.init.d.next = self.init.q.val() + 1;
        }
        self.init_done.d.next = self.init.q.val() == self.units.val();

        // Dispatch: take a word and a free id into registers, write the word table and decode
        // from those, then the beats that load and start the unit (`stage::beats`). The
        // queues' flags are read a cycle late; they are fresh again long before the next
        // dispatch.
        self.can_dispatch.d.next = self.init_done.q.val() & !self.words.empty.val() & !self.free.empty.val();
        self.dispatch.next = (self.dispatch_state.q.val() == Dispatch::Idle) & self.can_dispatch.q.val();
        self.words.read.next = self.dispatch.val();
        self.free.read.next = self.dispatch.val();
        self.wordtab.write_enable.next = false;
        self.wordtab.write_address.next = self.unit_id.q.val();
        self.wordtab.write_data.next = self.word.q.val();
        self.dec.word.next = self.word.q.val();
        self.orient.rows.next = self.dec.rows.val();
        self.orient.cols.next = self.dec.cols.val();
        self.orient.down.next = self.dec.down.val();
        self.orient.up.next = self.dec.up.val();
        self.beat_valid.d.next = false;
        self.beat_kind.d.next = self.start_kind.val();
        self.beat_data.d.next = 0.into();
        match self.dispatch_state.q.val() {
            Dispatch::Idle => {
                if self.dispatch.val() {
                    self.unit_id.d.next = self.free.data_out.val();
                    self.word.d.next = self.words.data_out.val();
                    self.decode_wait.d.next = self.decode_cycles.val();
                    self.dispatch_state.d.next = Dispatch::Decode;
                }
            }
            Dispatch::Decode => {
                self.wordtab.write_enable.next = self.decode_wait.q.val() == self.decode_cycles.val();
                self.decode_wait.d.next = self.decode_wait.q.val() - 1;
                if self.decode_wait.q.val() == 0 {
                    self.rows.d.next = self.orient.rows_o.val();
                    self.cols.d.next = self.orient.cols_o.val();
                    self.down.d.next = self.orient.down_o.val();
                    self.up.d.next = (self.orient.up_o.val() >> self.up_right.val())
                        | (self.orient.up_o.val() << self.up_left.val());
                    self.shifts.d.next = 0.into();
                    self.dispatch_state.d.next = Dispatch::Rows;
                }
            }
            Dispatch::Rows => {
                self.beat_valid.d.next = true;
                self.beat_kind.d.next = self.rows_kind.val();
                self.beat_data.d.next = self.rows.q.val();
                self.dispatch_state.d.next = Dispatch::Cols;
            }
            Dispatch::Cols => {
                self.beat_valid.d.next = true;
                self.beat_kind.d.next = self.cols_kind.val();
                self.beat_data.d.next = self.cols.q.val();
                self.dispatch_state.d.next = Dispatch::Diag;
            }
            Dispatch::Diag => {
                self.beat_valid.d.next = true;
                self.beat_kind.d.next = self.diag_kind.val();
                self.beat_data.d.next =
                    bit_cast::<M, 1>(self.down.q.val().get_bit(self.dtop.val().index()).into())
                        | (bit_cast::<M, 1>(self.up.q.val().get_bit(0).into()) << 1);
                self.down.d.next = self.down.q.val() << 1;
                self.up.d.next = self.up.q.val() >> 1;
                self.shifts.d.next = self.shifts.q.val() + 1;
                if self.shifts.q.val() == self.last_shift.val() {
                    self.dispatch_state.d.next = Dispatch::Start;
                }
            }
            Dispatch::Start => {
                self.beat_valid.d.next = true;
                self.dispatch_state.d.next = Dispatch::Idle;
            }
            _ => {}
        }
        self.dn_valid.next = self.beat_valid.q.val();
        self.dn_id.next = self.unit_id.q.val();
        self.dn_kind.next = self.beat_kind.q.val();
        self.dn_data.next = self.beat_data.q.val();

        // Collection: every result finds room (at most one per unit id is ever in flight).
        self.results.write.next = self.up_valid.val();
        self.results.data_in.next = (bit_cast::<ENTRY_BITS, ID_BITS>(self.up_id.val()) << self.id_at.val())
            | (bit_cast::<ENTRY_BITS, 4>(self.up_m13.val()) << self.m13_at.val())
            | (bit_cast::<ENTRY_BITS, 4>(self.up_m15.val()) << self.m15_at.val())
            | bit_cast::<ENTRY_BITS, COUNT_BITS>(self.up_count.val());
        self.cycles.write.next = self.up_valid.val();
        self.cycles.data_in.next = self.up_cycles.val();
        // Take the next result into registers when the framer is free, read its word by id,
        // capture the word, then hand the frame to the framer (which is busy from the next
        // cycle on).
        // Idle next cycle without a load this cycle (a load leaves the framer busy): idle now
        // and not collecting.
        // A pending identification request goes first: the framer takes its answer when
        // collection would have taken a result, and no result is taken meanwhile.
        self.collect.d.next = (self.collect_state.q.val() == Collect::Idle)
            & !self.collect.q.val()
            & !self.results.empty.val()
            & !self.tx.busy.val()
            & !self.ident_pending.q.val();
        // Idle, not collecting and the framer free now; nothing can load it next cycle.
        self.answer.d.next = (self.collect_state.q.val() == Collect::Idle)
            & !self.collect.q.val()
            & !self.tx.busy.val()
            & self.ident_pending.q.val()
            & !self.answer.q.val();
        if self.answer.q.val() {
            self.ident_pending.d.next = false;
        }
        if self.rx.request.val() {
            self.ident_pending.d.next = true;
        }
        self.results.read.next = self.collect.q.val();
        self.cycles.read.next = self.collect.q.val();
        self.wordtab.read_address.next = self.entry.q.val().get_bits::<ID_BITS>(self.id_at.val().index());
        self.tx.load.next = self.answer.q.val();
        match self.collect_state.q.val() {
            Collect::Idle => {
                // The queues' heads, taken while idle whatever `collect` says: it then
                // steers the state and the queues alone, not a hundred enables.
                self.entry.d.next = self.results.data_out.val();
                self.entry_cycles.d.next = self.cycles.data_out.val();
                if self.collect.q.val() {
                    self.collect_state.d.next = Collect::Lookup;
                }
            }
            Collect::Lookup => {
                self.collect_state.d.next = Collect::Word;
            }
            Collect::Word => {
                self.entry_word.d.next = self.wordtab.read_data.val();
                self.collect_state.d.next = Collect::Load;
            }
            Collect::Load => {
                self.tx.load.next = true;
                self.give_back.next = true;
                self.free.write.next = true;
                self.free.data_in.next = self.entry.q.val().get_bits::<ID_BITS>(self.id_at.val().index());
                self.collect_state.d.next = Collect::Idle;
            }
            _ => {}
        }
        self.tail.next = (bit_cast::<PAYLOAD_BITS, W>(self.entry_word.q.val()) << self.word_at.val())
            | (bit_cast::<PAYLOAD_BITS, RECORD_BITS>(self.entry.q.val().get_bits::<RECORD_BITS>(0))
                << self.pad.val());
        if self.with_cycles.val() {
            self.tail.next = self.tail.val()
                | (bit_cast::<PAYLOAD_BITS, CYCLE_BITS>(self.entry_cycles.q.val()) << self.cycles_at.val());
        }
        self.tx.payload.next = self.tail.val() << self.align.val();
        self.tx.nbytes.next = self.result_bytes.val();
        self.tx.crc_xor.next = self.no_xor.val();
        if self.answer.q.val() {
            self.tx.payload.next = self.answer_payload.val();
            self.tx.nbytes.next = self.answer_bytes.val();
            self.tx.crc_xor.next = self.answer_xor.val();
        }
        self.tx_data.next = self.tx.tx_data.val();
        self.tx_valid.next = self.tx.tx_valid.val();
        self.tx_last.next = self.tx.tx_last.val();
        self.tx.tx_ready.next = self.tx_ready.val();

        if self.dispatch.val() & !self.give_back.val() {
            self.outstanding.d.next = self.outstanding.q.val() + 1;
        }
        if !self.dispatch.val() & self.give_back.val() {
            self.outstanding.d.next = self.outstanding.q.val() - 1;
        }
        self.idle.next = !self.rx.busy.val()
            & (self.outstanding.q.val() == 0)
            & self.words.empty.val()
            & (self.dispatch_state.q.val() == Dispatch::Idle)
            & !self.tx.busy.val()
            & !self.ident_pending.q.val()
            & (self.collect_state.q.val() == Collect::Idle);
    }
}
