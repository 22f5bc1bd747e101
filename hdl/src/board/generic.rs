//! `generic`: no board, the core behind a UART (`hdl emit --board generic`), and the board a
//! performance estimate assumes when it is given none (`sim estimate`). Their defaults live
//! here, once; the emitted design and the estimated board are different things, so each has
//! its own unit count and clock.

use crate::ArbiterKind;

/// The name that selects it where a board is asked for.
pub const NAME: &str = "generic";
/// Board size.
pub const N: u32 = 27;
/// No vendor carry cells: the adder form maps anywhere.
pub const ARBITER: ArbiterKind = ArbiterKind::Adder;
/// The emitted design: a small array, for simulators and trials.
pub const EMIT_UNITS: usize = 8;
pub const EMIT_CLOCK_HZ: u64 = 100_000_000;
/// The estimated board: the array Queens@TUD fitted on a VC707 (360 units), at 250 MHz.
pub const ESTIMATE_UNITS: usize = 360;
pub const ESTIMATE_CLOCK_HZ: f64 = 250e6;
