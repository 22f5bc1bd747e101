//! A wide counter in two halves with a registered carry between them, so that no carry chain
//! in a stage is longer than its unit's own: the high half catches up a cycle after the low
//! half wraps, long before a stage reads the count (after the walk's last step). A stage's
//! solution count and its cycle counter are each one.

use rust_hdl::prelude::*;

/// N bits in two halves of H.
#[derive(LogicBlock)]
pub struct SplitCounter<const N: usize, const H: usize> {
    pub clock: Signal<In, Clock>,
    /// Count one.
    pub inc: Signal<In, Bit>,
    /// Back to zero (over `inc`).
    pub clear: Signal<In, Bit>,
    pub value: Signal<Out, Bits<N>>,
    lo: DFF<Bits<H>>,
    hi: DFF<Bits<H>>,
    carry: DFF<Bit>,
    /// Where the high half goes (a constant: a const name would leak into the Verilog).
    half: Constant<Bits<8>>,
}

impl<const N: usize, const H: usize> Default for SplitCounter<N, H> {
    fn default() -> Self {
        assert_eq!(N, 2 * H, "two halves");
        Self {
            clock: Default::default(),
            inc: Default::default(),
            clear: Default::default(),
            value: Default::default(),
            lo: Default::default(),
            hi: Default::default(),
            carry: Default::default(),
            half: Constant::new((H as u64).to_bits()),
        }
    }
}

impl<const N: usize, const H: usize> Logic for SplitCounter<N, H> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, lo, hi, carry);
        self.carry.d.next = false;
        if self.carry.q.val() {
            self.hi.d.next = self.hi.q.val() + 1;
        }
        if self.inc.val() {
            self.lo.d.next = self.lo.q.val() + 1;
            self.carry.d.next = self.lo.q.val().all();
        }
        if self.clear.val() {
            self.lo.d.next = 0.into();
            self.hi.d.next = 0.into();
        }
        self.value.next =
            (bit_cast::<N, H>(self.hi.q.val()) << self.half.val()) | bit_cast::<N, H>(self.lo.q.val());
    }
}
