//! A solver stage: one unit, its result record, and its place in the array's two chains.
//!
//! Downstream chain (distribution): beats addressed to a unit by id load the ring's blocking
//! into it and then start it. Upstream chain (collection): a finished unit drops its result
//! into the first empty slot that passes it. Both chains are one register per stage, so no
//! path crosses more than one stage, and a stage's logic does not depend on how many there
//! are. The echoed word is not kept here: the array keeps one copy per unit id, which saves
//! a 40-bit register and its share of the collection chain in every stage.

use crate::solver::arbiter::ArbiterKind;
use crate::solver::tap::Tap;
use crate::solver::unit::Unit;
use rust_hdl::prelude::*;

pub use crate::solver::load::ID_BITS;

/// Widths of the result record's counters: the wire's (`queens_core::result`).
pub const COUNT_BITS: usize = queens_core::result::COUNT_BITS as usize;
pub const CYCLE_BITS: usize = queens_core::result::CYCLE_BITS as usize;
/// The wide counters run in two halves (see `count_lo`).
const COUNT_HALF: usize = COUNT_BITS / 2;
const CYCLE_HALF: usize = CYCLE_BITS / 2;
const _: () = assert!(COUNT_BITS % 2 == 0 && CYCLE_BITS % 2 == 0);

#[derive(LogicBlock)]
pub struct Stage<const M: usize, const M1: usize, const D: usize> {
    pub clock: Signal<In, Clock>,
    pub my_id: Signal<In, Bits<ID_BITS>>,

    pub dn_valid: Signal<In, Bit>,
    pub dn_id: Signal<In, Bits<ID_BITS>>,
    /// One of `BEAT_*`, and its data (see [`beats`](crate::solver::load::beats)).
    pub dn_kind: Signal<In, Bits<2>>,
    pub dn_data: Signal<In, Bits<M>>,
    pub dn_valid_o: Signal<Out, Bit>,
    pub dn_id_o: Signal<Out, Bits<ID_BITS>>,
    pub dn_kind_o: Signal<Out, Bits<2>>,
    pub dn_data_o: Signal<Out, Bits<M>>,

    pub up_valid: Signal<In, Bit>,
    pub up_id: Signal<In, Bits<ID_BITS>>,
    pub up_m13: Signal<In, Bits<4>>,
    pub up_m15: Signal<In, Bits<4>>,
    pub up_count: Signal<In, Bits<COUNT_BITS>>,
    pub up_cycles: Signal<In, Bits<CYCLE_BITS>>,
    pub up_valid_o: Signal<Out, Bit>,
    pub up_id_o: Signal<Out, Bits<ID_BITS>>,
    pub up_m13_o: Signal<Out, Bits<4>>,
    pub up_m15_o: Signal<Out, Bits<4>>,
    pub up_count_o: Signal<Out, Bits<COUNT_BITS>>,
    pub up_cycles_o: Signal<Out, Bits<CYCLE_BITS>>,

    tap: Tap<M>,
    unit: Unit<M, M1, D>,
    /// The result slot passing up the chain through this stage.
    result_valid: DFF<Bit>,
    result_id: DFF<Bits<ID_BITS>>,
    result_m13: DFF<Bits<4>>,
    result_m15: DFF<Bits<4>>,
    result_count: DFF<Bits<COUNT_BITS>>,
    result_cycles: DFF<Bits<CYCLE_BITS>>,
    /// The result: solutions mod 2^44, mod 13, mod 15, and search cycles. The wide counters
    /// are split in halves with a registered carry between them, so that no carry chain is
    /// longer than the unit's own (the high half catches up one cycle later, before the result
    /// can leave).
    count_lo: DFF<Bits<COUNT_HALF>>,
    count_hi: DFF<Bits<COUNT_HALF>>,
    count_c: DFF<Bit>,
    m13: DFF<Bits<4>>,
    m15: DFF<Bits<4>>,
    cycles_lo: DFF<Bits<CYCLE_HALF>>,
    cycles_hi: DFF<Bits<CYCLE_HALF>>,
    cycles_c: DFF<Bit>,
    /// A result is waiting for an empty upstream slot.
    pending: DFF<Bit>,
    /// Where the high halves go (a constant: a const name would leak into the Verilog).
    count_half: Constant<Bits<8>>,
    cycles_half: Constant<Bits<8>>,
}

impl<const M: usize, const M1: usize, const D: usize> Stage<M, M1, D> {
    pub fn new(kind: ArbiterKind) -> Self {
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
            up_m13: Default::default(),
            up_m15: Default::default(),
            up_count: Default::default(),
            up_cycles: Default::default(),
            up_valid_o: Default::default(),
            up_id_o: Default::default(),
            up_m13_o: Default::default(),
            up_m15_o: Default::default(),
            up_count_o: Default::default(),
            up_cycles_o: Default::default(),
            tap: Default::default(),
            unit: Unit::new(kind),
            result_valid: Default::default(),
            result_id: Default::default(),
            result_m13: Default::default(),
            result_m15: Default::default(),
            result_count: Default::default(),
            result_cycles: Default::default(),
            count_lo: Default::default(),
            count_hi: Default::default(),
            count_c: Default::default(),
            m13: Default::default(),
            m15: Default::default(),
            cycles_lo: Default::default(),
            cycles_hi: Default::default(),
            cycles_c: Default::default(),
            pending: Default::default(),
            count_half: Constant::new((COUNT_HALF as u64).to_bits()),
            cycles_half: Constant::new((CYCLE_HALF as u64).to_bits()),
        }
    }
}

impl<const M: usize, const M1: usize, const D: usize> Logic for Stage<M, M1, D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            result_valid,
            result_id,
            result_m13,
            result_m15,
            result_count,
            result_cycles,
            count_lo,
            count_hi,
            count_c,
            m13,
            m15,
            cycles_lo,
            cycles_hi,
            cycles_c,
            pending
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

        // The result record.
        self.count_c.d.next = false;
        self.cycles_c.d.next = false;
        if self.count_c.q.val() {
            self.count_hi.d.next = self.count_hi.q.val() + 1;
        }
        if self.cycles_c.q.val() {
            self.cycles_hi.d.next = self.cycles_hi.q.val() + 1;
        }
        if self.unit.busy.val() {
            self.cycles_lo.d.next = self.cycles_lo.q.val() + 1;
            self.cycles_c.d.next = self.cycles_lo.q.val().all();
        }
        if self.unit.sol.val() {
            self.count_lo.d.next = self.count_lo.q.val() + 1;
            self.count_c.d.next = self.count_lo.q.val().all();
            if self.m13.q.val() == 12 {
                self.m13.d.next = 0.into();
            } else {
                self.m13.d.next = self.m13.q.val() + 1;
            }
            if self.m15.q.val() == 14 {
                self.m15.d.next = 0.into();
            } else {
                self.m15.d.next = self.m15.q.val() + 1;
            }
        }
        if self.unit.start.val() {
            self.count_lo.d.next = 0.into();
            self.count_hi.d.next = 0.into();
            self.m13.d.next = 0.into();
            self.m15.d.next = 0.into();
            self.cycles_lo.d.next = 0.into();
            self.cycles_hi.d.next = 0.into();
        }
        // Set by the unit's end, cleared where the result leaves (`up_valid` low). No LUT is
        // shared with the record's choice below: one that cleared the flag and drove the
        // record's hundred multiplexers at once was placed among them, and stretched the
        // flag's path across the device (the full ULX3S's longest path).
        self.pending.d.next =
            (self.unit.done.val() | self.pending.q.val()) & (self.up_valid.val() | !self.pending.q.val());

        // Upstream: pass a result that arrives, or drop ours into an empty slot. The slot's
        // own valid bit picks the record, so that one LUT follows the register of the stage
        // before (an empty slot carries our record whether or not it is pending).
        self.result_valid.d.next = self.up_valid.val() | self.pending.q.val();
        if self.up_valid.val() {
            self.result_id.d.next = self.up_id.val();
            self.result_m13.d.next = self.up_m13.val();
            self.result_m15.d.next = self.up_m15.val();
            self.result_count.d.next = self.up_count.val();
            self.result_cycles.d.next = self.up_cycles.val();
        } else {
            self.result_id.d.next = self.my_id.val();
            self.result_m13.d.next = self.m13.q.val();
            self.result_m15.d.next = self.m15.q.val();
            self.result_count.d.next = (bit_cast::<COUNT_BITS, COUNT_HALF>(self.count_hi.q.val())
                << self.count_half.val())
                | bit_cast::<COUNT_BITS, COUNT_HALF>(self.count_lo.q.val());
            self.result_cycles.d.next = (bit_cast::<CYCLE_BITS, CYCLE_HALF>(self.cycles_hi.q.val())
                << self.cycles_half.val())
                | bit_cast::<CYCLE_BITS, CYCLE_HALF>(self.cycles_lo.q.val());
        }

        self.up_valid_o.next = self.result_valid.q.val();
        self.up_id_o.next = self.result_id.q.val();
        self.up_m13_o.next = self.result_m13.q.val();
        self.up_m15_o.next = self.result_m15.q.val();
        self.up_count_o.next = self.result_count.q.val();
        self.up_cycles_o.next = self.result_cycles.q.val();
    }
}
