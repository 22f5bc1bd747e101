//! One copy of the unit's advance decision, `go & (filled | !tout)`, in a module of its own
//! that synthesis keeps whole ([`COPIES`]): each group of registers the advance steers gets
//! its own copy, placed beside it. One shared copy drove a hundred loads, and that net was
//! the longest routing hop of the unit's critical path.

use rust_hdl::prelude::*;

/// The yosys name pattern of these modules (`...$unit$adv_<group>`), for `keep_hierarchy`;
/// `?` for the `$`, which a shell would expand.
pub const COPIES: &str = "*unit?adv_*";

#[derive(LogicBlock, Default)]
pub struct Advance {
    /// The unit may advance (known at the start of the cycle).
    pub go: Signal<In, Bit>,
    /// Column c is one the ring fills: the unit advances whatever A finds.
    pub filled: Signal<In, Bit>,
    /// A's carry out: A found no row.
    pub tout: Signal<In, Bit>,
    pub y: Signal<Out, Bit>,
}

impl Logic for Advance {
    #[hdl_gen]
    fn update(&mut self) {
        self.y.next = self.go.val() & (self.filled.val() | !self.tout.val());
    }
}
