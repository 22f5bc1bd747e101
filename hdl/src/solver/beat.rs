//! The downstream chain's beat as one bundle of ports: valid, the unit id it is for, its kind
//! ([`BeatKind`]) and its data. [`Beat`] is a block's input, [`BeatOut`] its output;
//! in Verilog the fields are ports `dn$valid`, `dn$id`, ... of the bundle's name.

use crate::solver::load::{BeatKind, ID_BITS};
use rust_hdl::prelude::*;

#[derive(LogicInterface, Default)]
#[join = "BeatOut"]
pub struct Beat<const M: usize> {
    pub valid: Signal<In, Bit>,
    pub id: Signal<In, Bits<ID_BITS>>,
    pub kind: Signal<In, BeatKind>,
    pub data: Signal<In, Bits<M>>,
}

#[derive(LogicInterface, Default)]
#[join = "Beat"]
pub struct BeatOut<const M: usize> {
    pub valid: Signal<Out, Bit>,
    pub id: Signal<Out, Bits<ID_BITS>>,
    pub kind: Signal<Out, BeatKind>,
    pub data: Signal<Out, Bits<M>>,
}
