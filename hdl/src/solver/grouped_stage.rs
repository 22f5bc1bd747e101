//! A stage of grouped units (issue 50): a [`GroupedUnit`] in place of today's unit and its
//! count, on the same two chains. The downstream chain loads a south group's walk
//! (`load::south_beats`); the upstream slot carries a group record's south field and body
//! (`queens_core::group`, docs/spec/protocol.md, "Group frames") in place of today's count
//! and cycles: one record per place code the tally offers, then the end record with the
//! records' number and the walk's cycles. A unit is free again once its end record leaves.

use crate::solver::arbiter::ArbiterKind;
use crate::solver::grouped::GroupedUnit;
use crate::solver::stage::{CYCLE_BITS, ID_BITS};
use crate::solver::tally::{CODE_BITS, COUNT_BITS, RECORD_BITS};
use crate::solver::tap::Tap;
use queens_core::group::{BODY_BITS as BODY_BITS_U32, END};
use rust_hdl::prelude::*;

/// Bits of a record's south field and body.
pub const SOUTH_BITS: usize = CODE_BITS;
pub const BODY_BITS: usize = BODY_BITS_U32 as usize;
const CYCLE_HALF: usize = CYCLE_BITS / 2;
/// The south field of a hold slot: valid, but no record (a place of 31 is none). The front
/// end sends holds up the chain while its record queue is near full, and drops them.
pub const HOLD: u64 = 31 << queens_core::south::PLACE_BITS;

#[derive(LogicBlock)]
pub struct GroupedStage<const M: usize, const M1: usize, const D: usize> {
    pub clock: Signal<In, Clock>,
    pub my_id: Signal<In, Bits<ID_BITS>>,

    pub dn_valid: Signal<In, Bit>,
    pub dn_id: Signal<In, Bits<ID_BITS>>,
    pub dn_kind: Signal<In, Bits<2>>,
    pub dn_data: Signal<In, Bits<M>>,
    pub dn_valid_o: Signal<Out, Bit>,
    pub dn_id_o: Signal<Out, Bits<ID_BITS>>,
    pub dn_kind_o: Signal<Out, Bits<2>>,
    pub dn_data_o: Signal<Out, Bits<M>>,

    pub up_valid: Signal<In, Bit>,
    pub up_id: Signal<In, Bits<ID_BITS>>,
    pub up_south: Signal<In, Bits<SOUTH_BITS>>,
    pub up_body: Signal<In, Bits<BODY_BITS>>,
    pub up_valid_o: Signal<Out, Bit>,
    pub up_id_o: Signal<Out, Bits<ID_BITS>>,
    pub up_south_o: Signal<Out, Bits<SOUTH_BITS>>,
    pub up_body_o: Signal<Out, Bits<BODY_BITS>>,

    tap: Tap<M>,
    unit: GroupedUnit<M, M1, D>,
    /// The record slot passing up the chain through this stage.
    result_valid: DFF<Bit>,
    result_id: DFF<Bits<ID_BITS>>,
    result_south: DFF<Bits<SOUTH_BITS>>,
    result_body: DFF<Bits<BODY_BITS>>,
    /// The walk's cycles, in halves as today's stage counts them.
    cycles_lo: DFF<Bits<CYCLE_HALF>>,
    cycles_hi: DFF<Bits<CYCLE_HALF>>,
    cycles_c: DFF<Bit>,
    /// The end record has left (cleared by a start).
    ended: DFF<Bit>,
    end_due: Signal<Local, Bit>,
    end_code: Constant<Bits<SOUTH_BITS>>,
    /// Where the fields sit in a body (constants: a const name would leak into the Verilog).
    cycles_half: Constant<Bits<8>>,
    m13_at: Constant<Bits<8>>,
    m15_at: Constant<Bits<8>>,
    count_at: Constant<Bits<8>>,
    records_at: Constant<Bits<8>>,
}

impl<const M: usize, const M1: usize, const D: usize> GroupedStage<M, M1, D> {
    pub fn new(kind: ArbiterKind) -> Self {
        let c = |v: usize| Constant::new((v as u64).to_bits());
        Self {
            clock: Default::default(),
            my_id: Default::default(),
            dn_valid: Default::default(),
            dn_id: Default::default(),
            dn_kind: Default::default(),
            dn_data: Default::default(),
            dn_valid_o: Default::default(),
            dn_id_o: Default::default(),
            dn_kind_o: Default::default(),
            dn_data_o: Default::default(),
            up_valid: Default::default(),
            up_id: Default::default(),
            up_south: Default::default(),
            up_body: Default::default(),
            up_valid_o: Default::default(),
            up_id_o: Default::default(),
            up_south_o: Default::default(),
            up_body_o: Default::default(),
            tap: Default::default(),
            unit: GroupedUnit::new(kind),
            result_valid: Default::default(),
            result_id: Default::default(),
            result_south: Default::default(),
            result_body: Default::default(),
            cycles_lo: Default::default(),
            cycles_hi: Default::default(),
            cycles_c: Default::default(),
            ended: Default::default(),
            end_due: Default::default(),
            end_code: Constant::new((END as u64).to_bits()),
            cycles_half: c(CYCLE_HALF),
            // A south record's body: mod 13, mod 15, the count, zeros; the end record's: the
            // records before it, the cycles.
            m13_at: c(BODY_BITS - 4),
            m15_at: c(BODY_BITS - 8),
            count_at: c(BODY_BITS - 8 - COUNT_BITS),
            records_at: c(BODY_BITS - RECORD_BITS),
        }
    }
}

impl<const M: usize, const M1: usize, const D: usize> Logic for GroupedStage<M, M1, D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            result_valid,
            result_id,
            result_south,
            result_body,
            cycles_lo,
            cycles_hi,
            cycles_c,
            ended
        );
        self.unit.clock.next = self.clock.val();
        self.tap.clock.next = self.clock.val();
        self.tap.my_id.next = self.my_id.val();
        self.tap.dn_valid.next = self.dn_valid.val();
        self.tap.dn_id.next = self.dn_id.val();
        self.tap.dn_kind.next = self.dn_kind.val();
        self.tap.dn_data.next = self.dn_data.val();
        self.dn_valid_o.next = self.tap.dn_valid_o.val();
        self.dn_id_o.next = self.tap.dn_id_o.val();
        self.dn_kind_o.next = self.tap.dn_kind_o.val();
        self.dn_data_o.next = self.tap.dn_data_o.val();
        self.unit.load_rows.next = self.tap.load_rows.val();
        self.unit.load_cols.next = self.tap.load_cols.val();
        self.unit.shift.next = self.tap.shift.val();
        self.unit.load_data.next = self.tap.load_data.val();
        self.unit.start.next = self.tap.start.val();

        // The walk's cycles (the high half catches up a cycle later, long before the end
        // record can leave: the read-out takes hundreds).
        self.cycles_c.d.next = false;
        if self.cycles_c.q.val() {
            self.cycles_hi.d.next = self.cycles_hi.q.val() + 1;
        }
        if self.unit.busy.val() {
            self.cycles_lo.d.next = self.cycles_lo.q.val() + 1;
            self.cycles_c.d.next = self.cycles_lo.q.val().all();
        }
        if self.tap.start.val() {
            self.cycles_lo.d.next = 0.into();
            self.cycles_hi.d.next = 0.into();
            self.ended.d.next = false;
        }

        // Upstream: pass a record that arrives, or drop ours into an empty slot: the tally's
        // record offered, else the end record once the tally is through.
        self.end_due.next = self.unit.drained.val() & !self.ended.q.val();
        self.unit.take.next = self.unit.offer.val() & !self.up_valid.val();
        self.result_valid.d.next = self.up_valid.val() | self.unit.offer.val() | self.end_due.val();
        if self.up_valid.val() {
            self.result_id.d.next = self.up_id.val();
            self.result_south.d.next = self.up_south.val();
            self.result_body.d.next = self.up_body.val();
        } else {
            self.result_id.d.next = self.my_id.val();
            if self.unit.offer.val() {
                self.result_south.d.next = self.unit.code.val();
                self.result_body.d.next = (bit_cast::<BODY_BITS, 4>(self.unit.m13.val())
                    << self.m13_at.val())
                    | (bit_cast::<BODY_BITS, 4>(self.unit.m15.val()) << self.m15_at.val())
                    | (bit_cast::<BODY_BITS, COUNT_BITS>(self.unit.count.val()) << self.count_at.val());
            } else {
                self.result_south.d.next = self.end_code.val();
                self.result_body.d.next = (bit_cast::<BODY_BITS, RECORD_BITS>(self.unit.records.val())
                    << self.records_at.val())
                    | (bit_cast::<BODY_BITS, CYCLE_HALF>(self.cycles_hi.q.val()) << self.cycles_half.val())
                    | bit_cast::<BODY_BITS, CYCLE_HALF>(self.cycles_lo.q.val());
                if self.end_due.val() {
                    self.ended.d.next = true;
                }
            }
        }

        self.up_valid_o.next = self.result_valid.q.val();
        self.up_id_o.next = self.result_id.q.val();
        self.up_south_o.next = self.result_south.q.val();
        self.up_body_o.next = self.result_body.q.val();
    }
}
