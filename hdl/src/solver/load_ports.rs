//! A unit's load ports and start as one bundle: what a stage's [`crate::solver::tap::Tap`]
//! drives ([`LoadPortsOut`]) and a unit takes ([`LoadPorts`]), used while the unit is idle.
//! `data` is the ring's rows (`rows`) or its filled columns (`cols`); `shift` rotates one
//! bit of each diagonal register in, falling from `data` bit 0 and rising from bit 1; then
//! `start` begins a search. The order of the loads: [`crate::solver::load::load_sequence`].

use rust_hdl::prelude::*;

#[derive(LogicInterface, Default)]
#[join = "LoadPortsOut"]
pub struct LoadPorts<const M: usize> {
    pub start: Signal<In, Bit>,
    pub rows: Signal<In, Bit>,
    pub cols: Signal<In, Bit>,
    pub shift: Signal<In, Bit>,
    pub data: Signal<In, Bits<M>>,
}

#[derive(LogicInterface, Default)]
#[join = "LoadPorts"]
pub struct LoadPortsOut<const M: usize> {
    pub start: Signal<Out, Bit>,
    pub rows: Signal<Out, Bit>,
    pub cols: Signal<Out, Bit>,
    pub shift: Signal<Out, Bit>,
    pub data: Signal<Out, Bits<M>>,
}
