//! The free list of unit ids: every id 0..units-1 goes in first, one a cycle; an id comes
//! back once its unit's last answer is framed.

use crate::front::constant::c;
use crate::front::queue::Queue;
use crate::solver::load::{ID_BITS, MAX_UNITS, UNITS_BITS};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct FreeList {
    pub clock: Signal<In, Clock>,
    /// Every id has gone in and one is free (registered flags, a cycle late); the head.
    pub ready: Signal<Out, Bit>,
    pub id: Signal<Out, Bits<ID_BITS>>,
    /// Take the head.
    pub take: Signal<In, Bit>,
    /// An id back.
    pub give_back: Signal<In, Bit>,
    pub back_id: Signal<In, Bits<ID_BITS>>,

    free: Queue<Bits<ID_BITS>, ID_BITS, UNITS_BITS>,
    /// Ids entered so far, and all of them are.
    init: DFF<Bits<UNITS_BITS>>,
    init_done: DFF<Bit>,
    units: Constant<Bits<UNITS_BITS>>,
}

impl FreeList {
    /// `units` on the chain (ids 0..units-1).
    pub fn new(units: usize) -> Self {
        assert!((1..=MAX_UNITS).contains(&units), "1 to {MAX_UNITS} units");
        Self {
            clock: Default::default(),
            ready: Default::default(),
            id: Default::default(),
            take: Default::default(),
            give_back: Default::default(),
            back_id: Default::default(),
            free: Queue::holding(crate::front::table_bits(units)),
            init: Default::default(),
            init_done: Default::default(),
            units: c(units),
        }
    }
}

impl Logic for FreeList {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, init, init_done);
        clock!(self, clock, free);
        self.free.write.next = false;
        self.free.data_in.next = self.init.q.val().get_bits::<ID_BITS>(0);
        if self.init.q.val() != self.units.val() {
            self.free.write.next = true;
            self.init.d.next = self.init.q.val() + 1;
        }
        self.init_done.d.next = self.init.q.val() == self.units.val();
        if self.give_back.val() {
            self.free.write.next = true;
            self.free.data_in.next = self.back_id.val();
        }
        self.ready.next = self.init_done.q.val() & !self.free.empty.val();
        self.id.next = self.free.data_out.val();
        self.free.read.next = self.take.val();
    }
}
