//! The link between the host and the array: a UART ([`uart_rx`], [`uart_tx`]), the frame
//! parser and framer ([`frame_rx`], [`frame_tx`]) with their CRC-8 step ([`crc8`]), and the
//! AXI4-Stream adapters that put the same frames on PCIe ([`axis`]).

pub mod axis;
pub mod crc8;
pub mod frame_rx;
pub mod frame_tx;
pub mod uart_rx;
pub mod uart_tx;

/// A UART's clock cycles per sample (8 samples a bit): 1 to 2^16, what the receiver's 16-bit
/// divider counts (`emit::cycles_per_sample` refuses the rest with an error first).
pub(crate) const DIVISORS: std::ops::RangeInclusive<u64> = 1..=1 << 16;

pub(crate) fn check_divisor(cycles_per_sample: u32) {
    assert!(
        DIVISORS.contains(&(cycles_per_sample as u64)),
        "baud divisor {cycles_per_sample}"
    );
}
