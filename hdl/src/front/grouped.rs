//! The front end of an array of grouped stages (issue 50): group requests in (a
//! pre-placement word under the group CRC's XOR), group records out (`queens_core::group`,
//! docs/spec/protocol.md, "Group frames"). Intake, dispatch and collection are the plain
//! front end's ([`crate::front`]); what is its own is here.
//!
//! In: the south decoder and the beats that load the walk (`load::south_beats`); the
//! orientation stage has nothing to do, as the walk always runs from the north down.
//! Out: a unit sends many records a walk, so the record queue can fill: while it has no
//! room for what the chain may still hold, the front end sends hold slots up the chain
//! (valid, south field [`HOLD`]), which no stage can fill, and drops them when they come
//! back. A unit's id returns to the free list once its end record is framed.

use crate::front::collect::Collect;
use crate::front::constant::c;
use crate::front::dispatch::Dispatch;
use crate::front::intake::Intake;
use crate::front::queue::Queue;
use crate::link::frame_tx::PAYLOAD_BITS;
use crate::solver::grouped_stage::{BODY_BITS, HOLD, SOUTH_BITS};
use crate::solver::south_decoder::{SouthDecoder, LATENCY};
use crate::solver::stage::ID_BITS;
use queens_core::group::{END, GROUP_CRC_XOR};
use queens_core::ident::Ident;
use rust_hdl::prelude::*;

/// A record as the chain delivers it: south field and body.
const RECORD_BITS: usize = SOUTH_BITS + BODY_BITS;
/// Record queue entry: id and record.
const ENTRY_BITS: usize = ID_BITS + RECORD_BITS;
/// Address bits of the record queue at most: room for every slot of a chain of the most
/// stages and more. It is built twice the size of the unit ids' tables ([`record_bits`]).
const RECORD_QUEUE_BITS: usize = ID_BITS + 1;
const RECORD_QUEUE_BITS1: usize = RECORD_QUEUE_BITS + 1;
/// Records beyond the chain's slots that may still arrive once holds are sent: the hold's
/// own registers and the queue's registered count.
const HOLD_SLACK: usize = 8;

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

    /// Into the chain's first slot: a hold (south field `HOLD`) or an empty slot.
    pub hold: Signal<Out, Bit>,
    pub up_valid: Signal<In, Bit>,
    pub up_id: Signal<In, Bits<ID_BITS>>,
    pub up_south: Signal<In, Bits<SOUTH_BITS>>,
    pub up_body: Signal<In, Bits<BODY_BITS>>,
    pub dn_valid: Signal<Out, Bit>,
    pub dn_id: Signal<Out, Bits<ID_BITS>>,
    pub dn_kind: Signal<Out, Bits<2>>,
    pub dn_data: Signal<Out, Bits<M>>,

    intake: Intake<W>,
    dispatch: Dispatch<M, D, W>,
    dec: SouthDecoder<M, D, W>,
    records: Queue<Bits<ENTRY_BITS>, RECORD_QUEUE_BITS, RECORD_QUEUE_BITS1>,
    collect: Collect<ENTRY_BITS, W>,
    /// Records in the record queue, and whether it is too full to take what the chain holds.
    queued: DFF<Bits<RECORD_QUEUE_BITS1>>,
    hold_r: DFF<Bit>,
    arrive: Signal<Local, Bit>,
    leave: Signal<Local, Bit>,
    tail: Signal<Local, Bits<PAYLOAD_BITS>>,

    hold_at: Constant<Bits<RECORD_QUEUE_BITS1>>,
    hold_code: Constant<Bits<SOUTH_BITS>>,
    end_code: Constant<Bits<SOUTH_BITS>>,
    id_at: Constant<Bits<8>>,
    south_at: Constant<Bits<8>>,
    m_at: Constant<Bits<8>>,
    word_at: Constant<Bits<8>>,
    record_at: Constant<Bits<8>>,
    align: Constant<Bits<8>>,
    record_bytes: Constant<Bits<5>>,
    record_xor: Constant<Bits<8>>,
}

impl<const M: usize, const M1: usize, const D: usize, const W: usize> GroupFront<M, M1, D, W> {
    /// Records the queue takes before holds go out, with `units` stages on the chain.
    pub fn room(units: usize) -> usize {
        (1 << record_bits(units)) - units - HOLD_SLACK
    }

    /// `units`: grouped stages on the chain (ids 0..units-1); `ident`: what it answers an
    /// identification request with; `room`: records queued before holds go out, at most
    /// [`room`](Self::room) (less only to test the holds).
    pub fn new(units: usize, ident: &Ident, room: usize) -> Self {
        assert!(
            (1..=Self::room(units)).contains(&room),
            "room for the chain's slots"
        );
        assert_eq!(D, 2 * M + 1, "a south walk's diagonals");
        // The echoed word, the south field, the body, padding to whole bytes.
        let bits = (W + RECORD_BITS).div_ceil(8) * 8;
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
            hold: Default::default(),
            up_valid: Default::default(),
            up_id: Default::default(),
            up_south: Default::default(),
            up_body: Default::default(),
            dn_valid: Default::default(),
            dn_id: Default::default(),
            dn_kind: Default::default(),
            dn_data: Default::default(),
            intake: Intake::new(GROUP_CRC_XOR),
            // The rising diagonals' rotation into load order: right by M + 1.
            dispatch: Dispatch::new(units, LATENCY, M + 1),
            dec: SouthDecoder::new(),
            records: Queue::holding(record_bits(units)),
            collect: Collect::new(units, ident),
            queued: Default::default(),
            hold_r: Default::default(),
            arrive: Default::default(),
            leave: Default::default(),
            tail: Default::default(),
            hold_at: c(room),
            hold_code: Constant::new(HOLD.to_bits()),
            end_code: Constant::new((END as u64).to_bits()),
            id_at: c(RECORD_BITS),
            south_at: c(BODY_BITS),
            m_at: c(M),
            word_at: c(bits - W),
            record_at: c(bits - W - RECORD_BITS),
            align: c(PAYLOAD_BITS - bits),
            record_bytes: c(bits / 8),
            record_xor: Constant::new(GROUP_CRC_XOR.to_bits()),
        }
    }
}

/// Address bits of the record queue of a chain of `units` stages: twice the word table.
fn record_bits(units: usize) -> usize {
    crate::front::table_bits(units) + 1
}

impl<const M: usize, const M1: usize, const D: usize, const W: usize> Logic for GroupFront<M, M1, D, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, queued, hold_r);
        clock!(self, clock, intake, dispatch, dec, records, collect);

        // Frames in; a queued group request to a free unit through the south decoder: every
        // diagonal beat also carries the filled bits of lines M and M + 1.
        self.intake.rx_data.next = self.rx_data.val();
        self.intake.rx_valid.next = self.rx_valid.val();
        self.rx_ready.next = self.intake.rx_ready.val();
        self.intake.take.next = self.dispatch.take.val();
        self.dispatch.queued.next = !self.intake.empty.val();
        self.dispatch.queue_head.next = self.intake.word.val();
        self.dec.word.next = self.dispatch.word.val();
        self.dispatch.rows.next = self.dec.rows.val();
        self.dispatch.cols.next = self.dec.lines.val().get_bits::<M>(0);
        self.dispatch.hi.next = self.dec.lines.val().get_bits::<2>(self.m_at.val().index());
        self.dispatch.down.next = self.dec.down.val();
        self.dispatch.up.next = self.dec.up.val();
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

        // Records in: every record but a returning hold; holds go out while the queue could
        // not take every slot the chain may still fill.
        self.arrive.next = self.up_valid.val() & (self.up_south.val() != self.hold_code.val());
        self.records.write.next = self.arrive.val();
        self.records.data_in.next = (bit_cast::<ENTRY_BITS, ID_BITS>(self.up_id.val()) << self.id_at.val())
            | (bit_cast::<ENTRY_BITS, SOUTH_BITS>(self.up_south.val()) << self.south_at.val())
            | bit_cast::<ENTRY_BITS, BODY_BITS>(self.up_body.val());
        self.leave.next = self.collect.read.val();
        if self.arrive.val() & !self.leave.val() {
            self.queued.d.next = self.queued.q.val() + 1;
        }
        if !self.arrive.val() & self.leave.val() {
            self.queued.d.next = self.queued.q.val() - 1;
        }
        self.hold_r.d.next = self.queued.q.val() >= self.hold_at.val();
        self.hold.next = self.hold_r.q.val();

        // Out: each record with its group's word; an end record frees its unit.
        self.records.read.next = self.collect.read.val();
        self.collect.head.next = self.records.data_out.val();
        self.collect.empty.next = self.records.empty.val();
        self.tail.next = (bit_cast::<PAYLOAD_BITS, W>(self.collect.entry_word.val()) << self.word_at.val())
            | (bit_cast::<PAYLOAD_BITS, RECORD_BITS>(self.collect.entry.val().get_bits::<RECORD_BITS>(0))
                << self.record_at.val());
        self.collect.payload.next = self.tail.val() << self.align.val();
        self.collect.nbytes.next = self.record_bytes.val();
        self.collect.crc_xor.next = self.record_xor.val();
        self.collect.last.next = self
            .collect
            .entry
            .val()
            .get_bits::<SOUTH_BITS>(self.south_at.val().index())
            == self.end_code.val();
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
