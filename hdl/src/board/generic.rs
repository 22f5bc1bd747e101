//! `generic`: no board, the core behind a UART. Its defaults live here, once, and every
//! command that takes `--board generic` (`hdl emit`, `sim estimate`) uses them.

use crate::ArbiterKind;

/// The name that selects it where a board is asked for.
pub const NAME: &str = "generic";
/// Board size.
pub const N: u32 = 27;
/// No vendor carry cells: the adder form maps anywhere.
pub const ARBITER: ArbiterKind = ArbiterKind::Adder;
/// A small array, for simulators and trials.
pub const UNITS: usize = 8;
pub const CLOCK_HZ: u64 = 100_000_000;
