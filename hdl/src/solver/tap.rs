//! A stage's place on the downstream chain: the beat passing through, registered, and the
//! load and start strobes of the beats addressed to this stage's unit. Part of a stage's
//! [`crate::solver::place::Place`], as [`crate::solver::pass::Pass`] is upstream.

use crate::solver::beat::{Beat, BeatOut};
use crate::solver::load::{BeatKind, ID_BITS};
use crate::solver::load_ports::LoadPortsOut;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Tap<const M: usize> {
    pub clock: Signal<In, Clock>,
    pub my_id: Signal<In, Bits<ID_BITS>>,
    /// The beat in (see `load::beats`), and out to the next stage a cycle later.
    pub dn: Beat<M>,
    pub dn_o: BeatOut<M>,
    /// The unit's load ports and start.
    pub load: LoadPortsOut<M>,
    /// The beat passing down the chain through this stage.
    beat_valid: DFF<Bit>,
    beat_id: DFF<Bits<ID_BITS>>,
    beat_kind: DFF<BeatKind>,
    beat_data: DFF<Bits<M>>,
    /// The beat is addressed here (registered with it, so that no id compare feeds the unit).
    mine: DFF<Bit>,
    /// The start beat, registered so that the unit's start is a flip-flop, not an id compare.
    start_r: DFF<Bit>,
}

impl<const M: usize> Default for Tap<M> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            my_id: Default::default(),
            dn: Default::default(),
            dn_o: Default::default(),
            load: Default::default(),
            beat_valid: Default::default(),
            beat_id: Default::default(),
            beat_kind: Default::default(),
            beat_data: Default::default(),
            mine: Default::default(),
            start_r: Default::default(),
        }
    }
}

impl<const M: usize> Logic for Tap<M> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, beat_valid, beat_id, beat_kind, beat_data, mine, start_r);
        // Every beat passes on; the ones addressed here also load this unit.
        self.beat_valid.d.next = self.dn.valid.val();
        self.beat_id.d.next = self.dn.id.val();
        self.beat_kind.d.next = self.dn.kind.val();
        self.beat_data.d.next = self.dn.data.val();
        self.mine.d.next = self.dn.valid.val() & (self.dn.id.val() == self.my_id.val());
        self.load.rows.next = self.mine.q.val() & (self.beat_kind.q.val() == BeatKind::Rows);
        self.load.cols.next = self.mine.q.val() & (self.beat_kind.q.val() == BeatKind::Cols);
        self.load.shift.next = self.mine.q.val() & (self.beat_kind.q.val() == BeatKind::Diag);
        self.load.data.next = self.beat_data.q.val();
        self.start_r.d.next = self.mine.q.val() & (self.beat_kind.q.val() == BeatKind::Start);
        self.load.start.next = self.start_r.q.val();
        self.dn_o.valid.next = self.beat_valid.q.val();
        self.dn_o.id.next = self.beat_id.q.val();
        self.dn_o.kind.next = self.beat_kind.q.val();
        self.dn_o.data.next = self.beat_data.q.val();
    }
}
