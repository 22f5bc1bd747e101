//! Which frame variant a board sends (results with or without cycle counters), told from its
//! first good result, and what a board that never sends one seems to speak instead; a board
//! of grouped units, which says so when identified, sends group records instead.

use crate::validate;
use queens_core::deframe::{Deframed, Deframer};
use queens_core::group::{GroupRecord, GROUP_CRC_XOR};
use queens_core::ident::Ident;
use queens_core::result::ResultRecord;
use queens_core::{word, BoardSize};

/// Bytes a link may send without one good frame before it is called incompatible.
const DETECT_BYTES: usize = 4096;

/// Frames of one payload length, until the first good result tells whether the board sends
/// cycle counters.
enum State {
    Detecting {
        plain: Deframer,
        cycles: Deframer,
        seen: Vec<u8>,
    },
    Locked {
        deframer: Deframer,
        with_cycles: bool,
    },
    /// Group records (`queens_core::group`).
    Grouped {
        deframer: Deframer,
    },
}

/// The result frames of one link's byte stream.
pub struct Framing {
    size: BoardSize,
    state: State,
}

/// What one push of bytes gave.
#[derive(Default)]
pub struct Received {
    /// Result payloads, each with whether it carries cycle counters.
    pub frames: Vec<(Vec<u8>, bool)>,
    /// Group record payloads (a board of grouped units).
    pub records: Vec<Vec<u8>>,
    /// Frames that failed their CRC.
    pub bad_crc: u64,
    /// Bytes skipped while hunting for a frame.
    pub skipped: u64,
    /// The variant, when these bytes told it (with or without cycle counters).
    pub recognised: Option<bool>,
    /// The board's answer to an identification request, if these bytes held one.
    pub ident: Option<Ident>,
}

impl Received {
    fn take(&mut self, d: Deframed, with_cycles: bool) {
        match d {
            Deframed::Frame(p) => self.frames.push((p, with_cycles)),
            Deframed::BadCrc { .. } => self.bad_crc += 1,
            Deframed::Skipped(n) => self.skipped += n as u64,
            Deframed::Ident(id) => self.ident = Some(id),
        }
    }
}

/// A board that sent no good result frame in its first few kilobytes.
#[derive(Debug, thiserror::Error)]
#[error("the board does not speak this protocol for N = {n}: {diagnosis}", diagnosis = self.diagnosis())]
pub struct Incompatible {
    n: BoardSize,
    /// The N and variant whose result frames the bytes hold, if any.
    found: Option<(BoardSize, bool)>,
    /// Bytes looked at.
    seen: usize,
}

impl Incompatible {
    /// The N whose result frames the board sends instead, when its bytes are frames at all.
    pub fn frames_for(&self) -> Option<BoardSize> {
        self.found.map(|(n, _)| n)
    }

    fn diagnosis(&self) -> String {
        match self.found {
            // Frames that pass the checks for this N end the detection, so this is another N.
            Some((n, c)) => format!(
                "its frames are results for N = {n}{} (wire words of {} bytes, not {})",
                if c { " with cycle counters" } else { "" },
                word::wire_bytes(n),
                word::wire_bytes(self.n)
            ),
            None => format!(
                "no valid result frame in its first {} bytes (another protocol, baud rate or device?)",
                self.seen
            ),
        }
    }
}

impl Framing {
    /// A stream whose variant is not known yet.
    pub fn new(size: BoardSize) -> Self {
        let plen = |c| ResultRecord::payload_len(size, c);
        Self {
            size,
            state: State::Detecting {
                plain: Deframer::new(plen(false)).with_ident(),
                cycles: Deframer::new(plen(true)).with_ident(),
                seen: Vec::new(),
            },
        }
    }

    /// Whether the board sends cycle counters, once known (group records always carry them).
    pub fn with_cycles(&self) -> Option<bool> {
        match self.state {
            State::Locked { with_cycles, .. } => Some(with_cycles),
            State::Grouped { .. } => Some(true),
            State::Detecting { .. } => None,
        }
    }

    /// The board said it is one of grouped units: from now on its frames are group records.
    pub fn grouped(&mut self) {
        self.state = State::Grouped {
            deframer: Deframer::new(GroupRecord::payload_len(self.size))
                .with_xor(GROUP_CRC_XOR)
                .with_ident(),
        };
    }

    /// A new connection: a frame cut off on the old one is forgotten, the variant kept.
    pub fn reconnected(&mut self) {
        match self.state {
            State::Locked { with_cycles, .. } => {
                self.state = State::Locked {
                    deframer: Deframer::new(ResultRecord::payload_len(self.size, with_cycles)).with_ident(),
                    with_cycles,
                };
            }
            State::Grouped { .. } => self.grouped(),
            State::Detecting { .. } => {}
        }
    }

    /// Bytes received: the frames they complete, or the board found incompatible.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Received, Incompatible> {
        let size = self.size;
        let mut got = Received::default();
        match &mut self.state {
            State::Grouped { deframer } => deframer.push(bytes, |d| match d {
                Deframed::Frame(p) => got.records.push(p),
                d => got.take(d, true),
            }),
            State::Locked {
                deframer,
                with_cycles,
            } => {
                let c = *with_cycles;
                deframer.push(bytes, |d| got.take(d, c));
            }
            State::Detecting { plain, cycles, seen } => {
                // Both variants read the stream; the first good result decides.
                let mut found = None;
                for (d, c) in [(plain, false), (cycles, true)] {
                    d.push(bytes, |x| match x {
                        Deframed::Frame(p) if found.is_none() && validate::check(size, &p, c).is_ok() => {
                            found = Some(c);
                        }
                        Deframed::Ident(id) => got.ident = Some(id),
                        _ => {}
                    });
                }
                seen.extend_from_slice(bytes);
                if let Some(c) = found {
                    let mut d = Deframer::new(ResultRecord::payload_len(size, c)).with_ident();
                    let replay = std::mem::take(seen);
                    d.push(&replay, |x| got.take(x, c));
                    got.recognised = Some(c);
                    self.state = State::Locked {
                        deframer: d,
                        with_cycles: c,
                    };
                } else if seen.len() > DETECT_BYTES {
                    return Err(Incompatible {
                        n: size,
                        found: diagnosis_of(seen),
                        seen: seen.len(),
                    });
                }
            }
        }
        Ok(got)
    }
}

/// What the bytes of an incompatible board look like: results of which N and variant, if any.
fn diagnosis_of(seen: &[u8]) -> Option<(BoardSize, bool)> {
    let mut best = None;
    let mut best_n = 2usize;
    for size in BoardSize::all() {
        for c in [false, true] {
            let mut good = 0;
            Deframer::new(ResultRecord::payload_len(size, c)).push(seen, |d| {
                if let Deframed::Frame(p) = d {
                    // The words must be pre-placements of that N, too: that tells sizes of
                    // one word width apart.
                    if let Ok(r) = validate::check(size, &p, c) {
                        good += word::decode_wire(size, r.wire).is_ok() as usize;
                    }
                }
            });
            if good > best_n {
                best_n = good;
                best = Some((size, c));
            }
        }
    }
    best
}
