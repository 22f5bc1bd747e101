//! K solver stages in series: the array without its distributor and collector (for
//! simulation; the emitted array instantiates the stage module in a generate loop), of
//! today's stages ([`Chain`]) or grouped ones ([`GroupedChain`]).

use crate::solver::arbiter::ArbiterKind;
use crate::solver::grouped_stage::{GroupedStage, BODY_BITS, HOLD, SOUTH_BITS};
use crate::solver::stage::{Stage, COUNT_BITS, CYCLE_BITS, ID_BITS};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Chain<const M: usize, const M1: usize, const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub dn_valid: Signal<In, Bit>,
    pub dn_id: Signal<In, Bits<ID_BITS>>,
    pub dn_kind: Signal<In, Bits<2>>,
    pub dn_data: Signal<In, Bits<M>>,
    pub up_valid: Signal<Out, Bit>,
    pub up_id: Signal<Out, Bits<ID_BITS>>,
    pub up_m13: Signal<Out, Bits<4>>,
    pub up_m15: Signal<Out, Bits<4>>,
    pub up_count: Signal<Out, Bits<COUNT_BITS>>,
    pub up_cycles: Signal<Out, Bits<CYCLE_BITS>>,
    stages: [Stage<M, M1, D>; K],
    ids: [Constant<Bits<ID_BITS>>; K],
}

impl<const M: usize, const M1: usize, const D: usize, const K: usize> Chain<M, M1, D, K> {
    pub fn new(kind: ArbiterKind) -> Self {
        Self {
            clock: Default::default(),
            dn_valid: Default::default(),
            dn_id: Default::default(),
            dn_kind: Default::default(),
            dn_data: Default::default(),
            up_valid: Default::default(),
            up_id: Default::default(),
            up_m13: Default::default(),
            up_m15: Default::default(),
            up_count: Default::default(),
            up_cycles: Default::default(),
            stages: std::array::from_fn(|_| Stage::new(kind)),
            ids: std::array::from_fn(|i| Constant::new((i as u64).to_bits())),
        }
    }
}

impl<const M: usize, const M1: usize, const D: usize, const K: usize> Logic for Chain<M, M1, D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        // Beats and results both travel from stage 0 to stage K-1: stage 0 sees empty result
        // slots, the chain's outputs are the last stage's.
        for i in 0..K {
            self.stages[i].clock.next = self.clock.val();
            self.stages[i].my_id.next = self.ids[i].val();
        }
        self.stages[0].dn_valid.next = self.dn_valid.val();
        self.stages[0].dn_id.next = self.dn_id.val();
        self.stages[0].dn_kind.next = self.dn_kind.val();
        self.stages[0].dn_data.next = self.dn_data.val();
        self.stages[0].up_valid.next = false;
        self.stages[0].up_id.next = 0.into();
        self.stages[0].up_m13.next = 0.into();
        self.stages[0].up_m15.next = 0.into();
        self.stages[0].up_count.next = 0.into();
        self.stages[0].up_cycles.next = 0.into();
        for i in 1..K {
            self.stages[i].dn_valid.next = self.stages[i - 1].dn_valid_o.val();
            self.stages[i].dn_id.next = self.stages[i - 1].dn_id_o.val();
            self.stages[i].dn_kind.next = self.stages[i - 1].dn_kind_o.val();
            self.stages[i].dn_data.next = self.stages[i - 1].dn_data_o.val();
            self.stages[i].up_valid.next = self.stages[i - 1].up_valid_o.val();
            self.stages[i].up_id.next = self.stages[i - 1].up_id_o.val();
            self.stages[i].up_m13.next = self.stages[i - 1].up_m13_o.val();
            self.stages[i].up_m15.next = self.stages[i - 1].up_m15_o.val();
            self.stages[i].up_count.next = self.stages[i - 1].up_count_o.val();
            self.stages[i].up_cycles.next = self.stages[i - 1].up_cycles_o.val();
        }
        // The last assignment stands: the outputs of stage K-1 (K itself must not appear in
        // an expression, or it leaks into the Verilog).
        for i in 0..K {
            self.up_valid.next = self.stages[i].up_valid_o.val();
            self.up_id.next = self.stages[i].up_id_o.val();
            self.up_m13.next = self.stages[i].up_m13_o.val();
            self.up_m15.next = self.stages[i].up_m15_o.val();
            self.up_count.next = self.stages[i].up_count_o.val();
            self.up_cycles.next = self.stages[i].up_cycles_o.val();
        }
    }
}

#[derive(LogicBlock)]
pub struct GroupedChain<const M: usize, const M1: usize, const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub dn_valid: Signal<In, Bit>,
    pub dn_id: Signal<In, Bits<ID_BITS>>,
    pub dn_kind: Signal<In, Bits<2>>,
    pub dn_data: Signal<In, Bits<M>>,
    /// A hold slot into the first stage (see `grouped_stage::HOLD`).
    pub hold: Signal<In, Bit>,
    pub up_valid: Signal<Out, Bit>,
    pub up_id: Signal<Out, Bits<ID_BITS>>,
    pub up_south: Signal<Out, Bits<SOUTH_BITS>>,
    pub up_body: Signal<Out, Bits<BODY_BITS>>,
    stages: [GroupedStage<M, M1, D>; K],
    ids: [Constant<Bits<ID_BITS>>; K],
    hold_code: Constant<Bits<SOUTH_BITS>>,
}

impl<const M: usize, const M1: usize, const D: usize, const K: usize> GroupedChain<M, M1, D, K> {
    pub fn new(kind: ArbiterKind) -> Self {
        Self {
            clock: Default::default(),
            dn_valid: Default::default(),
            dn_id: Default::default(),
            dn_kind: Default::default(),
            dn_data: Default::default(),
            hold: Default::default(),
            up_valid: Default::default(),
            up_id: Default::default(),
            up_south: Default::default(),
            up_body: Default::default(),
            stages: std::array::from_fn(|_| GroupedStage::new(kind)),
            ids: std::array::from_fn(|i| Constant::new((i as u64).to_bits())),
            hold_code: Constant::new(HOLD.to_bits()),
        }
    }
}

impl<const M: usize, const M1: usize, const D: usize, const K: usize> Logic for GroupedChain<M, M1, D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        // As `Chain`'s.
        for i in 0..K {
            self.stages[i].clock.next = self.clock.val();
            self.stages[i].my_id.next = self.ids[i].val();
        }
        self.stages[0].dn_valid.next = self.dn_valid.val();
        self.stages[0].dn_id.next = self.dn_id.val();
        self.stages[0].dn_kind.next = self.dn_kind.val();
        self.stages[0].dn_data.next = self.dn_data.val();
        self.stages[0].up_valid.next = self.hold.val();
        self.stages[0].up_id.next = 0.into();
        self.stages[0].up_south.next = self.hold_code.val();
        self.stages[0].up_body.next = 0.into();
        for i in 1..K {
            self.stages[i].dn_valid.next = self.stages[i - 1].dn_valid_o.val();
            self.stages[i].dn_id.next = self.stages[i - 1].dn_id_o.val();
            self.stages[i].dn_kind.next = self.stages[i - 1].dn_kind_o.val();
            self.stages[i].dn_data.next = self.stages[i - 1].dn_data_o.val();
            self.stages[i].up_valid.next = self.stages[i - 1].up_valid_o.val();
            self.stages[i].up_id.next = self.stages[i - 1].up_id_o.val();
            self.stages[i].up_south.next = self.stages[i - 1].up_south_o.val();
            self.stages[i].up_body.next = self.stages[i - 1].up_body_o.val();
        }
        for i in 0..K {
            self.up_valid.next = self.stages[i].up_valid_o.val();
            self.up_id.next = self.stages[i].up_id_o.val();
            self.up_south.next = self.stages[i].up_south_o.val();
            self.up_body.next = self.stages[i].up_body_o.val();
        }
    }
}
