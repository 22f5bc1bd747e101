//! Dispatch, shared by both kinds of unit: the free list of unit ids, and a queued word to a
//! free unit. A word and a free id go into registers, the word into the word table and
//! through the kind's decoder, and the decoded vectors out as the beats that load and start
//! the unit (`load::beats`). The queues' flags are read a cycle late; they are fresh again
//! long before the next dispatch.

use crate::front::constant::c;
use crate::front::free_list::FreeList;
use crate::front::level::Level;
use crate::solver::beat::BeatOut;
use crate::solver::load::{BeatKind, ID_BITS, UNITS_BITS};
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum State {
    /// Waiting for a word and a free unit.
    Idle,
    /// The word goes into the word table and through the decoder's pipeline.
    Decode,
    /// The beat with the rows.
    Rows,
    /// The beat with the columns.
    Cols,
    /// One beat per diagonal of each direction.
    Diag,
    /// The start beat.
    Start,
}

/// The kind's decoder as dispatch sees it.
#[derive(LogicInterface, Default)]
pub struct Decoding<const M: usize, const D: usize, const W: usize> {
    /// The word under way, into the decoder; its vectors back `decode_cycles` later. `up`
    /// as decoded (rotated here); `hi`: bits every diagonal beat carries above its two.
    pub word: Signal<Out, Bits<W>>,
    pub rows: Signal<In, Bits<M>>,
    pub cols: Signal<In, Bits<M>>,
    pub down: Signal<In, Bits<D>>,
    pub up: Signal<In, Bits<D>>,
    pub hi: Signal<In, Bits<2>>,
}

/// Positions M, diagonals D, wire word width W.
#[derive(LogicBlock)]
pub struct Dispatch<const M: usize, const D: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    /// A word is queued, and the queue's head.
    pub queued: Signal<In, Bit>,
    pub queue_head: Signal<In, Bits<W>>,
    /// Take the head.
    pub take: Signal<Out, Bit>,
    /// The kind's decoder: the word under way, and its vectors.
    pub dec: Decoding<M, D, W>,
    /// Write the word under way into the word table at its unit's id.
    pub store: Signal<Out, Bit>,
    pub store_id: Signal<Out, Bits<ID_BITS>>,
    pub store_word: Signal<Out, Bits<W>>,
    /// An id back to the free list: its unit's last answer is framed.
    pub give_back: Signal<In, Bit>,
    pub back_id: Signal<In, Bits<ID_BITS>>,
    /// The beats down the chain.
    pub dn: BeatOut<M>,
    /// No unit holds work and no dispatch is under way.
    pub idle: Signal<Out, Bit>,

    free: FreeList,
    /// Units holding work whose last answer has not reached the framer.
    outstanding: Level<UNITS_BITS>,
    state: DFF<State>,
    /// A word and a free id are queued (registered: dispatch starts from flip-flops).
    can_dispatch: DFF<Bit>,
    /// The unit id and word being dispatched.
    unit_id: DFF<Bits<ID_BITS>>,
    word_r: DFF<Bits<W>>,
    /// Cycles left in the decoder's pipeline (its input is `word_r`, a register).
    decode_wait: DFF<Bits<4>>,
    /// The decoded vectors. The diagonals shift out a bit per beat in the order of the
    /// unit's load sequence: falling ones from the top of `down_r`, rising ones from the
    /// bottom of `up_r`, which is loaded rotated right by `up_right` (left by M).
    rows_r: DFF<Bits<M>>,
    cols_r: DFF<Bits<M>>,
    hi_r: DFF<Bits<2>>,
    down_r: DFF<Bits<D>>,
    up_r: DFF<Bits<D>>,
    /// Diagonal beats sent.
    shifts: DFF<Bits<6>>,
    /// The beat on its way down the chain.
    beat_valid: DFF<Bit>,
    beat_kind: DFF<BeatKind>,
    beat_data: DFF<Bits<M>>,
    go: Signal<Local, Bit>,

    decode_cycles: Constant<Bits<4>>,
    up_right: Constant<Bits<8>>,
    up_left: Constant<Bits<8>>,
    dtop: Constant<Bits<8>>,
    last_shift: Constant<Bits<6>>,
}

impl<const M: usize, const D: usize, const W: usize> Dispatch<M, D, W> {
    /// `units` on the chain (ids 0..units-1); `decode_cycles`: the kind's decoder's
    /// latency; `up_right`: the rotation of the rising diagonals into load order.
    pub fn new(units: usize, decode_cycles: usize, up_right: usize) -> Self {
        Self {
            clock: Default::default(),
            queued: Default::default(),
            queue_head: Default::default(),
            take: Default::default(),
            dec: Default::default(),
            store: Default::default(),
            store_id: Default::default(),
            store_word: Default::default(),
            give_back: Default::default(),
            back_id: Default::default(),
            dn: Default::default(),
            idle: Default::default(),
            free: FreeList::new(units),
            outstanding: Default::default(),
            state: Default::default(),
            can_dispatch: Default::default(),
            unit_id: Default::default(),
            word_r: Default::default(),
            decode_wait: Default::default(),
            rows_r: Default::default(),
            cols_r: Default::default(),
            hi_r: Default::default(),
            down_r: Default::default(),
            up_r: Default::default(),
            shifts: Default::default(),
            beat_valid: Default::default(),
            beat_kind: Default::default(),
            beat_data: Default::default(),
            go: Default::default(),
            decode_cycles: c(decode_cycles),
            up_right: c(up_right),
            up_left: c(M),
            dtop: c(D - 1),
            last_shift: c(D - 1),
        }
    }
}

impl<const M: usize, const D: usize, const W: usize> Logic for Dispatch<M, D, W> {
    // rust-hdl turns match arms into Verilog case items, which take no guards.
    #[allow(clippy::collapsible_match)]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            can_dispatch,
            unit_id,
            word_r,
            decode_wait,
            rows_r,
            cols_r,
            hi_r,
            down_r,
            up_r,
            shifts,
            beat_valid,
            beat_kind,
            beat_data
        );
        clock!(self, clock, free, outstanding);

        // The free list starts with every id; ids come back as their answers are framed.
        self.free.give_back.next = self.give_back.val();
        self.free.back_id.next = self.back_id.val();
        self.can_dispatch.d.next = self.free.ready.val() & self.queued.val();
        self.go.next = (self.state.q.val() == State::Idle) & self.can_dispatch.q.val();
        self.take.next = self.go.val();
        self.free.take.next = self.go.val();
        self.store.next = false;
        self.store_id.next = self.unit_id.q.val();
        self.store_word.next = self.word_r.q.val();
        self.dec.word.next = self.word_r.q.val();
        self.beat_valid.d.next = false;
        self.beat_kind.d.next = BeatKind::Start;
        self.beat_data.d.next = 0.into();
        match self.state.q.val() {
            State::Idle => {
                if self.go.val() {
                    self.unit_id.d.next = self.free.id.val();
                    self.word_r.d.next = self.queue_head.val();
                    self.decode_wait.d.next = self.decode_cycles.val();
                    self.state.d.next = State::Decode;
                }
            }
            State::Decode => {
                self.store.next = self.decode_wait.q.val() == self.decode_cycles.val();
                self.decode_wait.d.next = self.decode_wait.q.val() - 1;
                if self.decode_wait.q.val() == 0 {
                    self.rows_r.d.next = self.dec.rows.val();
                    self.cols_r.d.next = self.dec.cols.val();
                    self.hi_r.d.next = self.dec.hi.val();
                    self.down_r.d.next = self.dec.down.val();
                    self.up_r.d.next = (self.dec.up.val() >> self.up_right.val())
                        | (self.dec.up.val() << self.up_left.val());
                    self.shifts.d.next = 0.into();
                    self.state.d.next = State::Rows;
                }
            }
            State::Rows => {
                self.beat_valid.d.next = true;
                self.beat_kind.d.next = BeatKind::Rows;
                self.beat_data.d.next = self.rows_r.q.val();
                self.state.d.next = State::Cols;
            }
            State::Cols => {
                self.beat_valid.d.next = true;
                self.beat_kind.d.next = BeatKind::Cols;
                self.beat_data.d.next = self.cols_r.q.val();
                self.state.d.next = State::Diag;
            }
            State::Diag => {
                self.beat_valid.d.next = true;
                self.beat_kind.d.next = BeatKind::Diag;
                self.beat_data.d.next =
                    bit_cast::<M, 1>(self.down_r.q.val().get_bit(self.dtop.val().index()).into())
                        | (bit_cast::<M, 1>(self.up_r.q.val().get_bit(0).into()) << 1)
                        | (bit_cast::<M, 2>(self.hi_r.q.val()) << 2);
                self.down_r.d.next = self.down_r.q.val() << 1;
                self.up_r.d.next = self.up_r.q.val() >> 1;
                self.shifts.d.next = self.shifts.q.val() + 1;
                if self.shifts.q.val() == self.last_shift.val() {
                    self.state.d.next = State::Start;
                }
            }
            State::Start => {
                self.beat_valid.d.next = true;
                self.state.d.next = State::Idle;
            }
            _ => {}
        }
        self.dn.valid.next = self.beat_valid.q.val();
        self.dn.id.next = self.unit_id.q.val();
        self.dn.kind.next = self.beat_kind.q.val();
        self.dn.data.next = self.beat_data.q.val();

        self.outstanding.up.next = self.go.val();
        self.outstanding.down.next = self.give_back.val();
        self.idle.next = (self.outstanding.level.val() == 0) & (self.state.q.val() == State::Idle);
    }
}
