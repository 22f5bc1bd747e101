//! A queue's pointer and the one ahead of it, both in registers: a step copies the one ahead
//! in, so no adder stands between the pointer's flip-flops and the RAM's address.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Pointer<const B: usize> {
    pub clock: Signal<In, Clock>,
    /// Move on by one.
    pub step: Signal<In, Bit>,
    pub at: Signal<Out, Bits<B>>,
    pub ahead: Signal<Out, Bits<B>>,
    p: DFF<Bits<B>>,
    p1: DFFWithInit<Bits<B>>,
}

impl<const B: usize> Default for Pointer<B> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            step: Default::default(),
            at: Default::default(),
            ahead: Default::default(),
            p: Default::default(),
            p1: DFFWithInit::new(1_u64.to_bits()),
        }
    }
}

impl<const B: usize> Logic for Pointer<B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, p, p1);
        if self.step.val() {
            self.p.d.next = self.p1.q.val();
            self.p1.d.next = self.p1.q.val() + 1;
        }
        self.at.next = self.p.q.val();
        self.ahead.next = self.p1.q.val();
    }
}
