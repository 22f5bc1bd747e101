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

use crate::front::base::Base;
use crate::front::bytes::Bytes;
use crate::front::chain_end::ChainEnd;
use crate::front::constant::c;
use crate::front::frame::Layout;
use crate::front::level::Level;
use crate::front::queue::Queue;
use crate::solver::beat::BeatOut;
use crate::solver::decoder::{SouthDecoder, LATENCY};
use crate::solver::grouped_stage::{BODY_BITS, HOLD, SLOT_BITS, SOUTH_BITS};
use crate::solver::stage::ID_BITS;
use queens_core::group::{END, GROUP_CRC_XOR};
use queens_core::ident::Ident;
use rust_hdl::prelude::*;

/// A record as the chain delivers it: south field and body.
const RECORD_BITS: usize = SLOT_BITS;
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
    pub link: Bytes,
    /// Nothing being received, queued, walked or sent.
    pub idle: Signal<Out, Bit>,

    /// The chain's end; its first slot a hold (south field `HOLD`) or empty.
    pub chain: ChainEnd<M, SLOT_BITS>,

    base: Base<M, D, W, ENTRY_BITS>,
    dec: SouthDecoder<M, D, W>,
    records: Queue<Bits<ENTRY_BITS>, RECORD_QUEUE_BITS, RECORD_QUEUE_BITS1>,
    /// Records in the record queue, and whether it is too full to take what the chain holds.
    queued: Level<RECORD_QUEUE_BITS1>,
    hold_r: DFF<Bit>,
    arrive: Signal<Local, Bit>,

    hold_at: Constant<Bits<RECORD_QUEUE_BITS1>>,
    hold_code: Constant<Bits<SOUTH_BITS>>,
    end_code: Constant<Bits<SOUTH_BITS>>,
    id_at: Constant<Bits<8>>,
    south_at: Constant<Bits<8>>,
    m_at: Constant<Bits<8>>,
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
        let bytes = (W + RECORD_BITS).div_ceil(8);
        let layout = Layout {
            pad: 8 * bytes - W - RECORD_BITS,
            bytes,
            crc_xor: GROUP_CRC_XOR,
        };
        Self {
            clock: Default::default(),
            link: Default::default(),
            idle: Default::default(),
            chain: Default::default(),
            // The rising diagonals' rotation into load order: right by M + 1.
            base: Base::new(units, layout, LATENCY, M + 1, ident),
            dec: SouthDecoder::south(),
            records: Queue::holding(record_bits(units)),
            queued: Default::default(),
            hold_r: Default::default(),
            arrive: Default::default(),
            hold_at: c(room),
            hold_code: Constant::new(HOLD.to_bits()),
            end_code: Constant::new((END as u64).to_bits()),
            id_at: c(RECORD_BITS),
            south_at: c(BODY_BITS),
            m_at: c(M),
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
        dff_setup!(self, clock, hold_r);
        clock!(self, clock, base, dec, records, queued);
        Bytes::link(&mut self.link, &mut self.base.link);
        BeatOut::<M>::link(&mut self.chain.dn, &mut self.base.dn);

        // Dispatch's word through the south decoder: every diagonal beat also carries the
        // filled bits of lines M and M + 1.
        self.dec.word.next = self.base.dec.word.val();
        self.base.dec.rows.next = self.dec.rows.val();
        self.base.dec.cols.next = self.dec.cols.val().get_bits::<M>(0);
        self.base.dec.hi.next = self.dec.cols.val().get_bits::<2>(self.m_at.val().index());
        self.base.dec.down.next = self.dec.down.val();
        self.base.dec.up.next = self.dec.up.val();

        // Records in: every record but a returning hold; holds go out while the queue could
        // not take every slot the chain may still fill.
        self.arrive.next = self.chain.up.valid.val()
            & (self
                .chain
                .up
                .data
                .val()
                .get_bits::<SOUTH_BITS>(self.south_at.val().index())
                != self.hold_code.val());
        self.records.write.next = self.arrive.val();
        self.records.data_in.next = (bit_cast::<ENTRY_BITS, ID_BITS>(self.chain.up.id.val())
            << self.id_at.val())
            | bit_cast::<ENTRY_BITS, RECORD_BITS>(self.chain.up.data.val());
        self.queued.up.next = self.arrive.val();
        self.queued.down.next = self.base.answers.read.val();
        self.hold_r.d.next = self.queued.level.val() >= self.hold_at.val();
        self.chain.first.valid.next = self.hold_r.q.val();
        self.chain.first.id.next = 0.into();
        self.chain.first.data.next =
            bit_cast::<SLOT_BITS, SOUTH_BITS>(self.hold_code.val()) << self.south_at.val();

        // Out: each record with its group's word; an end record frees its unit.
        self.records.read.next = self.base.answers.read.val();
        self.base.answers.head.next = self.records.data_out.val();
        self.base.answers.empty.next = self.records.empty.val();
        self.base.answers.above.next = 0.into();
        self.base.answers.last.next = self
            .base
            .answers
            .entry
            .val()
            .get_bits::<SOUTH_BITS>(self.south_at.val().index())
            == self.end_code.val();
        self.idle.next = self.base.idle.val();
    }
}
