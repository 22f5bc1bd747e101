//! The downstream chain's ports as bundles: a beat ([`Beat`] in, [`BeatOut`] out): valid, the
//! unit id it is for, its kind (one of `load::BEAT_*`) and its data; and what a stage's tap
//! makes of the beats for its unit ([`LoadsOut`], into the unit's [`Loads`]). In Verilog the
//! fields are ports `dn$valid`, `load$rows`, ... of the bundle's name.

use crate::solver::load::ID_BITS;
use rust_hdl::prelude::*;

#[derive(LogicInterface, Default)]
#[join = "BeatOut"]
pub struct Beat<const M: usize> {
    pub valid: Signal<In, Bit>,
    pub id: Signal<In, Bits<ID_BITS>>,
    pub kind: Signal<In, Bits<2>>,
    pub data: Signal<In, Bits<M>>,
}

#[derive(LogicInterface, Default)]
#[join = "Beat"]
pub struct BeatOut<const M: usize> {
    pub valid: Signal<Out, Bit>,
    pub id: Signal<Out, Bits<ID_BITS>>,
    pub kind: Signal<Out, Bits<2>>,
    pub data: Signal<Out, Bits<M>>,
}

/// A unit's loads and start: while the unit is idle, `data` is the ring's rows (`rows`) or
/// its filled columns (`cols`); `shift` rotates one bit of each diagonal register in, falling
/// from `data` bit 0 and rising from bit 1 (see `load::load_sequence`). `start` begins a walk.
#[derive(LogicInterface, Default)]
#[join = "LoadsOut"]
pub struct Loads<const M: usize> {
    pub rows: Signal<In, Bit>,
    pub cols: Signal<In, Bit>,
    pub shift: Signal<In, Bit>,
    pub data: Signal<In, Bits<M>>,
    pub start: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "Loads"]
pub struct LoadsOut<const M: usize> {
    pub rows: Signal<Out, Bit>,
    pub cols: Signal<Out, Bit>,
    pub shift: Signal<Out, Bit>,
    pub data: Signal<Out, Bits<M>>,
    pub start: Signal<Out, Bit>,
}
