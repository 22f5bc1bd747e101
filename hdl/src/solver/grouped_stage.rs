//! A stage of grouped units (issue 50): a [`GroupedUnit`] in place of today's unit and its
//! count, on the same two chains. The downstream chain loads a south group's walk
//! (`load::south_beats`); the upstream slot carries a group record's south field and body
//! (`queens_core::group`, docs/spec/protocol.md, "Group frames") in place of today's count
//! and cycles: one record per place code the tally offers, then the end record with the
//! records' number and the walk's cycles. A unit is free again once its end record leaves.

use crate::solver::arbiter::ArbiterKind;
use crate::solver::counter::SplitCounter;
use crate::solver::grouped::GroupedUnit;
use crate::solver::load_ports::LoadPortsOut;
use crate::solver::place::{Links, Place};
use crate::solver::stage::CYCLE_BITS;
use crate::solver::tally::{CODE_BITS, COUNT_BITS, RECORD_BITS};
use queens_core::group::{BODY_BITS as BODY_BITS_U32, END, WRAP};
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
    /// The stage's ports on the chains (see [`Place`]).
    pub links: Links<M, SLOT_BITS>,
    place: Place<M, SLOT_BITS>,
    unit: GroupedUnit<M, M1, D>,
    /// The record offered: a south record's or the end record's fields.
    south: Signal<Local, Bits<SOUTH_BITS>>,
    body: Signal<Local, Bits<BODY_BITS>>,
    /// The walk's cycles, as a plain stage counts them.
    cycles: SplitCounter<CYCLE_BITS, CYCLE_HALF>,
    /// The end record has left (cleared by a start).
    ended: DFF<Bit>,
    end_due: Signal<Local, Bit>,
    end_code: Constant<Bits<SOUTH_BITS>>,
    /// Where the end record's fields sit in its body (constants: a const name would leak into
    /// the Verilog); a south record's body is its count, a wrap record's [`WRAP`].
    m13_at: Constant<Bits<8>>,
    m15_at: Constant<Bits<8>>,
    lost_bit: Constant<Bits<BODY_BITS>>,
    wrap_body: Constant<Bits<BODY_BITS>>,
    records_at: Constant<Bits<8>>,
    /// Where the south field sits in the slot.
    south_at: Constant<Bits<8>>,
}

impl<const M: usize, const M1: usize, const D: usize> GroupedStage<M, M1, D> {
    pub fn new(kind: ArbiterKind) -> Self {
        let c = |v: usize| Constant::new((v as u64).to_bits());
        Self {
            clock: Default::default(),
            links: Default::default(),
            place: Default::default(),
            unit: GroupedUnit::new(kind),
            south: Default::default(),
            body: Default::default(),
            cycles: Default::default(),
            ended: Default::default(),
            end_due: Default::default(),
            end_code: Constant::new((END as u64).to_bits()),
            // The end record's body: the walk's mod 13, mod 15, a wrap lost, zeros, the
            // records before it, the cycles.
            m13_at: c(BODY_BITS - 4),
            m15_at: c(BODY_BITS - 8),
            lost_bit: Constant::new(Bits::default().replace_bit(BODY_BITS - 9, true)),
            wrap_body: Constant::new(Bits::default().replace_bit(WRAP.trailing_zeros() as usize, true)),
            records_at: c(CYCLE_BITS),
            south_at: c(BODY_BITS),
        }
    }

    /// Keeps the unit's tally in `memory` (block RAM unless told; [`crate::solver::bram::Memory`]).
    pub fn set_memory(&mut self, memory: crate::solver::bram::Memory) {
        self.unit.set_memory(memory);
    }

    /// Builds the unit's tally in form `pipe` (direct unless told;
    /// [`crate::solver::tally::TallyPipe`]), before `connect_all`.
    pub fn set_pipe(&mut self, pipe: crate::solver::tally::TallyPipe) {
        self.unit.set_pipe(pipe);
    }
}

impl<const M: usize, const M1: usize, const D: usize> Logic for GroupedStage<M, M1, D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ended);
        self.unit.clock.next = self.clock.val();
        self.place.clock.next = self.clock.val();
        Links::<M, SLOT_BITS>::link(&mut self.links, &mut self.place.links);
        LoadPortsOut::<M>::join(&mut self.place.load, &mut self.unit.load);

        // The walk's cycles (the high half catches up a cycle later, long before the end
        // record can leave: the read-out takes hundreds).
        clock!(self, clock, cycles);
        self.cycles.inc.next = self.unit.busy.val();
        self.cycles.clear.next = self.place.load.start.val();
        if self.place.load.start.val() {
            self.ended.d.next = false;
        }

        // Upstream: into an empty slot, a wrap waiting (during the walk or after), else the
        // tally's record offered, else the end record once the tally is through.
        self.end_due.next = self.unit.read.drained.val() & !self.ended.q.val() & !self.unit.read.wrap.val();
        self.unit.read.wrap_take.next = self.unit.read.wrap.val() & !self.links.up.valid.val();
        self.unit.read.take.next =
            self.unit.read.offer.val() & !self.unit.read.wrap.val() & !self.links.up.valid.val();
        self.place.offer.next = self.unit.read.wrap.val() | self.unit.read.offer.val() | self.end_due.val();
        if self.unit.read.wrap.val() {
            self.south.next = self.unit.read.wrap_at.val();
            self.body.next = self.wrap_body.val();
        } else if self.unit.read.offer.val() {
            self.south.next = self.unit.read.code.val();
            self.body.next = bit_cast::<BODY_BITS, COUNT_BITS>(self.unit.read.count.val());
        } else {
            self.south.next = self.end_code.val();
            self.body.next = (bit_cast::<BODY_BITS, 4>(self.unit.read.m13.val()) << self.m13_at.val())
                | (bit_cast::<BODY_BITS, 4>(self.unit.read.m15.val()) << self.m15_at.val())
                | (bit_cast::<BODY_BITS, RECORD_BITS>(self.unit.read.records.val()) << self.records_at.val())
                | bit_cast::<BODY_BITS, CYCLE_BITS>(self.cycles.value.val());
            if self.unit.read.wrap_lost.val() {
                self.body.next = self.body.val() | self.lost_bit.val();
            }
        }
        if self.end_due.val() & !self.unit.read.offer.val() & !self.links.up.valid.val() {
            self.ended.d.next = true;
        }
        self.place.record.next = (bit_cast::<SLOT_BITS, SOUTH_BITS>(self.south.val()) << self.south_at.val())
            | bit_cast::<SLOT_BITS, BODY_BITS>(self.body.val());
    }
}
