//! A number as rust-hdl takes a constant of B bits: the front end's sizes, offsets and
//! counts are constants of its blocks, so that a const's name does not leak into the Verilog.

use rust_hdl::prelude::*;

pub fn c<const B: usize>(v: usize) -> Constant<Bits<B>> {
    Constant::new((v as u64).to_bits())
}
