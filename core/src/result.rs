//! The result record a board returns for one subproblem.
//!
//! Payload, MSB first: [optional 48-bit cycle counter] the echoed wire word (8M bits),
//! count mod 13 (4 bits), count mod 15 (4 bits), the count modulo 2^44 (44 bits), then zero
//! padding to whole bytes. The two residues let the host see a counter that wrapped.

use crate::board::BoardSize;
use crate::error::ModelError;
use crate::word::wire_bytes;

pub const COUNT_BITS: u32 = 44;
pub const CYCLE_BITS: u32 = 48;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ResultRecord {
    /// The wire word as received (parity bit included).
    pub wire: u64,
    pub mod13: u8,
    pub mod15: u8,
    /// The solution count modulo 2^44.
    pub count: u64,
    /// Clock cycles the unit spent, when the board reports them.
    pub cycles: Option<u64>,
}

impl ResultRecord {
    /// The record a correct board sends for `count` solutions.
    pub fn new(wire: u64, count: u64, cycles: Option<u64>) -> Self {
        Self {
            wire,
            mod13: (count % 13) as u8,
            mod15: (count % 15) as u8,
            count: count & COUNT_MASK,
            cycles: cycles.map(|c| c & ((1 << CYCLE_BITS) - 1)),
        }
    }

    /// Payload bytes for board size `size`, with or without the cycle counter.
    pub fn payload_len(size: BoardSize, cycles: bool) -> usize {
        let bits = 8 * wire_bytes(size) as u32 + 8 + COUNT_BITS + if cycles { CYCLE_BITS } else { 0 };
        bits.div_ceil(8) as usize
    }

    pub fn encode(&self, size: BoardSize) -> Vec<u8> {
        let mut w = BitWriter::default();
        if let Some(c) = self.cycles {
            w.put(c, CYCLE_BITS);
        }
        w.put(self.wire, 8 * wire_bytes(size) as u32);
        w.put(self.mod13 as u64, 4);
        w.put(self.mod15 as u64, 4);
        w.put(self.count, COUNT_BITS);
        w.finish()
    }

    pub fn decode(size: BoardSize, payload: &[u8], cycles: bool) -> Result<Self, ModelError> {
        let expected = Self::payload_len(size, cycles);
        if payload.len() != expected {
            return Err(ModelError::PayloadLength {
                expected,
                found: payload.len(),
            });
        }
        let mut r = BitReader {
            bytes: payload,
            pos: 0,
        };
        let cycles = cycles.then(|| r.take(CYCLE_BITS));
        let wire = r.take(8 * wire_bytes(size) as u32);
        let mod13 = r.take(4) as u8;
        let mod15 = r.take(4) as u8;
        let count = r.take(COUNT_BITS);
        Ok(Self {
            wire,
            mod13,
            mod15,
            count,
            cycles,
        })
    }

    /// The true count of a wrapped counter (see [`unwrap_count`]).
    pub fn true_count(&self) -> Result<u64, ModelError> {
        unwrap_count(self.count, self.mod13, self.mod15)
    }

    /// True when the residues match the 44-bit count itself (no wrap, no corruption).
    pub fn digits_match(&self) -> bool {
        self.count % 13 == self.mod13 as u64 && self.count % 15 == self.mod15 as u64
    }
}

/// The true count behind a 44-bit counter and its residues: the count plus the number of 2^44
/// wraps that makes both residues match. 2^44 is coprime to 195 = 13 x 15, so exactly one wrap
/// count below 195 fits; digits out of range (mod 13 > 12, mod 15 > 14) are corrupt.
pub fn unwrap_count(count: u64, mod13: u8, mod15: u8) -> Result<u64, ModelError> {
    let bad = ModelError::Residue { count, mod13, mod15 };
    if mod13 > 12 || mod15 > 14 || count >> COUNT_BITS != 0 {
        return Err(bad);
    }
    (0..195u64)
        .map(|k| count + (k << COUNT_BITS))
        .find(|c| c % 13 == mod13 as u64 && c % 15 == mod15 as u64)
        .ok_or(bad)
}

#[derive(Default)]
pub(crate) struct BitWriter {
    bytes: Vec<u8>,
    acc: u64,
    nacc: u32,
}

impl BitWriter {
    pub(crate) fn put(&mut self, value: u64, bits: u32) {
        for i in (0..bits).rev() {
            self.acc = (self.acc << 1) | (value >> i & 1);
            self.nacc += 1;
            if self.nacc == 8 {
                self.bytes.push(self.acc as u8);
                self.acc = 0;
                self.nacc = 0;
            }
        }
    }

    pub(crate) fn finish(mut self) -> Vec<u8> {
        if self.nacc > 0 {
            self.bytes.push((self.acc << (8 - self.nacc)) as u8);
        }
        self.bytes
    }
}

pub(crate) struct BitReader<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) pos: usize,
}

impl BitReader<'_> {
    pub(crate) fn take(&mut self, bits: u32) -> u64 {
        let mut v = 0;
        for _ in 0..bits {
            let bit = self.bytes[self.pos / 8] >> (7 - self.pos % 8) & 1;
            v = (v << 1) | bit as u64;
            self.pos += 1;
        }
        v
    }
}
