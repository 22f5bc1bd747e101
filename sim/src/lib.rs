//! Cycle-accurate simulation of the solver circuits, checked against the software counter.
//!
//! [`model`] is the fast cycle model of one unit (machine words, no event queue); [`check`](mod@check)
//! runs every canonical pre-placement of a board through an engine and compares each count
//! with the software counter of `queens-core`; [`cycles`] is the unit-cycle benchmark.

pub mod board;
pub mod check;
pub mod cycles;
pub mod estimate;
pub mod group_check;
pub mod grouped;
pub mod model;
pub mod netlist;
pub mod probe;
pub mod pty;
pub mod ratio;
pub mod rtl;
pub mod sample;
pub mod tud;
pub mod tud_board;
pub mod verilator;
pub mod wire;

pub use check::{check, select, CheckReport, Engine, Mismatch, ModelEngine, RtlEngine, Selection};
pub use model::{run_subproblem, run_unit, Unit, UnitRun};
