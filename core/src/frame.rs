//! Wire frames: sentinel 0xFA, payload, CRC-8. No length field and no escaping: the payload
//! length is fixed by N and direction, and a receiver that lost sync hunts for the next
//! sentinel and trusts the CRC.

use crate::error::ModelError;
use crc::{Algorithm, Crc};

pub const SENTINEL: u8 = 0xFA;

/// CRC-8 with polynomial 0x1D5, MSB first, initialised as if one 0xFF byte had already been
/// processed from zero (0xF9), no final XOR.
pub const CRC8_QUEENS: Algorithm<u8> = Algorithm {
    width: 8,
    poly: 0xD5,
    init: 0xF9,
    refin: false,
    refout: false,
    xorout: 0x00,
    check: 0xCE,
    residue: 0x00,
};

const CRC8: Crc<u8> = Crc::<u8>::new(&CRC8_QUEENS);

pub fn crc8(payload: &[u8]) -> u8 {
    CRC8.checksum(payload)
}

/// Wraps a payload into a frame.
pub fn encode(payload: &[u8]) -> Vec<u8> {
    encode_xored(payload, 0)
}

/// Wraps a payload into a frame whose CRC is XORed with `xor`: this project's own frames
/// (identification, groups), which a receiver of the plain protocol drops as corrupt.
pub fn encode_xored(payload: &[u8], xor: u8) -> Vec<u8> {
    let mut f = Vec::with_capacity(payload.len() + 2);
    f.push(SENTINEL);
    f.extend_from_slice(payload);
    f.push(crc8(payload) ^ xor);
    f
}

/// Checks one whole frame of a known payload length and returns its payload.
pub fn decode(frame: &[u8], payload_len: usize) -> Result<&[u8], ModelError> {
    decode_xored(frame, payload_len, 0)
}

/// As [`decode`], for a frame whose CRC is XORed with `xor` (see [`encode_xored`]).
pub fn decode_xored(frame: &[u8], payload_len: usize, xor: u8) -> Result<&[u8], ModelError> {
    if frame.len() != payload_len + 2 {
        return Err(ModelError::FrameLength {
            expected: payload_len + 2,
            found: frame.len(),
        });
    }
    if frame[0] != SENTINEL {
        return Err(ModelError::Sentinel { found: frame[0] });
    }
    let payload = &frame[1..=payload_len];
    let computed = crc8(payload) ^ xor;
    let received = frame[payload_len + 1];
    if computed != received {
        return Err(ModelError::FrameCrc { computed, received });
    }
    Ok(payload)
}
