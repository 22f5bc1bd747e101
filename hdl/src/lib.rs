//! The solver circuits, written with rust-hdl and emitted as Verilog, in three parts and the
//! boards they are built for:
//!
//! - [`solver`]: the solver unit and what it is made of, from the carry chain that decides a
//!   column in one cycle ([`solver::arbiter`]) to the stage that holds a unit and its result
//!   and the stages in series;
//! - [`front`]: the array's shared front end (word queue, unit ids, dispatch, result queue)
//!   and its queues and RAMs;
//! - [`link`]: the UART, the frame parser and framer, the CRC-8 step, and the AXI4-Stream
//!   adapters for PCIe;
//! - [`board`]: boards as data, their tops and one module per toolchain; [`pnr`] the routed
//!   figures of the open ECP5 flow; [`emit`] the Verilog; [`report`] the yosys cost report;
//!   [`rtl`] and [`sim_core`] rust-hdl's simulator.

pub mod board;
pub mod emit;
pub mod front;
pub mod kind;
pub mod link;
pub mod pnr;
pub mod report;
pub mod rtl;
pub mod scratch;
pub mod sim_core;
pub mod solver;
pub mod width;

pub use solver::arbiter::ArbiterKind;
