//! Collection, shared by both kinds of unit: the answers queued by the kind's front end, one
//! at a time, into the framer with the word their unit was sent (the word table, by unit id),
//! and identification answers between them. Take the head into registers when the framer is
//! free, read its word by id, capture the word, then hand the frame to the framer (busy from
//! the next cycle on).

use crate::front::constant::c;
use crate::front::frame::{Frame, Layout};
use crate::front::ram::Ram;
use crate::link::frame_tx::{FrameTx, PAYLOAD_BITS};
use crate::solver::stage::ID_BITS;
use queens_core::ident::{Ident, IDENT_CRC_XOR};
use rust_hdl::prelude::*;

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum State {
    /// Waiting for an answer and a free framer; the queue's head goes into registers as it
    /// is taken.
    Idle,
    /// The word table is read at the answer's unit id.
    Lookup,
    /// Its read data goes into a register.
    Word,
    /// The framer takes the frame.
    Load,
}

/// The kind's side of collection, E-bit queue entries and W-bit words.
#[derive(LogicInterface, Default)]
pub struct Answers<const E: usize, const W: usize> {
    /// The answer queue's head, whether it is empty, and taking it.
    pub head: Signal<In, Bits<E>>,
    pub empty: Signal<In, Bit>,
    pub read: Signal<Out, Bit>,
    /// Heads are taken into registers now: a kind's own queues capture beside `entry`.
    pub capture: Signal<Out, Bit>,
    /// The answer being framed; the kind's bits above its word in the frame (see [`Frame`]),
    /// and whether it is the unit's last answer, which frees the unit.
    pub entry: Signal<Out, Bits<E>>,
    pub above: Signal<In, Bits<PAYLOAD_BITS>>,
    pub last: Signal<In, Bit>,
}

/// Queue entries of E bits (the unit id on top), wire words of W bits.
#[derive(LogicBlock)]
pub struct Collect<const E: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    /// The kind's answers.
    pub answers: Answers<E, W>,
    /// The word table's write side (from dispatch).
    pub store: Signal<In, Bit>,
    pub store_id: Signal<In, Bits<ID_BITS>>,
    pub store_word: Signal<In, Bits<W>>,
    /// A unit's id back to the free list.
    pub give_back: Signal<Out, Bit>,
    pub back_id: Signal<Out, Bits<ID_BITS>>,
    /// An identification request was received.
    pub request: Signal<In, Bit>,
    pub tx_data: Signal<Out, Bits<8>>,
    pub tx_valid: Signal<Out, Bit>,
    pub tx_last: Signal<Out, Bit>,
    pub tx_ready: Signal<In, Bit>,
    /// Nothing waiting, being looked up or sent.
    pub idle: Signal<Out, Bit>,

    wordtab: Ram<Bits<W>, ID_BITS>,
    frame: Frame<E, W>,
    tx: FrameTx,
    state: DFF<State>,
    /// Take the next answer: a flip-flop, decided a cycle ahead (one was queued, the framer
    /// was free, and collection was idle and stays so). Its net reaches the queues' read
    /// sides, the furthest apart of the front end; from logic, it was the full device's
    /// longest path.
    collect: DFF<Bit>,
    entry_r: DFF<Bits<E>>,
    entry_word_r: DFF<Bits<W>>,
    /// An identification request waits for the framer.
    ident_pending: DFF<Bit>,
    /// The framer takes the identification answer: decided a cycle ahead, as `collect` is
    /// (from logic, it drove the framer's 160 payload bits and was the front end's longest
    /// path).
    answer: DFF<Bit>,

    id_at: Constant<Bits<8>>,
    answer_payload: Constant<Bits<PAYLOAD_BITS>>,
    answer_bytes: Constant<Bits<5>>,
    answer_xor: Constant<Bits<8>>,
}

impl<const E: usize, const W: usize> Collect<E, W> {
    /// `units`: the ids the word table holds words for; `layout`: the kind's answer frames;
    /// `ident`: what it answers an identification request with.
    pub fn new(units: usize, layout: Layout, ident: &Ident) -> Self {
        let answer = ident.payload();
        assert!(answer.len() * 8 <= PAYLOAD_BITS);
        Self {
            clock: Default::default(),
            answers: Default::default(),
            store: Default::default(),
            store_id: Default::default(),
            store_word: Default::default(),
            give_back: Default::default(),
            back_id: Default::default(),
            request: Default::default(),
            tx_data: Default::default(),
            tx_valid: Default::default(),
            tx_last: Default::default(),
            tx_ready: Default::default(),
            idle: Default::default(),
            wordtab: Ram::with_bits(crate::front::table_bits(units)),
            frame: Frame::new(layout),
            tx: Default::default(),
            state: Default::default(),
            collect: Default::default(),
            entry_r: Default::default(),
            entry_word_r: Default::default(),
            ident_pending: Default::default(),
            answer: Default::default(),
            id_at: c(E - ID_BITS),
            answer_payload: Constant::new(left_aligned(&answer)),
            answer_bytes: c(answer.len()),
            answer_xor: Constant::new(IDENT_CRC_XOR.to_bits()),
        }
    }
}

impl<const E: usize, const W: usize> Logic for Collect<E, W> {
    #[allow(clippy::collapsible_match)]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            collect,
            entry_r,
            entry_word_r,
            ident_pending,
            answer
        );
        clock!(self, clock, tx);
        self.wordtab.clock.next = self.clock.val();
        self.wordtab.write_enable.next = self.store.val();
        self.wordtab.write_address.next = self.store_id.val();
        self.wordtab.write_data.next = self.store_word.val();

        // Idle next cycle without a load this cycle (a load leaves the framer busy): idle now
        // and not collecting. A pending identification request goes first: the framer takes
        // its answer when collection would have taken an answer, and none is taken meanwhile.
        self.collect.d.next = (self.state.q.val() == State::Idle)
            & !self.collect.q.val()
            & !self.answers.empty.val()
            & !self.tx.busy.val()
            & !self.ident_pending.q.val();
        // Idle, not collecting and the framer free now; nothing can load it next cycle.
        self.answer.d.next = (self.state.q.val() == State::Idle)
            & !self.collect.q.val()
            & !self.tx.busy.val()
            & self.ident_pending.q.val()
            & !self.answer.q.val();
        if self.answer.q.val() {
            self.ident_pending.d.next = false;
        }
        if self.request.val() {
            self.ident_pending.d.next = true;
        }
        self.answers.read.next = self.collect.q.val();
        self.answers.capture.next = self.state.q.val() == State::Idle;
        self.wordtab.read_address.next = self.entry_r.q.val().get_bits::<ID_BITS>(self.id_at.val().index());
        self.back_id.next = self.entry_r.q.val().get_bits::<ID_BITS>(self.id_at.val().index());
        self.give_back.next = false;
        self.tx.load.next = self.answer.q.val();
        match self.state.q.val() {
            State::Idle => {
                // The queue's head, taken while idle whatever `collect` says: it then steers
                // the state and the queues alone, not a hundred enables.
                self.entry_r.d.next = self.answers.head.val();
                if self.collect.q.val() {
                    self.state.d.next = State::Lookup;
                }
            }
            State::Lookup => {
                self.state.d.next = State::Word;
            }
            State::Word => {
                self.entry_word_r.d.next = self.wordtab.read_data.val();
                self.state.d.next = State::Load;
            }
            State::Load => {
                self.tx.load.next = true;
                self.give_back.next = self.answers.last.val();
                self.state.d.next = State::Idle;
            }
            _ => {}
        }
        self.answers.entry.next = self.entry_r.q.val();
        self.frame.entry.next = self.entry_r.q.val();
        self.frame.word.next = self.entry_word_r.q.val();
        self.frame.above.next = self.answers.above.val();
        self.tx.payload.next = self.frame.payload.val();
        self.tx.nbytes.next = self.frame.nbytes.val();
        self.tx.crc_xor.next = self.frame.crc_xor.val();
        if self.answer.q.val() {
            self.tx.payload.next = self.answer_payload.val();
            self.tx.nbytes.next = self.answer_bytes.val();
            self.tx.crc_xor.next = self.answer_xor.val();
        }
        self.tx_data.next = self.tx.tx_data.val();
        self.tx_valid.next = self.tx.tx_valid.val();
        self.tx_last.next = self.tx.tx_last.val();
        self.tx.tx_ready.next = self.tx_ready.val();
        self.idle.next =
            !self.tx.busy.val() & !self.ident_pending.q.val() & (self.state.q.val() == State::Idle);
    }
}

/// `bytes` as the framer takes a payload: the first byte in the top 8 bits.
fn left_aligned(bytes: &[u8]) -> Bits<PAYLOAD_BITS> {
    let byte = |b: u8| bit_cast::<PAYLOAD_BITS, 8>((b as u64).to_bits());
    let zero = std::iter::repeat_n(0, PAYLOAD_BITS / 8 - bytes.len());
    bytes
        .iter()
        .copied()
        .chain(zero)
        .fold(Bits::<PAYLOAD_BITS>::default(), |v, b| (v << 8) | byte(b))
}
