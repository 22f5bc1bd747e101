//! The front end of an array of grouped stages (issue 50): as [`crate::front::Front`], with a
//! group request in (a pre-placement word under the group CRC's XOR) and group records out
//! (`queens_core::group`, docs/spec/protocol.md, "Group frames").
//!
//! In: group requests -> word queue -> dispatch: a free unit id, the word under that id, the
//! south decoder, the beats that load the walk (`grouped_stage::beats`). The orientation
//! stage has nothing to do: the walk always runs from the north down.
//! Out: records from the chain -> record queue -> the word by id -> the framer. A unit sends
//! many records a walk, so the queue can fill: while it has no room for what the chain may
//! still hold, the front end sends hold slots up the chain (valid, south field
//! [`HOLD`]), which no stage can fill, and drops them when they come back. A unit's id
//! returns to the free list once its end record is framed.

use crate::front::queue::Queue;
use crate::front::ram::Ram;
use crate::front::{c, left_aligned, WORD_QUEUE_BITS};
use crate::link::frame_rx::FrameRx;
use crate::link::frame_tx::{FrameTx, PAYLOAD_BITS};
use crate::solver::grouped_stage::{BODY_BITS, HOLD, SOUTH_BITS};
use crate::solver::south_decoder::{SouthDecoder, LATENCY};
use crate::solver::stage::{BEAT_COLS, BEAT_DIAG, BEAT_ROWS, BEAT_START, ID_BITS};
use queens_core::group::{END, GROUP_CRC_XOR};
use queens_core::ident::{Ident, IDENT_CRC_XOR};
use rust_hdl::prelude::*;

/// A record as the chain delivers it: south field and body.
const RECORD_BITS: usize = SOUTH_BITS + BODY_BITS;
/// Record queue entry: id and record.
const ENTRY_BITS: usize = ID_BITS + RECORD_BITS;
/// Address bits of the record queue: room for every slot of a chain of 1,024 stages and more.
const RECORD_QUEUE_BITS: usize = ID_BITS + 1;
const RECORD_QUEUE_BITS1: usize = RECORD_QUEUE_BITS + 1;
const WORD_QUEUE_BITS1: usize = WORD_QUEUE_BITS + 1;
/// Records beyond the chain's slots that may still arrive once holds are sent: the hold's
/// own registers and the queue's registered count.
const HOLD_SLACK: usize = 8;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum Dispatch {
    Idle,
    Decode,
    Rows,
    Cols,
    Diag,
    Start,
}

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum Collect {
    Idle,
    Lookup,
    Word,
    Load,
}

/// Positions M, M1 = M + 1, diagonals D = 2M + 1, wire word width W.
#[derive(LogicBlock)]
pub struct GroupFront<const M: usize, const M1: usize, const D: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub rx_data: Signal<In, Bits<8>>,
    pub rx_valid: Signal<In, Bit>,
    pub rx_ready: Signal<Out, Bit>,
    pub tx_data: Signal<Out, Bits<8>>,
    pub tx_valid: Signal<Out, Bit>,
    pub tx_last: Signal<Out, Bit>,
    pub tx_ready: Signal<In, Bit>,
    /// Nothing being received, queued, walked or sent.
    pub idle: Signal<Out, Bit>,

    pub dn_valid: Signal<Out, Bit>,
    pub dn_id: Signal<Out, Bits<ID_BITS>>,
    pub dn_kind: Signal<Out, Bits<2>>,
    pub dn_data: Signal<Out, Bits<M>>,
    /// Into the chain's first slot: a hold (south field `HOLD`) or an empty slot.
    pub hold: Signal<Out, Bit>,
    pub up_valid: Signal<In, Bit>,
    pub up_id: Signal<In, Bits<ID_BITS>>,
    pub up_south: Signal<In, Bits<SOUTH_BITS>>,
    pub up_body: Signal<In, Bits<BODY_BITS>>,

    rx: FrameRx<W>,
    words: Queue<Bits<W>, WORD_QUEUE_BITS, WORD_QUEUE_BITS1>,
    free: Queue<Bits<ID_BITS>, ID_BITS, 11>,
    wordtab: Ram<Bits<W>, ID_BITS>,
    dec: SouthDecoder<M, D, W>,
    records: Queue<Bits<ENTRY_BITS>, RECORD_QUEUE_BITS, RECORD_QUEUE_BITS1>,
    tx: FrameTx,

    init: DFF<Bits<11>>,
    init_done: DFF<Bit>,
    queue_open: DFF<Bit>,
    queue_room: DFF<Bit>,
    /// Units walking a group whose end record has not reached the framer.
    outstanding: DFF<Bits<11>>,
    /// Records in the record queue, and whether it is too full to take what the chain holds.
    queued: DFF<Bits<RECORD_QUEUE_BITS1>>,
    hold_r: DFF<Bit>,
    dispatch_state: DFF<Dispatch>,
    can_dispatch: DFF<Bit>,
    unit_id: DFF<Bits<ID_BITS>>,
    word: DFF<Bits<W>>,
    decode_wait: DFF<Bits<4>>,
    /// The walk's vectors. The diagonals shift out a bit per beat in the order of
    /// `unit::south_load_sequence`: falling ones from the top of `down`, rising ones from the
    /// bottom of `up`, loaded rotated (bit j = rising diagonal (j + M + 1) mod D); every
    /// diagonal beat carries the filled bits of lines M and M + 1 (`lines_hi`).
    rows: DFF<Bits<M>>,
    cols: DFF<Bits<M>>,
    lines_hi: DFF<Bits<2>>,
    down: DFF<Bits<D>>,
    up: DFF<Bits<D>>,
    shifts: DFF<Bits<6>>,
    beat_valid: DFF<Bit>,
    beat_kind: DFF<Bits<2>>,
    beat_data: DFF<Bits<M>>,
    collect_state: DFF<Collect>,
    collect: DFF<Bit>,
    entry: DFF<Bits<ENTRY_BITS>>,
    entry_word: DFF<Bits<W>>,
    ident_pending: DFF<Bit>,
    answer: DFF<Bit>,

    dispatch: Signal<Local, Bit>,
    give_back: Signal<Local, Bit>,
    arrive: Signal<Local, Bit>,
    leave: Signal<Local, Bit>,
    tail: Signal<Local, Bits<PAYLOAD_BITS>>,

    units: Constant<Bits<11>>,
    hold_at: Constant<Bits<RECORD_QUEUE_BITS1>>,
    hold_code: Constant<Bits<SOUTH_BITS>>,
    end_code: Constant<Bits<SOUTH_BITS>>,
    decode_cycles: Constant<Bits<4>>,
    up_right: Constant<Bits<8>>,
    up_left: Constant<Bits<8>>,
    dtop: Constant<Bits<8>>,
    last_shift: Constant<Bits<6>>,
    rows_kind: Constant<Bits<2>>,
    cols_kind: Constant<Bits<2>>,
    diag_kind: Constant<Bits<2>>,
    start_kind: Constant<Bits<2>>,
    id_at: Constant<Bits<8>>,
    south_at: Constant<Bits<8>>,
    m_at: Constant<Bits<8>>,
    word_at: Constant<Bits<8>>,
    record_at: Constant<Bits<8>>,
    align: Constant<Bits<8>>,
    record_bytes: Constant<Bits<5>>,
    record_xor: Constant<Bits<8>>,
    answer_payload: Constant<Bits<PAYLOAD_BITS>>,
    answer_bytes: Constant<Bits<5>>,
    answer_xor: Constant<Bits<8>>,
}

impl<const M: usize, const M1: usize, const D: usize, const W: usize> GroupFront<M, M1, D, W> {
    /// Records the queue takes before holds go out, with `units` stages on the chain.
    pub fn room(units: usize) -> usize {
        (1 << RECORD_QUEUE_BITS) - units - HOLD_SLACK
    }

    /// `units`: grouped stages on the chain (ids 0..units-1); `ident`: what it answers an
    /// identification request with; `room`: records queued before holds go out, at most
    /// [`room`](Self::room) (less only to test the holds).
    pub fn new(units: usize, ident: &Ident, room: usize) -> Self {
        assert!((1..=1 << ID_BITS).contains(&units), "1 to 1024 units");
        assert!(
            (1..=Self::room(units)).contains(&room),
            "room for the chain's slots"
        );
        assert_eq!(D, 2 * M + 1, "a south walk's diagonals");
        assert!(W >= 24, "frames at least five bytes apart");
        // The echoed word, the south field, the body, padding to whole bytes.
        let bits = (W + RECORD_BITS).div_ceil(8) * 8;
        assert!(bits <= PAYLOAD_BITS);
        let answer = ident.payload();
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
            hold: Default::default(),
            up_valid: Default::default(),
            up_id: Default::default(),
            up_south: Default::default(),
            up_body: Default::default(),
            rx: FrameRx::new(GROUP_CRC_XOR),
            words: Default::default(),
            free: Default::default(),
            wordtab: Default::default(),
            dec: SouthDecoder::new(),
            records: Default::default(),
            tx: Default::default(),
            init: Default::default(),
            init_done: Default::default(),
            queue_open: Default::default(),
            queue_room: Default::default(),
            outstanding: Default::default(),
            queued: Default::default(),
            hold_r: Default::default(),
            dispatch_state: Default::default(),
            can_dispatch: Default::default(),
            unit_id: Default::default(),
            word: Default::default(),
            decode_wait: Default::default(),
            rows: Default::default(),
            cols: Default::default(),
            lines_hi: Default::default(),
            down: Default::default(),
            up: Default::default(),
            shifts: Default::default(),
            beat_valid: Default::default(),
            beat_kind: Default::default(),
            beat_data: Default::default(),
            collect_state: Default::default(),
            collect: Default::default(),
            entry: Default::default(),
            entry_word: Default::default(),
            ident_pending: Default::default(),
            answer: Default::default(),
            dispatch: Default::default(),
            give_back: Default::default(),
            arrive: Default::default(),
            leave: Default::default(),
            tail: Default::default(),
            units: c(units),
            hold_at: c(room),
            hold_code: Constant::new(HOLD.to_bits()),
            end_code: Constant::new((END as u64).to_bits()),
            decode_cycles: c(LATENCY),
            up_right: c(M + 1),
            up_left: c(M),
            dtop: c(D - 1),
            last_shift: c(D - 1),
            rows_kind: Constant::new(BEAT_ROWS.to_bits()),
            cols_kind: Constant::new(BEAT_COLS.to_bits()),
            diag_kind: Constant::new(BEAT_DIAG.to_bits()),
            start_kind: Constant::new(BEAT_START.to_bits()),
            id_at: c(RECORD_BITS),
            south_at: c(BODY_BITS),
            m_at: c(M),
            word_at: c(bits - W),
            record_at: c(bits - W - RECORD_BITS),
            align: c(PAYLOAD_BITS - bits),
            record_bytes: c(bits / 8),
            record_xor: Constant::new(GROUP_CRC_XOR.to_bits()),
            answer_payload: Constant::new(left_aligned(&answer)),
            answer_bytes: c(answer.len()),
            answer_xor: Constant::new(IDENT_CRC_XOR.to_bits()),
        }
    }
}

impl<const M: usize, const M1: usize, const D: usize, const W: usize> Logic for GroupFront<M, M1, D, W> {
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
            queued,
            hold_r,
            dispatch_state,
            can_dispatch,
            unit_id,
            word,
            decode_wait,
            rows,
            cols,
            lines_hi,
            down,
            up,
            shifts,
            beat_valid,
            beat_kind,
            beat_data,
            collect_state,
            collect,
            entry,
            entry_word,
            ident_pending,
            answer
        );
        clock!(self, clock, rx, words, free, dec, records, tx);
        self.wordtab.clock.next = self.clock.val();

        // Frames in, as the plain front end takes them.
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

        // Dispatch: a word and a free id, the word table and the decoder, then the beats.
        self.can_dispatch.d.next = self.init_done.q.val() & !self.words.empty.val() & !self.free.empty.val();
        self.dispatch.next = (self.dispatch_state.q.val() == Dispatch::Idle) & self.can_dispatch.q.val();
        self.words.read.next = self.dispatch.val();
        self.free.read.next = self.dispatch.val();
        self.wordtab.write_enable.next = false;
        self.wordtab.write_address.next = self.unit_id.q.val();
        self.wordtab.write_data.next = self.word.q.val();
        self.dec.word.next = self.word.q.val();
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
                    self.rows.d.next = self.dec.rows.val();
                    self.cols.d.next = self.dec.lines.val().get_bits::<M>(0);
                    self.lines_hi.d.next = self.dec.lines.val().get_bits::<2>(self.m_at.val().index());
                    self.down.d.next = self.dec.down.val();
                    self.up.d.next = (self.dec.up.val() >> self.up_right.val())
                        | (self.dec.up.val() << self.up_left.val());
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
                        | (bit_cast::<M, 1>(self.up.q.val().get_bit(0).into()) << 1)
                        | (bit_cast::<M, 2>(self.lines_hi.q.val()) << 2);
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

        // Records in: every record but a returning hold; holds go out while the queue could
        // not take every slot the chain may still fill.
        self.arrive.next = self.up_valid.val() & (self.up_south.val() != self.hold_code.val());
        self.records.write.next = self.arrive.val();
        self.records.data_in.next = (bit_cast::<ENTRY_BITS, ID_BITS>(self.up_id.val()) << self.id_at.val())
            | (bit_cast::<ENTRY_BITS, SOUTH_BITS>(self.up_south.val()) << self.south_at.val())
            | bit_cast::<ENTRY_BITS, BODY_BITS>(self.up_body.val());
        self.leave.next = self.collect.q.val();
        if self.arrive.val() & !self.leave.val() {
            self.queued.d.next = self.queued.q.val() + 1;
        }
        if !self.arrive.val() & self.leave.val() {
            self.queued.d.next = self.queued.q.val() - 1;
        }
        self.hold_r.d.next = self.queued.q.val() >= self.hold_at.val();
        self.hold.next = self.hold_r.q.val();

        // Collection, as the plain front end's: a record into registers, its word by id, the
        // framer; an end record frees its unit.
        self.collect.d.next = (self.collect_state.q.val() == Collect::Idle)
            & !self.collect.q.val()
            & !self.records.empty.val()
            & !self.tx.busy.val()
            & !self.ident_pending.q.val();
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
        self.records.read.next = self.collect.q.val();
        self.wordtab.read_address.next = self.entry.q.val().get_bits::<ID_BITS>(self.id_at.val().index());
        self.tx.load.next = self.answer.q.val();
        match self.collect_state.q.val() {
            Collect::Idle => {
                self.entry.d.next = self.records.data_out.val();
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
                if self
                    .entry
                    .q
                    .val()
                    .get_bits::<SOUTH_BITS>(self.south_at.val().index())
                    == self.end_code.val()
                {
                    self.give_back.next = true;
                    self.free.write.next = true;
                    self.free.data_in.next = self.entry.q.val().get_bits::<ID_BITS>(self.id_at.val().index());
                }
                self.collect_state.d.next = Collect::Idle;
            }
            _ => {}
        }
        self.tail.next = (bit_cast::<PAYLOAD_BITS, W>(self.entry_word.q.val()) << self.word_at.val())
            | (bit_cast::<PAYLOAD_BITS, RECORD_BITS>(self.entry.q.val().get_bits::<RECORD_BITS>(0))
                << self.record_at.val());
        self.tx.payload.next = self.tail.val() << self.align.val();
        self.tx.nbytes.next = self.record_bytes.val();
        self.tx.crc_xor.next = self.record_xor.val();
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
