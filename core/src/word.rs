//! The pre-placement word: the eight side coordinates packed MSB first, as sent to a board.
//!
//! With M = ceil(log2 N) bits per coordinate the word has 8M - 1 bits: wa keeps only M - 1
//! (a canonical west side has wa < N/2). On the wire bit 8M - 1 is set so that the popcount of
//! the M-byte word is odd; the board ignores it and echoes it back.

use crate::board::BoardSize;
use crate::error::ModelError;
use crate::preplacement::{Preplacement, FIELD_NAMES};

/// Width of the word without its parity bit.
pub fn word_bits(size: BoardSize) -> u32 {
    8 * size.coord_bits() - 1
}

/// Bytes of the word on the wire (word plus parity bit).
pub fn wire_bytes(size: BoardSize) -> usize {
    size.coord_bits() as usize
}

/// Packs the coordinates; fails only if wa needs the dropped top bit (never for a canonical
/// pre-placement).
pub fn encode(pre: &Preplacement) -> Result<u64, ModelError> {
    let m = pre.size().coord_bits();
    let c = pre.coords();
    if c[0] >> (m - 1) != 0 {
        return Err(ModelError::Coordinate {
            field: "wa",
            value: c[0],
            n: pre.size().n(),
        });
    }
    Ok(c.iter().fold(0u64, |acc, &v| (acc << m) | v as u64))
}

/// The word with its odd-parity bit on top, as sent to a board.
pub fn encode_wire(pre: &Preplacement) -> Result<u64, ModelError> {
    let w = encode(pre)?;
    Ok(with_parity(pre.size(), w))
}

/// Sets the parity bit of a bare word so that the popcount becomes odd.
pub fn with_parity(size: BoardSize, word: u64) -> u64 {
    let even = word.count_ones() % 2 == 0;
    word | (even as u64) << word_bits(size)
}

/// Unpacks a bare word (no parity bit) into a validated pre-placement.
pub fn decode(size: BoardSize, word: u64) -> Result<Preplacement, ModelError> {
    let bits = word_bits(size);
    if word >> bits != 0 {
        return Err(ModelError::WordWidth { word, bits });
    }
    let m = size.coord_bits();
    let mask = (1u64 << m) - 1;
    let coords: [u32; 8] = std::array::from_fn(|i| ((word >> (m * (7 - i as u32))) & mask) as u32);
    let n = size.n();
    if let Some(i) = coords.iter().position(|&v| v >= n) {
        return Err(ModelError::Coordinate {
            field: FIELD_NAMES[i],
            value: coords[i],
            n,
        });
    }
    Preplacement::new(size, coords)
}

/// Checks the width and parity of a wire word and returns the bare word.
pub fn strip_parity(size: BoardSize, wire: u64) -> Result<u64, ModelError> {
    let bits = word_bits(size) + 1;
    if wire >> bits != 0 {
        return Err(ModelError::WordWidth { word: wire, bits });
    }
    if wire.count_ones() % 2 == 0 {
        return Err(ModelError::Parity { word: wire });
    }
    Ok(wire & ((1u64 << (bits - 1)) - 1))
}

/// Checks the parity of a wire word and unpacks it.
pub fn decode_wire(size: BoardSize, wire: u64) -> Result<Preplacement, ModelError> {
    decode(size, strip_parity(size, wire)?)
}

/// The M wire bytes of a wire word, big-endian.
pub fn wire_to_bytes(size: BoardSize, wire: u64) -> Vec<u8> {
    let k = wire_bytes(size);
    wire.to_be_bytes()[8 - k..].to_vec()
}

/// The wire word from its M big-endian bytes.
pub fn wire_from_bytes(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |acc, &b| (acc << 8) | b as u64)
}
