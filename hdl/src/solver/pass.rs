//! A stage's place on the upstream chain: the slot passing through, registered. A record
//! that arrives passes on; into a slot that arrives empty the stage drops its own record,
//! if it offers one. Part of a stage's [`crate::solver::place::Place`], as
//! [`crate::solver::tap::Tap`] is downstream.
//!
//! The slot's own valid bit picks the record, so that one LUT follows the register of the
//! stage before (an empty slot carries the offered record whether or not it is offered).

use crate::solver::load::ID_BITS;
use crate::solver::slot::{Slot, SlotOut};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Pass<const S: usize> {
    pub clock: Signal<In, Clock>,
    pub my_id: Signal<In, Bits<ID_BITS>>,
    /// The slot into the stage, and out of it a cycle later.
    pub up: Slot<S>,
    pub up_o: SlotOut<S>,
    /// The stage's record, and whether it is offered.
    pub offer: Signal<In, Bit>,
    pub record: Signal<In, Bits<S>>,
    valid: DFF<Bit>,
    id: DFF<Bits<ID_BITS>>,
    data: DFF<Bits<S>>,
}

impl<const S: usize> Logic for Pass<S> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid, id, data);
        self.valid.d.next = self.up.valid.val() | self.offer.val();
        if self.up.valid.val() {
            self.id.d.next = self.up.id.val();
            self.data.d.next = self.up.data.val();
        } else {
            self.id.d.next = self.my_id.val();
            self.data.d.next = self.record.val();
        }
        self.up_o.valid.next = self.valid.q.val();
        self.up_o.id.next = self.id.q.val();
        self.up_o.data.next = self.data.q.val();
    }
}
