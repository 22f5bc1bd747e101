//! Identification: a request our boards answer with what they were built as (N, units, the
//! clock asked for, the design's hash), and that a Queens@TUD board cannot mistake for work.
//!
//! The request is a frame of a pre-placement's length whose CRC is the CRC-8 of its payload
//! XOR [`IDENT_CRC_XOR`]: every receiver of the plain protocol drops it as a frame whose CRC
//! fails. The answer is a frame of its own: sentinel, the payload (magic `QI`, its length,
//! the fields), and the CRC-8 of the payload XOR [`IDENT_CRC_XOR`], so that a host reading
//! results skips it the same way.

use crate::frame::{crc8, encode_xored, SENTINEL};
use crate::{word, BoardSize, UnitKind};

/// XORed into the CRC of identification frames, request and answer.
pub const IDENT_CRC_XOR: u8 = 0xA5;
/// The first two payload bytes of a request and of an answer.
pub const MAGIC: [u8; 2] = *b"QI";
/// Bytes of the answer's fields: N, units (2), clock in kHz (4), design hash (4), flags.
const FIELDS: usize = 12;
/// Payload bytes of an answer: magic, the fields' length, the fields.
pub const ANSWER_PAYLOAD: usize = 3 + FIELDS;
/// Bytes of an answer frame: sentinel, payload, CRC.
pub const ANSWER_FRAME: usize = ANSWER_PAYLOAD + 2;

/// What a board says it was built as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(from = "Recorded")]
pub struct Ident {
    pub n: u32,
    pub units: u32,
    /// The compute clock the design was built for, in Hz (kHz resolution on the wire).
    pub clock_hz: u64,
    /// The first four bytes of the build's `design.json` hash (FNV-1a, [`design_hash`]).
    pub design_hash: u32,
    /// Results carry cycle counters.
    pub with_cycles: bool,
    /// The units it is built of: what requests it takes and what it answers.
    pub unit: UnitKind,
}

/// An identity as a design.json records it: since the unit kinds, `unit`; before, a flag
/// `grouped` (absent before grouped units).
#[derive(serde::Deserialize)]
struct Recorded {
    n: u32,
    units: u32,
    clock_hz: u64,
    design_hash: u32,
    with_cycles: bool,
    unit: Option<UnitKind>,
    #[serde(default)]
    grouped: bool,
}

impl From<Recorded> for Ident {
    fn from(r: Recorded) -> Self {
        let legacy = if r.grouped {
            UnitKind::Grouped
        } else {
            UnitKind::Plain
        };
        Ident {
            n: r.n,
            units: r.units,
            clock_hz: r.clock_hz,
            design_hash: r.design_hash,
            with_cycles: r.with_cycles,
            unit: r.unit.unwrap_or(legacy),
        }
    }
}

/// Bits of the answer's flags byte.
const FLAG_CYCLES: u8 = 1;
const FLAG_GROUPED: u8 = 2;

/// The identification request for a board of `size`.
pub fn request(size: BoardSize) -> Vec<u8> {
    let mut payload = vec![0xFF; word::wire_bytes(size)];
    payload[..2].copy_from_slice(&MAGIC);
    encode_xored(&payload, IDENT_CRC_XOR)
}

impl Ident {
    /// The answer frame.
    pub fn encode(&self) -> Vec<u8> {
        encode_xored(&self.payload(), IDENT_CRC_XOR)
    }

    /// This identity as the wire carries it (and [`Ident::decode`] returns it): the clock to
    /// whole kHz below, the units at most 65,535.
    pub fn on_wire(self) -> Ident {
        Ident {
            clock_hz: self.clock_hz / 1000 * 1000,
            units: self.units.min(u16::MAX as u32),
            ..self
        }
    }

    /// The answer's payload (what a framer sends between the sentinel and the CRC).
    pub fn payload(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(ANSWER_PAYLOAD);
        p.extend_from_slice(&MAGIC);
        p.push(FIELDS as u8);
        p.push(self.n as u8);
        p.extend_from_slice(&(self.units.min(u16::MAX as u32) as u16).to_be_bytes());
        p.extend_from_slice(&((self.clock_hz / 1000).min(u32::MAX as u64) as u32).to_be_bytes());
        p.extend_from_slice(&self.design_hash.to_be_bytes());
        let flag = |on: bool, bit: u8| if on { bit } else { 0 };
        p.push(flag(self.with_cycles, FLAG_CYCLES) | flag(self.unit == UnitKind::Grouped, FLAG_GROUPED));
        p
    }

    /// The first answer frame in `bytes`, if one is there whole.
    pub fn find(bytes: &[u8]) -> Option<Ident> {
        bytes.windows(ANSWER_FRAME).find_map(Ident::decode)
    }

    /// `frame`, if it is an answer frame, whole and checked.
    pub fn decode(frame: &[u8]) -> Option<Ident> {
        if frame.len() != ANSWER_FRAME || !Self::may_start(frame) {
            return None;
        }
        let p = &frame[1..=ANSWER_PAYLOAD];
        if crc8(p) ^ IDENT_CRC_XOR != frame[ANSWER_FRAME - 1] {
            return None;
        }
        let be = |r: std::ops::Range<usize>| p[r].iter().fold(0u64, |a, &b| (a << 8) | b as u64);
        Some(Ident {
            n: p[3] as u32,
            units: be(4..6) as u32,
            clock_hz: be(6..10) * 1000,
            design_hash: be(10..14) as u32,
            with_cycles: p[14] & FLAG_CYCLES != 0,
            unit: if p[14] & FLAG_GROUPED != 0 {
                UnitKind::Grouped
            } else {
                UnitKind::Plain
            },
        })
    }

    /// Whether `bytes` can be the start of an answer frame (as far as they go).
    pub fn may_start(bytes: &[u8]) -> bool {
        let head = [SENTINEL, MAGIC[0], MAGIC[1], FIELDS as u8];
        bytes.iter().zip(head).all(|(a, b)| *a == b)
    }
}

/// Whether `bytes` end with the identification request of `size` (a board's receiver keeps
/// the last bytes it saw).
pub fn is_request(size: BoardSize, bytes: &[u8]) -> bool {
    bytes.ends_with(&request(size))
}

/// FNV-1a of a design description, folded to 32 bits: what a build's answer carries.
pub fn design_hash(text: &str) -> u32 {
    let mut h: u32 = 0x811C_9DC5;
    for b in text.bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_reads_back_and_a_plain_receiver_drops_both_frames() {
        let size = BoardSize::new(27).unwrap();
        let id = Ident {
            n: 27,
            units: 360,
            clock_hz: 250_000_000,
            design_hash: 0xDEAD_BEEF,
            with_cycles: true,
            unit: UnitKind::Plain,
        };
        let mut stream = vec![1, 2, 3];
        stream.extend(id.encode());
        assert_eq!(Ident::find(&stream), Some(id));
        // A clock of no whole kHz reads back as the wire carries it.
        let odd = Ident {
            clock_hz: 284_444_444,
            ..id
        };
        assert_eq!(Ident::find(&odd.encode()), Some(odd.on_wire()));
        assert_eq!(odd.on_wire().clock_hz, 284_444_000);
        // Each flag reads back on its own.
        for (with_cycles, unit) in [
            (false, UnitKind::Grouped),
            (true, UnitKind::Grouped),
            (false, UnitKind::Plain),
        ] {
            let flagged = Ident {
                with_cycles,
                unit,
                ..id
            };
            assert_eq!(Ident::find(&flagged.encode()), Some(flagged));
        }
        assert!(is_request(size, &[[0u8, 7].as_slice(), &request(size)].concat()));
        // A flipped bit is no answer.
        let mut bad = id.encode();
        bad[5] ^= 1;
        assert_eq!(Ident::find(&bad), None);
    }

    #[test]
    fn a_design_json_of_either_age_reads_back() {
        let id = Ident {
            n: 27,
            units: 383,
            clock_hz: 248_000_000,
            design_hash: 7,
            with_cycles: true,
            unit: UnitKind::Grouped,
        };
        let now = serde_json::to_string(&id).unwrap();
        assert!(now.contains(r#""unit":"grouped""#), "{now}");
        assert_eq!(serde_json::from_str::<Ident>(&now).unwrap(), id);
        let old =
            r#"{"n":27,"units":383,"clock_hz":248000000,"design_hash":7,"with_cycles":true,"grouped":true}"#;
        assert_eq!(serde_json::from_str::<Ident>(old).unwrap(), id);
        let older = r#"{"n":27,"units":383,"clock_hz":248000000,"design_hash":7,"with_cycles":true}"#;
        let plain = Ident {
            unit: UnitKind::Plain,
            ..id
        };
        assert_eq!(serde_json::from_str::<Ident>(older).unwrap(), plain);
    }
}
