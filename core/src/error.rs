//! Typed errors of the problem model. Each says which value was wrong and why.

use crate::{MAX_N, MIN_N};
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ModelError {
    #[error("board size N = {n} is out of range: the coronal model needs {MIN_N} <= N <= {MAX_N}")]
    BoardSize { n: u32 },

    #[error("board size {text:?}: expected a whole number {MIN_N}..={MAX_N}")]
    BoardSizeText { text: String },

    #[error("pre-placement word {word:#x} has even parity (the wire word's popcount must be odd)")]
    Parity { word: u64 },

    #[error("pre-placement word {word:#x} does not fit in {bits} bits")]
    WordWidth { word: u64, bits: u32 },

    #[error("pre-placement field {field} = {value} is out of range for N = {n}")]
    Coordinate { field: &'static str, value: u32, n: u32 },

    #[error("pre-placement ({coords}) for N = {n} is not a valid placement: {reason}")]
    InvalidPlacement { coords: String, n: u32, reason: String },

    #[error("frame does not start with the sentinel 0xFA (found {found:#04x})")]
    Sentinel { found: u8 },

    #[error("frame has {found} bytes, expected {expected} (sentinel, payload, CRC)")]
    FrameLength { expected: usize, found: usize },

    #[error("frame CRC-8 mismatch: computed {computed:#04x}, received {received:#04x}")]
    FrameCrc { computed: u8, received: u8 },

    #[error("result payload has {found} bytes, expected {expected}")]
    PayloadLength { expected: usize, found: usize },

    #[error("result digits disagree with the count {count}: mod 13 = {mod13}, mod 15 = {mod15} (a wrapped or corrupted counter)")]
    Residue { count: u64, mod13: u8, mod15: u8 },

    #[error("group record field {field} = {value} is invalid")]
    GroupField { field: &'static str, value: u64 },

    #[error("database entry has a bad CRC-3 (word 1 = {word1:#018x})")]
    EntryCrc { word1: u64 },

    #[error("database entry field {field} = {value} is invalid")]
    EntryField { field: &'static str, value: u64 },
}
