//! A receiver's side of the frames: a byte stream split into frames of one payload length,
//! resynchronising on a bad CRC, and (where one is expected) the identification answers among
//! them. Its own file so that frames and identification each depend only on the frame format.

use crate::error::ModelError;
use crate::frame::{decode_xored, SENTINEL};
use crate::ident::{Ident, ANSWER_FRAME};

/// What a [`Deframer`] found in the byte stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Deframed {
    /// A frame whose CRC checked: its payload.
    Frame(Vec<u8>),
    /// A sentinel followed by a payload whose CRC failed; the hunt resumes after it.
    BadCrc { computed: u8, received: u8 },
    /// Bytes skipped while hunting for a sentinel.
    Skipped(usize),
    /// An identification answer (only from a deframer made [`Deframer::with_ident`]).
    Ident(Ident),
}

/// Splits a byte stream into frames of one payload length, resynchronising on errors.
#[derive(Debug, Clone)]
pub struct Deframer {
    payload_len: usize,
    buf: Vec<u8>,
    ident: bool,
    /// XORed into the frames' CRC (`frame::encode_xored`): 0 for the plain protocol.
    xor: u8,
}

impl Deframer {
    pub fn new(payload_len: usize) -> Self {
        Self {
            payload_len,
            buf: Vec::with_capacity(4 * (payload_len + 2)),
            ident: false,
            xor: 0,
        }
    }

    /// Takes frames whose CRC is XORed with `xor` (this project's group frames) instead of
    /// plain ones, which then fail their CRC.
    pub fn with_xor(mut self, xor: u8) -> Self {
        self.xor = xor;
        self
    }

    /// Also takes identification answers out of the stream ([`Deframed::Ident`]) instead
    /// of reporting their bytes as a bad frame. For a stream where an answer is expected: a
    /// frame shorter than an answer that begins like one waits for the answer's length.
    pub fn with_ident(mut self) -> Self {
        self.ident = true;
        self
    }

    pub fn payload_len(&self) -> usize {
        self.payload_len
    }

    /// Bytes held while waiting for the rest of a frame.
    pub fn pending(&self) -> usize {
        self.buf.len()
    }

    /// Feeds received bytes; reports every frame, failed CRC and skipped run found.
    pub fn push(&mut self, data: &[u8], mut out: impl FnMut(Deframed)) {
        self.buf.extend_from_slice(data);
        let flen = self.payload_len + 2;
        let mut start = 0;
        loop {
            match self.buf[start..].iter().position(|&b| b == SENTINEL) {
                None => {
                    if self.buf.len() > start {
                        out(Deframed::Skipped(self.buf.len() - start));
                    }
                    start = self.buf.len();
                    break;
                }
                Some(0) => {}
                Some(skip) => {
                    out(Deframed::Skipped(skip));
                    start += skip;
                }
            }
            if self.ident {
                let rest = &self.buf[start..];
                if let Some(id) = rest.get(..ANSWER_FRAME).and_then(Ident::decode) {
                    out(Deframed::Ident(id));
                    start += ANSWER_FRAME;
                    continue;
                }
                if rest.len() < ANSWER_FRAME && Ident::may_start(rest) {
                    break;
                }
            }
            if self.buf.len() - start < flen {
                break;
            }
            let frame = &self.buf[start..start + flen];
            match decode_xored(frame, self.payload_len, self.xor) {
                Ok(p) => {
                    out(Deframed::Frame(p.to_vec()));
                    start += flen;
                }
                Err(ModelError::FrameCrc { computed, received }) => {
                    // The sentinel may have been payload: hunt again from the next byte.
                    out(Deframed::BadCrc { computed, received });
                    start += 1;
                }
                Err(e) => unreachable!("length and sentinel were checked: {e}"),
            }
        }
        self.buf.drain(..start);
    }
}
