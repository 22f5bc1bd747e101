//! The upstream chain's slot as one bundle of ports: valid, the id of the unit whose record it
//! carries, and the record, S bits that only the kind's stage and front end read (a plain
//! stage's result: [`stage::SLOT_BITS`](crate::solver::stage::SLOT_BITS); a grouped stage's
//! record: [`grouped_stage::SLOT_BITS`](crate::solver::grouped_stage::SLOT_BITS)). The chain
//! only moves it. [`Slot`] is a block's input, [`SlotOut`] its output; in Verilog the fields
//! are ports `up$valid`, `up$id`, `up$data` of the bundle's name.

use crate::solver::load::ID_BITS;
use rust_hdl::prelude::*;

#[derive(LogicInterface, Default)]
#[join = "SlotOut"]
pub struct Slot<const S: usize> {
    pub valid: Signal<In, Bit>,
    pub id: Signal<In, Bits<ID_BITS>>,
    pub data: Signal<In, Bits<S>>,
}

#[derive(LogicInterface, Default)]
#[join = "Slot"]
pub struct SlotOut<const S: usize> {
    pub valid: Signal<Out, Bit>,
    pub id: Signal<Out, Bits<ID_BITS>>,
    pub data: Signal<Out, Bits<S>>,
}
