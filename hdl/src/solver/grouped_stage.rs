//! A stage of grouped units (issue 50): a [`GroupedUnit`] in place of today's unit and its
//! count, on the same two chains. The downstream chain loads a south group's walk
//! (`load::south_beats`); the upstream slot carries a group record's south field and body
//! (`queens_core::group`, docs/spec/protocol.md, "Group frames") in place of today's count
//! and cycles: one record per place code the tally offers, then the end record with the
//! records' number and the walk's cycles. A unit is free again once its end record leaves.

use crate::solver::arbiter::ArbiterKind;
use crate::solver::beat::{Beat, BeatOut};
use crate::solver::counter::SplitCounter;
use crate::solver::grouped::GroupedUnit;
use crate::solver::slot::{Slot, SlotOut};
use crate::solver::stage::{CYCLE_BITS, ID_BITS};
use crate::solver::tally::{CODE_BITS, COUNT_BITS, RECORD_BITS};
use crate::solver::tap::Tap;
use queens_core::group::{BODY_BITS as BODY_BITS_U32, END};
use rust_hdl::prelude::*;

/// Bits of a record's south field and body.
pub const SOUTH_BITS: usize = CODE_BITS;
pub const BODY_BITS: usize = BODY_BITS_U32 as usize;
/// The record a grouped stage's slot carries: the south field above the body.
pub const SLOT_BITS: usize = SOUTH_BITS + BODY_BITS;
const CYCLE_HALF: usize = CYCLE_BITS / 2;
/// The south field of a hold slot: valid, but no record (a place of 31 is none). The front
/// end sends holds up the chain while its record queue is near full, and drops them.
pub const HOLD: u64 = 31 << queens_core::south::PLACE_BITS;

#[derive(LogicBlock)]
pub struct GroupedStage<const M: usize, const M1: usize, const D: usize> {
    pub clock: Signal<In, Clock>,
    pub my_id: Signal<In, Bits<ID_BITS>>,

    /// The downstream chain through this stage (see [`Tap`]).
    pub dn: Beat<M>,
    pub dn_o: BeatOut<M>,

    /// The upstream slot into this stage, and out of it a cycle later.
    pub up: Slot<SLOT_BITS>,
    pub up_o: SlotOut<SLOT_BITS>,

    tap: Tap<M>,
    unit: GroupedUnit<M, M1, D>,
    /// The record slot passing up the chain through this stage.
    result_valid: DFF<Bit>,
    result_id: DFF<Bits<ID_BITS>>,
    result_south: DFF<Bits<SOUTH_BITS>>,
    result_body: DFF<Bits<BODY_BITS>>,
    /// The walk's cycles, as a plain stage counts them.
    cycles: SplitCounter<CYCLE_BITS, CYCLE_HALF>,
    /// The end record has left (cleared by a start).
    ended: DFF<Bit>,
    end_due: Signal<Local, Bit>,
    end_code: Constant<Bits<SOUTH_BITS>>,
    /// Where the fields sit in a body (constants: a const name would leak into the Verilog).
    m13_at: Constant<Bits<8>>,
    m15_at: Constant<Bits<8>>,
    count_at: Constant<Bits<8>>,
    records_at: Constant<Bits<8>>,
    /// Where the south field sits in the slot.
    south_at: Constant<Bits<8>>,
}

impl<const M: usize, const M1: usize, const D: usize> GroupedStage<M, M1, D> {
    pub fn new(kind: ArbiterKind) -> Self {
        let c = |v: usize| Constant::new((v as u64).to_bits());
        Self {
            clock: Default::default(),
            my_id: Default::default(),
            dn: Default::default(),
            dn_o: Default::default(),
            up: Default::default(),
            up_o: Default::default(),
            tap: Default::default(),
            unit: GroupedUnit::new(kind),
            result_valid: Default::default(),
            result_id: Default::default(),
            result_south: Default::default(),
            result_body: Default::default(),
            cycles: Default::default(),
            ended: Default::default(),
            end_due: Default::default(),
            end_code: Constant::new((END as u64).to_bits()),
            // A south record's body: mod 13, mod 15, the count, zeros; the end record's: the
            // records before it, the cycles.
            m13_at: c(BODY_BITS - 4),
            m15_at: c(BODY_BITS - 8),
            count_at: c(BODY_BITS - 8 - COUNT_BITS),
            records_at: c(BODY_BITS - RECORD_BITS),
            south_at: c(BODY_BITS),
        }
    }
}

impl<const M: usize, const M1: usize, const D: usize> GroupedStage<M, M1, D> {
    /// Keeps the unit's tally in `memory` (block RAM unless told; [`crate::solver::bram::Memory`]).
    pub fn set_memory(&mut self, memory: crate::solver::bram::Memory) {
        self.unit.set_memory(memory);
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
            ended
        );
        self.unit.clock.next = self.clock.val();
        self.tap.clock.next = self.clock.val();
        self.tap.my_id.next = self.my_id.val();
        Beat::<M>::link(&mut self.dn, &mut self.tap.dn);
        BeatOut::<M>::link(&mut self.dn_o, &mut self.tap.dn_o);
        self.unit.load_rows.next = self.tap.load_rows.val();
        self.unit.load_cols.next = self.tap.load_cols.val();
        self.unit.shift.next = self.tap.shift.val();
        self.unit.load_data.next = self.tap.load_data.val();
        self.unit.start.next = self.tap.start.val();

        // The walk's cycles (the high half catches up a cycle later, long before the end
        // record can leave: the read-out takes hundreds).
        clock!(self, clock, cycles);
        self.cycles.inc.next = self.unit.busy.val();
        self.cycles.clear.next = self.tap.start.val();
        if self.tap.start.val() {
            self.ended.d.next = false;
        }

        // Upstream: pass a record that arrives, or drop ours into an empty slot: the tally's
        // record offered, else the end record once the tally is through.
        self.end_due.next = self.unit.read.drained.val() & !self.ended.q.val();
        self.unit.read.take.next = self.unit.read.offer.val() & !self.up.valid.val();
        self.result_valid.d.next = self.up.valid.val() | self.unit.read.offer.val() | self.end_due.val();
        if self.up.valid.val() {
            self.result_id.d.next = self.up.id.val();
            self.result_south.d.next = self
                .up
                .data
                .val()
                .get_bits::<SOUTH_BITS>(self.south_at.val().index());
            self.result_body.d.next = self.up.data.val().get_bits::<BODY_BITS>(0);
        } else {
            self.result_id.d.next = self.my_id.val();
            if self.unit.read.offer.val() {
                self.result_south.d.next = self.unit.read.code.val();
                self.result_body.d.next = (bit_cast::<BODY_BITS, 4>(self.unit.read.m13.val())
                    << self.m13_at.val())
                    | (bit_cast::<BODY_BITS, 4>(self.unit.read.m15.val()) << self.m15_at.val())
                    | (bit_cast::<BODY_BITS, COUNT_BITS>(self.unit.read.count.val()) << self.count_at.val());
            } else {
                self.result_south.d.next = self.end_code.val();
                self.result_body.d.next = (bit_cast::<BODY_BITS, RECORD_BITS>(self.unit.read.records.val())
                    << self.records_at.val())
                    | bit_cast::<BODY_BITS, CYCLE_BITS>(self.cycles.value.val());
                if self.end_due.val() {
                    self.ended.d.next = true;
                }
            }
        }

        self.up_o.valid.next = self.result_valid.q.val();
        self.up_o.id.next = self.result_id.q.val();
        self.up_o.data.next = (bit_cast::<SLOT_BITS, SOUTH_BITS>(self.result_south.q.val())
            << self.south_at.val())
            | bit_cast::<SLOT_BITS, BODY_BITS>(self.result_body.q.val());
    }
}
