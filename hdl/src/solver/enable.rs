//! One copy of a blocking register group's clock enable, picked by the two carry outs from
//! its three values known at the start of the cycle, in a module of its own that synthesis
//! keeps whole ([`COPIES`]), like [`crate::solver::advance::Advance`]: the rows and each diagonal
//! direction get their own copy, placed beside them. One copy for both diagonal registers
//! drove 90 flip-flops' enables, and on a full device that net was the longest routing hop
//! of a critical path (3.3 ns).

use rust_hdl::prelude::*;

/// The yosys name pattern of these modules (`...$unit$en_<group>`), for `keep_hierarchy`.
pub const COPIES: &str = "*unit?en_*";

#[derive(LogicBlock, Default)]
pub struct Enable {
    /// B's carry out: B found no row.
    pub b_tout: Signal<In, Bit>,
    /// A's carry out: A found no row.
    pub a_tout: Signal<In, Bit>,
    /// The enable where B finds no row, where B finds one and A none, where both find one.
    pub bnone: Signal<In, Bit>,
    pub anone: Signal<In, Bit>,
    pub arow: Signal<In, Bit>,
    pub y: Signal<Out, Bit>,
}

impl Logic for Enable {
    #[hdl_gen]
    fn update(&mut self) {
        if self.b_tout.val() {
            self.y.next = self.bnone.val();
        } else if self.a_tout.val() {
            self.y.next = self.anone.val();
        } else {
            self.y.next = self.arow.val();
        }
    }
}
