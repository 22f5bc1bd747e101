//! The 16-byte database entry of the Queens@TUD campaign files (two big-endian u64 words).
//!
//! Word 1: wa (4 bits) wb na nb ea eb sa sb (5 bits each) in bits 63..25, the symmetry code
//! (24..23), a CRC-3 over bits 63..23 (22..20), and the time the subproblem was handed out
//! (19..0; zero = never). Word 2: solver id (63..52), count mod 13 (51..48), count mod 15
//! (47..44), count mod 2^44 (43..0); zero = unsolved, so a solver id is never 0.

use crate::board::BoardSize;
use crate::error::ModelError;
use crate::preplacement::{Preplacement, Symmetry};
use crc::{Algorithm, Crc};

/// CRC-3 with generator x^3 + x + 1, MSB first, zero init: over the entry's top bits.
pub const CRC3_ENTRY: Algorithm<u8> = Algorithm {
    width: 3,
    poly: 0x3,
    init: 0x0,
    refin: false,
    refout: false,
    xorout: 0x0,
    check: 0x3,
    residue: 0x0,
};

const CRC3: Crc<u8> = Crc::<u8>::new(&CRC3_ENTRY);

/// CRC-3 of a value, processed as 8 big-endian bytes (leading zeros do not change it).
pub fn crc3(value: u64) -> u8 {
    CRC3.checksum(&value.to_be_bytes())
}

pub const ENTRY_BYTES: usize = 16;

/// When a subproblem was handed out, at 4-minute resolution. The year is kept modulo 4
/// from 2015, as the format has only two bits for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Stamp {
    pub year_mod4: u8,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
}

impl Stamp {
    pub fn from_unix(secs: i64) -> Self {
        let t = time::OffsetDateTime::from_unix_timestamp(secs).unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
        Self {
            year_mod4: (t.year() - 2015).rem_euclid(4) as u8,
            month: t.month() as u8,
            day: t.day(),
            hour: t.hour(),
            minute: t.minute() / 4 * 4,
        }
    }

    pub fn now() -> Self {
        Self::from_unix(time::OffsetDateTime::now_utc().unix_timestamp())
    }

    fn bits(&self) -> u64 {
        (self.year_mod4 as u64) << 18
            | (self.month as u64) << 14
            | (self.day as u64) << 9
            | (self.hour as u64) << 4
            | (self.minute / 4) as u64
    }

    fn from_bits(b: u64) -> Result<Option<Self>, ModelError> {
        if b == 0 {
            return Ok(None);
        }
        let s = Self {
            year_mod4: (b >> 18 & 3) as u8,
            month: (b >> 14 & 15) as u8,
            day: (b >> 9 & 31) as u8,
            hour: (b >> 4 & 31) as u8,
            minute: (b & 15) as u8 * 4,
        };
        let bad = |field, value| Err(ModelError::EntryField { field, value });
        if !(1..=12).contains(&s.month) {
            return bad("month", s.month as u64);
        }
        if s.day == 0 {
            return bad("day", 0);
        }
        if s.hour > 23 {
            return bad("hour", s.hour as u64);
        }
        if s.minute > 59 {
            return bad("minute", s.minute as u64);
        }
        Ok(Some(s))
    }
}

/// A returned count as stored in word 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Solution {
    /// Which solver produced it, 1..=4095.
    pub solver: u16,
    pub mod13: u8,
    pub mod15: u8,
    /// The count modulo 2^44.
    pub count: u64,
}

impl Solution {
    pub fn new(solver: u16, count: u64) -> Result<Self, ModelError> {
        if solver == 0 || solver > 0xFFF {
            return Err(ModelError::EntryField {
                field: "solver",
                value: solver as u64,
            });
        }
        Ok(Self {
            solver,
            mod13: (count % 13) as u8,
            mod15: (count % 15) as u8,
            count: count & ((1 << 44) - 1),
        })
    }

    /// The residues agree with the stored count (it did not wrap and is not corrupt).
    pub fn digits_match(&self) -> bool {
        self.count % 13 == self.mod13 as u64 && self.count % 15 == self.mod15 as u64
    }

    /// Word 2 of an entry holding this solution.
    pub fn word(&self) -> u64 {
        (self.solver as u64) << 52 | (self.mod13 as u64) << 48 | (self.mod15 as u64) << 44 | self.count
    }

    /// The fields of a word 2 as stored (unchecked; `Entry::decode` checks the digits' range).
    pub fn from_word(w2: u64) -> Self {
        Self {
            solver: (w2 >> 52) as u16,
            mod13: (w2 >> 48 & 15) as u8,
            mod15: (w2 >> 44 & 15) as u8,
            count: w2 & ((1 << 44) - 1),
        }
    }

    /// The whole count, or the stored 44 bits when the digits reveal no consistent wrap
    /// (stores check digits when they read an entry).
    pub fn whole(&self) -> u64 {
        self.true_count().unwrap_or(self.count)
    }

    /// The whole count: the stored 44 bits plus the wraps the residues reveal.
    pub fn true_count(&self) -> Result<u64, ModelError> {
        crate::result::unwrap_count(self.count, self.mod13, self.mod15)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Entry {
    pub pre: Preplacement,
    pub sym: Symmetry,
    pub handed_out: Option<Stamp>,
    pub solution: Option<Solution>,
}

impl Entry {
    /// A fresh, unsolved entry.
    pub fn fresh(pre: Preplacement, sym: Symmetry) -> Self {
        Self {
            pre,
            sym,
            handed_out: None,
            solution: None,
        }
    }

    /// Bits 63..20 of word 1 (coordinates, symmetry, CRC-3), shifted down.
    pub fn spec(&self) -> u64 {
        let c = self.pre.coords();
        let body = c.iter().fold(0u64, |acc, &v| (acc << 5) | v as u64) << 2 | self.sym.code() as u64;
        body << 3 | crc3(body) as u64
    }

    pub fn encode(&self) -> [u8; ENTRY_BYTES] {
        debug_assert!(
            self.pre.coords()[0] < 16,
            "wa of a canonical pre-placement is below 16"
        );
        let w1 = self.spec() << 20 | self.handed_out.map_or(0, |s| s.bits());
        let w2 = self.solution.map_or(0, |s| s.word());
        let mut out = [0u8; ENTRY_BYTES];
        out[..8].copy_from_slice(&w1.to_be_bytes());
        out[8..].copy_from_slice(&w2.to_be_bytes());
        out
    }

    /// Word 1's own checks, without decoding the pre-placement: its CRC-3 and its stamp. For
    /// a reader that knows the pre-placement is the one the canonical order puts there.
    pub fn check_word1(w1: u64) -> Result<(), ModelError> {
        if crc3(w1 >> 20) != 0 {
            return Err(ModelError::EntryCrc { word1: w1 });
        }
        Symmetry::from_code(w1 >> 23 & 3)?;
        Stamp::from_bits(w1 & 0xF_FFFF).map(|_| ())
    }

    /// Word 1 above the stamp and CRC (coordinates and class) of a subproblem, as a fresh
    /// entry holds it: what the canonical order puts at an index.
    pub fn placed_bits(pre: &Preplacement, sym: Symmetry) -> u64 {
        pre.coords().iter().fold(0u64, |acc, &v| (acc << 5) | v as u64) << 2 | sym.code() as u64
    }

    /// Decodes and checks an entry of a campaign for board size `size`.
    pub fn decode(size: BoardSize, bytes: &[u8; ENTRY_BYTES]) -> Result<Self, ModelError> {
        let w1 = u64::from_be_bytes(bytes[..8].try_into().unwrap());
        let w2 = u64::from_be_bytes(bytes[8..].try_into().unwrap());
        if crc3(w1 >> 20) != 0 {
            return Err(ModelError::EntryCrc { word1: w1 });
        }
        let sym = Symmetry::from_code(w1 >> 23 & 3)?;
        let coords: [u32; 8] = std::array::from_fn(|i| {
            if i == 0 {
                (w1 >> 60) as u32
            } else {
                (w1 >> (60 - 5 * i as u32) & 31) as u32
            }
        });
        let pre = Preplacement::new(size, coords)?;
        let handed_out = Stamp::from_bits(w1 & 0xF_FFFF)?;
        let solution = if w2 == 0 {
            None
        } else {
            let s = Solution::from_word(w2);
            // Zero marks an unsolved entry, so a count always names its solver.
            if s.solver == 0 {
                return Err(ModelError::EntryField {
                    field: "solver",
                    value: 0,
                });
            }
            if s.mod13 > 12 {
                return Err(ModelError::EntryField {
                    field: "mod13",
                    value: s.mod13 as u64,
                });
            }
            if s.mod15 > 14 {
                return Err(ModelError::EntryField {
                    field: "mod15",
                    value: s.mod15 as u64,
                });
            }
            Some(s)
        };
        Ok(Self {
            pre,
            sym,
            handed_out,
            solution,
        })
    }
}
