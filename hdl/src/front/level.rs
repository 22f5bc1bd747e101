//! How many are in flight (units holding work, records queued): one more on `up`, one fewer
//! on `down`, the same where both or neither come.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Level<const B: usize> {
    pub clock: Signal<In, Clock>,
    pub up: Signal<In, Bit>,
    pub down: Signal<In, Bit>,
    pub level: Signal<Out, Bits<B>>,
    count: DFF<Bits<B>>,
}

impl<const B: usize> Logic for Level<B> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count);
        if self.up.val() & !self.down.val() {
            self.count.d.next = self.count.q.val() + 1;
        }
        if !self.up.val() & self.down.val() {
            self.count.d.next = self.count.q.val() - 1;
        }
        self.level.next = self.count.q.val();
    }
}
