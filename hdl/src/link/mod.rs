//! The link between the host and the array: a UART ([`uart_rx`], [`uart_tx`]), the frame
//! parser and framer ([`frame_rx`], [`frame_tx`]) with their CRC-8 step ([`crc8`]), and the
//! AXI4-Stream adapters that put the same frames on PCIe ([`axis`]).

pub mod axis;
pub mod crc8;
pub mod frame_rx;
pub mod frame_tx;
pub mod uart_rx;
pub mod uart_tx;
