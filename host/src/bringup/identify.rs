//! Step 1: what the board says it is. One identification request for each wire length (a
//! board built for an N of another length answers the one its receiver takes); our boards
//! answer, a Queens@TUD board drops every request as a frame whose CRC fails.

use super::verdict::Verdict;
use super::{send, Incoming, Writer};
use queens_core::ident::{self, Ident};
use queens_core::{word, BoardSize};
use serde::Serialize;
use std::time::{Duration, Instant};

/// What identification found.
pub struct Identified {
    pub ident: Option<Ident>,
    /// The bytes that came back meanwhile (a board that sends anything is not silent).
    pub seen: Vec<u8>,
    pub frames: IdentFrames,
}

/// The identification requests sent and answered.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct IdentFrames {
    pub sent: u64,
    pub answered: u64,
}

/// Sends the requests and waits up to `wait` for an answer.
pub fn identify(writer: &mut Writer, incoming: &Incoming, size: BoardSize, wait: Duration) -> Identified {
    let mut requests = ident::request(size);
    let mut sent = 1;
    for n in [8, 16, 32] {
        let other = BoardSize::new(n).expect("in range");
        if word::wire_bytes(other) != word::wire_bytes(size) {
            requests.extend(ident::request(other));
            sent += 1;
        }
    }
    let mut seen = Vec::new();
    let mut ident = None;
    if send(writer, &requests).is_ok() {
        let until = Instant::now() + wait;
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            match incoming.next(left) {
                Ok((_, b)) => seen.extend(b),
                Err(_) => break,
            }
            if let Some(id) = Ident::find(&seen) {
                ident = Some(id);
                break;
            }
        }
    }
    Identified {
        ident,
        seen,
        frames: IdentFrames {
            sent,
            answered: u64::from(ident.is_some()),
        },
    }
}

/// A board that says it was built for another N: the check stops there.
pub fn other_n(ident: Option<Ident>, size: BoardSize) -> Option<Verdict> {
    let id = ident.filter(|id| id.n != size.n())?;
    Some(Verdict::OtherN {
        said: id.n,
        asked: size.n(),
    })
}

/// The board's answer against the identity of the design the user built.
pub fn compare(got: Option<Ident>, want: Ident) -> Option<Verdict> {
    let Some(got) = got else {
        return Some(Verdict::NoIdentity {
            design_hash: want.design_hash,
        });
    };
    if got == want {
        return None;
    }
    let mut differ = Vec::new();
    let mut field = |name: &str, g: String, w: String| {
        if g != w {
            differ.push(format!("{name} {g} (built: {w})"));
        }
    };
    field("N", got.n.to_string(), want.n.to_string());
    field("units", got.units.to_string(), want.units.to_string());
    field(
        "clock",
        format!("{} Hz", got.clock_hz),
        format!("{} Hz", want.clock_hz),
    );
    field(
        "cycle counters",
        got.with_cycles.to_string(),
        want.with_cycles.to_string(),
    );
    field("units", got.unit.to_string(), want.unit.to_string());
    field(
        "design",
        format!("{:08x}", got.design_hash),
        format!("{:08x}", want.design_hash),
    );
    Some(Verdict::OtherDesign { differ })
}
