//! A block that is part of its parent's circuit or not, as the parent is built: how a circuit
//! with a variant ([`crate::solver::tally::TallyPipe`]) leaves the other variant's registers
//! out of its Verilog entirely, rather than keeping them there unused.
//!
//! rust-hdl's kernels have no compile-time `if`: an `if` becomes Verilog. A `for` loop over
//! a range is unrolled as the Verilog is written, with its bounds as they stand then, so the
//! kernel holds a variant's logic in a loop of one pass (none without the variant), and the
//! variant's registers as `Optional` blocks, which are simulated, connected and written out
//! only where present. A present block is the block itself: its Verilog and its names are
//! those of the block in its place.

use rust_hdl::prelude::*;
use std::ops::{Deref, DerefMut};

#[derive(Default)]
pub struct Optional<B> {
    block: B,
    present: bool,
}

impl<B> Optional<B> {
    /// Makes the block part of the circuit or not (before `connect_all`).
    pub fn set_present(&mut self, present: bool) {
        self.present = present;
    }

    pub fn present(&self) -> bool {
        self.present
    }
}

impl<B> Deref for Optional<B> {
    type Target = B;
    fn deref(&self) -> &B {
        &self.block
    }
}

impl<B> DerefMut for Optional<B> {
    fn deref_mut(&mut self) -> &mut B {
        &mut self.block
    }
}

impl<B: Block> Logic for Optional<B> {
    fn update(&mut self) {}
}

impl<B: Block> Block for Optional<B> {
    fn connect_all(&mut self) {
        self.block.connect_all();
    }

    fn update_all(&mut self) {
        if self.present {
            self.block.update_all();
        }
    }

    fn has_changed(&self) -> bool {
        self.present && self.block.has_changed()
    }

    fn accept(&self, name: &str, probe: &mut dyn Probe) {
        if self.present {
            self.block.accept(name, probe);
        }
    }
}
