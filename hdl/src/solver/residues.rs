//! A count's residues mod 13 and mod 15, kept beside it: a plain stage's result carries them
//! (the host recovers a count that wrapped its 44 bits), a grouped tally counts its walk's
//! solutions by them (the host checks the south records' sum). One event a cycle at most.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Residues {
    pub clock: Signal<In, Clock>,
    /// Count one.
    pub inc: Signal<In, Bit>,
    /// Back to zero (over `inc`).
    pub clear: Signal<In, Bit>,
    pub m13: Signal<Out, Bits<4>>,
    pub m15: Signal<Out, Bits<4>>,
    r13: DFF<Bits<4>>,
    r15: DFF<Bits<4>>,
}

impl Logic for Residues {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r13, r15);
        if self.inc.val() {
            if self.r13.q.val() == 12 {
                self.r13.d.next = 0.into();
            } else {
                self.r13.d.next = self.r13.q.val() + 1;
            }
            if self.r15.q.val() == 14 {
                self.r15.d.next = 0.into();
            } else {
                self.r15.d.next = self.r15.q.val() + 1;
            }
        }
        if self.clear.val() {
            self.r13.d.next = 0.into();
            self.r15.d.next = 0.into();
        }
        self.m13.next = self.r13.q.val();
        self.m15.next = self.r15.q.val();
    }
}
