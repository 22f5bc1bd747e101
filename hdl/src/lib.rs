//! The solver circuits, written with rust-hdl and emitted as Verilog.
//!
//! [`arbiter`] is the carry chain that decides a column in one cycle (adder, CARRY4 and
//! parallel-prefix forms); [`unit`](mod@unit) is the solver unit built around two of them; [`lutram`]
//! the LUT-RAM that holds its stack; [`rtl`] drives a unit in rust-hdl's
//! simulator.

pub mod advance;
pub mod arbiter;
pub mod axis;
pub mod board;
pub mod chain;
pub mod crc8;
pub mod decoder;
pub mod frame_rx;
pub mod frame_tx;
pub mod front;
pub mod lutram;
pub mod orient;
pub mod pnr;
pub mod queue;
pub mod ram;
pub mod rtl;
pub mod scratch;
pub mod sim_core;
pub mod stage;
pub mod uart_rx;
pub mod uart_tx;
pub mod unit;
pub mod width;

pub use arbiter::ArbiterKind;
pub mod emit;
pub mod enable;
pub mod keep;
pub mod report;
