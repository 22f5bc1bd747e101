//! A solver stage: one unit, its result record, and its place in the array's two chains
//! ([`Place`]).
//!
//! Downstream chain (distribution): beats addressed to a unit by id load the ring's blocking
//! into it and then start it. Upstream chain (collection): a finished unit drops its result
//! into the first empty slot that passes it. The echoed word is not kept here: the array
//! keeps one copy per unit id, which saves a 40-bit register and its share of the
//! collection chain in every stage.

use crate::solver::arbiter::ArbiterKind;
use crate::solver::counter::SplitCounter;
use crate::solver::load_ports::LoadPortsOut;
use crate::solver::place::{Links, Place};
use crate::solver::residues::Residues;
use crate::solver::unit::Unit;
use rust_hdl::prelude::*;

pub use crate::solver::load::ID_BITS;

/// Widths of the result record's counters: the wire's (`queens_core::result`).
pub const COUNT_BITS: usize = queens_core::result::COUNT_BITS as usize;
pub const CYCLE_BITS: usize = queens_core::result::CYCLE_BITS as usize;
/// The wide counters run in two halves (see [`SplitCounter`]).
const COUNT_HALF: usize = COUNT_BITS / 2;
const CYCLE_HALF: usize = CYCLE_BITS / 2;
const _: () = assert!(COUNT_BITS % 2 == 0 && CYCLE_BITS % 2 == 0);
/// The record a plain stage's slot carries, from the top: count mod 13, count mod 15, count
/// mod 2^44, cycles (the front end and `rtl` read it so).
pub const SLOT_BITS: usize = 4 + 4 + COUNT_BITS + CYCLE_BITS;
pub const SLOT_M13_AT: usize = CYCLE_BITS + COUNT_BITS + 4;
pub const SLOT_M15_AT: usize = CYCLE_BITS + COUNT_BITS;
pub const SLOT_COUNT_AT: usize = CYCLE_BITS;

#[derive(LogicBlock)]
pub struct Stage<const M: usize, const M1: usize, const D: usize> {
    pub clock: Signal<In, Clock>,
    /// The stage's ports on the chains (see [`Place`]).
    pub links: Links<M, SLOT_BITS>,
    place: Place<M, SLOT_BITS>,
    unit: Unit<M, M1, D>,
    /// The result: solutions mod 2^44, mod 13, mod 15, and search cycles.
    count: SplitCounter<COUNT_BITS, COUNT_HALF>,
    residues: Residues,
    cycles: SplitCounter<CYCLE_BITS, CYCLE_HALF>,
    /// A result is waiting for an empty upstream slot.
    pending: DFF<Bit>,
    /// Where the record's fields sit in the slot (constants: a const name would leak into
    /// the Verilog).
    m13_at: Constant<Bits<8>>,
    m15_at: Constant<Bits<8>>,
    count_at: Constant<Bits<8>>,
}

impl<const M: usize, const M1: usize, const D: usize> Stage<M, M1, D> {
    pub fn new(kind: ArbiterKind) -> Self {
        Self {
            clock: Default::default(),
            links: Default::default(),
            place: Default::default(),
            unit: Unit::new(kind),
            count: Default::default(),
            residues: Default::default(),
            cycles: Default::default(),
            pending: Default::default(),
            m13_at: Constant::new((SLOT_M13_AT as u64).to_bits()),
            m15_at: Constant::new((SLOT_M15_AT as u64).to_bits()),
            count_at: Constant::new((SLOT_COUNT_AT as u64).to_bits()),
        }
    }
}

impl<const M: usize, const M1: usize, const D: usize> Logic for Stage<M, M1, D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, pending);
        self.unit.clock.next = self.clock.val();
        self.place.clock.next = self.clock.val();
        Links::<M, SLOT_BITS>::link(&mut self.links, &mut self.place.links);
        LoadPortsOut::<M>::join(&mut self.place.load, &mut self.unit.load);

        // The result record.
        clock!(self, clock, count, cycles, residues);
        self.cycles.inc.next = self.unit.busy.val();
        self.cycles.clear.next = self.place.load.start.val();
        self.count.inc.next = self.unit.sol.val();
        self.count.clear.next = self.place.load.start.val();
        self.residues.inc.next = self.unit.sol.val();
        self.residues.clear.next = self.place.load.start.val();
        // Set by the unit's end, cleared where the result leaves (`up_valid` low). No LUT is
        // shared with the record's choice below: one that cleared the flag and drove the
        // record's hundred multiplexers at once was placed among them, and stretched the
        // flag's path across the device (the full ULX3S's longest path).
        self.pending.d.next = (self.unit.done.val() | self.pending.q.val())
            & (self.links.up.valid.val() | !self.pending.q.val());

        // Upstream: our result into an empty slot.
        self.place.offer.next = self.pending.q.val();
        self.place.record.next = (bit_cast::<SLOT_BITS, 4>(self.residues.m13.val()) << self.m13_at.val())
            | (bit_cast::<SLOT_BITS, 4>(self.residues.m15.val()) << self.m15_at.val())
            | (bit_cast::<SLOT_BITS, COUNT_BITS>(self.count.value.val()) << self.count_at.val())
            | bit_cast::<SLOT_BITS, CYCLE_BITS>(self.cycles.value.val());
    }
}
