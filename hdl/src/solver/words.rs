//! The words a RAM model holds in simulation: `DEPTH` of them, all zero at the start, as the
//! Verilog's initial block (or UltraRAM's power-up) leaves them.

use rust_hdl::prelude::*;
use std::ops::{Deref, DerefMut};

pub struct Words<const W: usize, const DEPTH: usize>(Vec<Bits<W>>);

impl<const W: usize, const DEPTH: usize> Default for Words<W, DEPTH> {
    fn default() -> Self {
        Self(vec![Bits::<W>::default(); DEPTH])
    }
}

impl<const W: usize, const DEPTH: usize> Deref for Words<W, DEPTH> {
    type Target = [Bits<W>];
    fn deref(&self) -> &[Bits<W>] {
        &self.0
    }
}

impl<const W: usize, const DEPTH: usize> DerefMut for Words<W, DEPTH> {
    fn deref_mut(&mut self) -> &mut [Bits<W>] {
        &mut self.0
    }
}
