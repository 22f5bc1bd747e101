//! The front end's end of the chain, as one bundle of ports: the beats it sends down
//! ([`BeatOut`]), the first slot it puts up, empty or a grouped front end's hold
//! ([`SlotOut`]), and the last slot, which it takes ([`Slot`]). In Verilog its fields are
//! ports `chain$dn$valid`, `chain$first$valid`, `chain$up$valid`, ...

use crate::solver::beat::BeatOut;
use crate::solver::slot::{Slot, SlotOut};
use rust_hdl::prelude::*;

/// Positions M (the beats' data), records of S bits.
#[derive(LogicInterface, Default)]
pub struct ChainEnd<const M: usize, const S: usize> {
    pub dn: BeatOut<M>,
    pub first: SlotOut<S>,
    pub up: Slot<S>,
}
