//! Group frames: a whole south group in one request, a record per south side out (issue 50;
//! this project's own, for boards of grouped units; `docs/spec/protocol.md`, "Group frames").
//!
//! A group is the canonical pre-placements that share a west, north and east side: one walk
//! counts them all. The request is a pre-placement frame whose word has its south fields at
//! zero and whose CRC is the CRC-8 of its payload XOR [`GROUP_CRC_XOR`], so that a board of
//! the plain protocol drops it as corrupt. The answer is a run of records of one length, each
//! under the same XORed CRC: one per south side the walk found solutions for (its place code,
//! [`crate::south`], and its count mod 2^[`TALLY_BITS`]), a wrap record each time a south
//! side's count passed a multiple of 2^[`TALLY_BITS`] during the walk, then an end record:
//! the residues mod 13 and mod 15 of all the walk's solutions, whether a wrap went unreported,
//! how many south records came before it, and the walk's cycles. The residues are the walk's,
//! not each record's, so that a unit keeps one word per south side in two block RAMs, not
//! three; the host checks the counts' sum against them when it takes the answer whole
//! ([`Answer`]).

use crate::board::{BoardSize, PairTable};
use crate::enumerate::select;
use crate::error::ModelError;
use crate::frame::{decode_xored, encode_xored};
use crate::preplacement::{Preplacement, Subproblem};
use crate::result::{BitReader, BitWriter, CYCLE_BITS};
use crate::south::{HELD, PLACE_BITS};
use crate::word::{self, wire_bytes};

/// XORed into the CRC of group frames, request and records (the identification frames use
/// another value).
pub const GROUP_CRC_XOR: u8 = 0x5A;
/// Bits of a record's south field: a place code (`crate::south`, two places of
/// [`PLACE_BITS`] each) or [`END`].
pub const SOUTH_BITS: u32 = 2 * PLACE_BITS;
/// The south field of the end record.
pub const END: u32 = (1 << SOUTH_BITS) - 1;
/// Bits of a record's body: a south record's count, a wrap record's flag, or the end
/// record's fields.
pub const BODY_BITS: u32 = 72;
/// Bits of a south record's count: a unit's tally word, which wraps (a wrap record says so).
pub const TALLY_BITS: u32 = 36;
/// The body of a wrap record: its top bit alone.
pub const WRAP: u128 = 1 << (BODY_BITS - 1);
/// Bits of the end record's count of south records (at most 625 place codes, at N = 28).
pub const RECORDS_BITS: u32 = 10;
/// Where the end record's fields sit in its body (MSB first: mod 13 (4), mod 15 (4), a wrap
/// lost (1), zeros (5), records (10), cycles (48)).
const END_MOD13_AT: u32 = BODY_BITS - 4;
const END_MOD15_AT: u32 = BODY_BITS - 8;
const END_LOST_AT: u32 = BODY_BITS - 9;
const END_RECORDS_AT: u32 = CYCLE_BITS;

/// The group's word on the wire: the word of any of its members with the south fields (its
/// lowest 2M bits) at zero, and its odd-parity bit.
pub fn group_wire(member: &Preplacement) -> Result<u64, ModelError> {
    let m = member.size().coord_bits();
    let word = word::encode(member)? & !((1u64 << (2 * m)) - 1);
    Ok(word::with_parity(member.size(), word))
}

/// The group word of a member's wire word `wire` (see [`group_wire`]).
pub fn group_of(size: BoardSize, wire: u64) -> u64 {
    let bare = wire & ((1u64 << word::word_bits(size)) - 1);
    word::with_parity(size, bare & !((1u64 << (2 * size.coord_bits())) - 1))
}

/// The request frame for the group of `member`.
pub fn request(member: &Preplacement) -> Result<Vec<u8>, ModelError> {
    Ok(request_of(member.size(), group_wire(member)?))
}

/// The request frame of group word `group` (see [`group_wire`]).
pub fn request_of(size: BoardSize, group: u64) -> Vec<u8> {
    encode_xored(&word::wire_to_bytes(size, group), GROUP_CRC_XOR)
}

/// A member of the group of wire word `wire` (a group request's word: its south fields are
/// ignored): the three sides with the first south side that completes them to a ring. Any
/// member walks the group (`crate::south::SouthWalk::new`).
pub fn some_member(size: BoardSize, wire: u64) -> Result<Preplacement, ModelError> {
    let m = size.coord_bits();
    let sides = word::strip_parity(size, wire)? & !((1u64 << (2 * m)) - 1);
    let n = size.n() as u64;
    (0..n * n)
        .find_map(|s| word::decode(size, sides | ((s / n) << m) | (s % n)).ok())
        .ok_or(ModelError::GroupField {
            field: "west, north and east sides (no south side completes them)",
            value: wire,
        })
}

/// The members of the group of wire word `wire` (its south fields are ignored): the canonical
/// pre-placements with its west, north and east sides, in canonical order (south side
/// ascending), each with its class. Empty when no south side makes the three canonical.
pub fn members(table: &PairTable, wire: u64) -> Result<Vec<Subproblem>, ModelError> {
    let first = some_member(table.size(), wire)?;
    let [w, n, e, _] = first.side_indices(table);
    let pairs = table.size().pairs();
    let hi = pairs - 1 - w;
    if ![n, e].iter().all(|i| (w..=hi).contains(i)) {
        return Ok(Vec::new());
    }
    let c = first.coords();
    Ok((w..=hi)
        .filter_map(|s| {
            let sym = select(pairs, w, n, e, s)?;
            let (sa, sb) = table.pair(s);
            let pre = Preplacement::new(table.size(), [c[0], c[1], c[2], c[3], c[4], c[5], sa, sb]).ok()?;
            Some(Subproblem { pre, sym })
        })
        .collect())
}

/// A group request's wire word, if `frame` is one whole (a plain request's CRC fails here).
pub fn decode_request(size: BoardSize, frame: &[u8]) -> Result<u64, ModelError> {
    let payload = decode_xored(frame, wire_bytes(size), GROUP_CRC_XOR)?;
    Ok(word::wire_from_bytes(payload))
}

/// What one record says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Body {
    /// The completions of the group's three sides with the south side of place code `south`
    /// ([`crate::south::SouthWalk::south`] names its pair), modulo 2^[`TALLY_BITS`]; not
    /// zero.
    South { south: u32, count: u64 },
    /// The count of place code `south` passed a multiple of 2^[`TALLY_BITS`]: add that to it
    /// (its south record, if the remainder is not zero, comes later).
    Wrap { south: u32 },
    /// The walk is done: its solutions number `mod13` and `mod15` modulo 13 and 15, a wrap
    /// went unreported (`wrap_lost`: two came too close together; the counts are then
    /// wrong), `records` south records came before this one, and the walk took `cycles`
    /// clock cycles (modulo 2^48).
    End {
        mod13: u8,
        mod15: u8,
        wrap_lost: bool,
        records: u32,
        cycles: u64,
    },
}

impl Body {
    /// The record's south field and body, as a stage's record slot carries them (MSB first:
    /// a south record's zeros (36), count (36); a wrap record's one (1), zeros (71); the end
    /// record's mod 13 (4), mod 15 (4), a wrap lost (1), zeros (5), records (10), cycles (48)).
    pub fn fields(&self) -> (u32, u128) {
        match *self {
            Body::South { south, count } => (south, count as u128),
            Body::Wrap { south } => (south, WRAP),
            Body::End {
                mod13,
                mod15,
                wrap_lost,
                records,
                cycles,
            } => (
                END,
                (mod13 as u128) << END_MOD13_AT
                    | (mod15 as u128) << END_MOD15_AT
                    | u128::from(wrap_lost) << END_LOST_AT
                    | (records as u128) << END_RECORDS_AT
                    | cycles as u128,
            ),
        }
    }

    /// Reads a record's south field and body for board size `size`. A south field whose
    /// places are neither inner positions of N nor [`HELD`], spare bits not zero (a south
    /// record's count of zero among them), or an end record's residue beyond its modulus, is
    /// refused.
    pub fn read(size: BoardSize, south: u32, body: u128) -> Result<Self, ModelError> {
        let bits = |at: u32, width: u32| (body >> at) as u64 & ((1u64 << width) - 1);
        let spare = |value: u64| ModelError::GroupField {
            field: "spare bits",
            value,
        };
        if south == END {
            let (mod13, mod15) = (bits(END_MOD13_AT, 4), bits(END_MOD15_AT, 4));
            if mod13 > 12 || mod15 > 14 {
                return Err(ModelError::GroupField {
                    field: "end record's residues",
                    value: mod13 << 4 | mod15,
                });
            }
            let unused = bits(
                END_RECORDS_AT + RECORDS_BITS,
                END_LOST_AT - END_RECORDS_AT - RECORDS_BITS,
            );
            if unused != 0 {
                return Err(spare(unused));
            }
            return Ok(Body::End {
                mod13: mod13 as u8,
                mod15: mod15 as u8,
                wrap_lost: bits(END_LOST_AT, 1) == 1,
                records: bits(END_RECORDS_AT, RECORDS_BITS) as u32,
                cycles: bits(0, CYCLE_BITS),
            });
        }
        let place_ok = |p: u32| p < size.inner() || p == HELD;
        let mask = (1 << PLACE_BITS) - 1;
        if south >> SOUTH_BITS != 0 || !place_ok(south >> PLACE_BITS) || !place_ok(south & mask) {
            return Err(ModelError::GroupField {
                field: "south",
                value: south as u64,
            });
        }
        if body == WRAP {
            return Ok(Body::Wrap { south });
        }
        // The bits above the count (36, so they fit), or a count of zero.
        if body >> TALLY_BITS != 0 || body == 0 {
            return Err(spare((body >> TALLY_BITS) as u64));
        }
        Ok(Body::South {
            south,
            count: body as u64,
        })
    }
}

/// A record of a group's answer: the group's word as received, and what it says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GroupRecord {
    pub wire: u64,
    pub body: Body,
}

impl GroupRecord {
    /// The records a correct board sends for a walk of group word `wire` whose place codes
    /// with completions have the (true) counts `places`, in the order given, taking `cycles`:
    /// a wrap record per 2^[`TALLY_BITS`] of each count (as the walk passes them: all before
    /// the south records), a south record per count with a remainder, the end record.
    pub fn answer(wire: u64, places: &[(u32, u64)], cycles: u64) -> Vec<Self> {
        let record = |body| GroupRecord { wire, body };
        let mut out: Vec<Self> = places
            .iter()
            .flat_map(|&(south, c)| {
                std::iter::repeat_n(record(Body::Wrap { south }), (c >> TALLY_BITS) as usize)
            })
            .collect();
        let low = |c: u64| c & ((1 << TALLY_BITS) - 1);
        let wraps = out.len();
        out.extend(
            places
                .iter()
                .filter(|p| low(p.1) != 0)
                .map(|&(south, c)| record(Body::South { south, count: low(c) })),
        );
        let records = (out.len() - wraps) as u32;
        let sum = places.iter().map(|p| p.1 as u128).sum::<u128>();
        out.push(record(Body::End {
            mod13: (sum % 13) as u8,
            mod15: (sum % 15) as u8,
            wrap_lost: false,
            records,
            cycles: cycles & ((1 << CYCLE_BITS) - 1),
        }));
        out
    }

    /// Payload bytes of every record for board size `size`.
    pub fn payload_len(size: BoardSize) -> usize {
        (8 * wire_bytes(size) as u32 + SOUTH_BITS + BODY_BITS).div_ceil(8) as usize
    }

    /// The whole frame: sentinel, payload (MSB first: the word, the south field, the body,
    /// zero padding), the XORed CRC.
    pub fn encode(&self, size: BoardSize) -> Vec<u8> {
        let mut w = BitWriter::default();
        w.put(self.wire, 8 * wire_bytes(size) as u32);
        let (south, body) = self.body.fields();
        w.put(south as u64, SOUTH_BITS);
        w.put((body >> 64) as u64, BODY_BITS - 64);
        w.put(body as u64, 64);
        encode_xored(&w.finish(), GROUP_CRC_XOR)
    }

    /// Checks one whole record frame and reads it (see [`Body::read`]).
    pub fn decode(size: BoardSize, frame: &[u8]) -> Result<Self, ModelError> {
        Self::from_payload(size, decode_xored(frame, Self::payload_len(size), GROUP_CRC_XOR)?)
    }

    /// Reads a record's payload whose CRC a deframer has checked (see [`Body::read`]).
    pub fn from_payload(size: BoardSize, payload: &[u8]) -> Result<Self, ModelError> {
        if payload.len() != Self::payload_len(size) {
            return Err(ModelError::GroupField {
                field: "record length",
                value: payload.len() as u64,
            });
        }
        let mut r = BitReader {
            bytes: payload,
            pos: 0,
        };
        let wire = r.take(8 * wire_bytes(size) as u32);
        let south = r.take(SOUTH_BITS) as u32;
        let high = r.take(BODY_BITS - 64) as u128;
        let body = Body::read(size, south, high << 64 | r.take(64) as u128)?;
        Ok(GroupRecord { wire, body })
    }
}

/// Why a group's answer is not taken: the whole group is then sent again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    #[error("a record of group {found:#x} in the answer to group {expected:#x}")]
    OtherGroup { expected: u64, found: u64 },
    #[error("south side {south} came twice in one answer")]
    Twice { south: u32 },
    #[error("the end record counts {said} south records, {received} came")]
    Records { said: u32, received: u32 },
    #[error("the south records' counts add up to {sum}, whose residues mod 13 and mod 15 are not the end record's {mod13} and {mod15} (a wrong count)")]
    Residues { sum: u128, mod13: u8, mod15: u8 },
    #[error("two south sides' counts wrapped the unit's {TALLY_BITS}-bit tally too close together for both wraps to be reported: the group's counts are wrong on every board of grouped units, count it with plain units")]
    WrapLost,
}

impl AnswerError {
    /// Whether sending the group again can mend it: not when a wrap went unreported (the
    /// walk would lose it again).
    pub fn transient(&self) -> bool {
        !matches!(self, AnswerError::WrapLost)
    }
}

/// A group's whole answer: the completions per south side with any, in the order they came
/// (a member without one has none), and the walk's cycles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walked {
    pub souths: Vec<(u32, u64)>,
    pub cycles: u64,
}

/// A group's answer as its records come: complete only with the end record, and only if that
/// record counts exactly the south records received (a lost record would otherwise read as a
/// south side without completions).
#[derive(Debug, Clone)]
pub struct Answer {
    wire: u64,
    souths: Vec<(u32, u64)>,
    /// The place codes of the wrap records received, once per record.
    wraps: Vec<u32>,
}

impl Answer {
    /// An answer to the group request of wire word `wire`.
    pub fn new(wire: u64) -> Self {
        Answer {
            wire,
            souths: Vec::new(),
            wraps: Vec::new(),
        }
    }

    /// Takes the next record: the whole answer once the end record has come, `None` before.
    pub fn push(&mut self, r: &GroupRecord) -> Result<Option<Walked>, AnswerError> {
        if r.wire != self.wire {
            return Err(AnswerError::OtherGroup {
                expected: self.wire,
                found: r.wire,
            });
        }
        match r.body {
            Body::South { south, count } => {
                if self.souths.iter().any(|s| s.0 == south) {
                    return Err(AnswerError::Twice { south });
                }
                self.souths.push((south, count));
                Ok(None)
            }
            Body::Wrap { south } => {
                self.wraps.push(south);
                Ok(None)
            }
            Body::End {
                mod13,
                mod15,
                wrap_lost,
                records,
                cycles,
            } => {
                let received = self.souths.len() as u32;
                if records != received {
                    return Err(AnswerError::Records {
                        said: records,
                        received,
                    });
                }
                if wrap_lost {
                    return Err(AnswerError::WrapLost);
                }
                // Each wrap adds 2^TALLY_BITS to its code's count (a code whose count is a
                // whole multiple has wraps and no south record). A lost wrap record shows in
                // the residues: 2^36 is 1 mod 13 and mod 15.
                for &code in &std::mem::take(&mut self.wraps) {
                    match self.souths.iter_mut().find(|s| s.0 == code) {
                        Some(s) => s.1 += 1 << TALLY_BITS,
                        None => self.souths.push((code, 1 << TALLY_BITS)),
                    }
                }
                let sum = self.souths.iter().map(|s| s.1 as u128).sum::<u128>();
                if sum % 13 != mod13 as u128 || sum % 15 != mod15 as u128 {
                    return Err(AnswerError::Residues { sum, mod13, mod15 });
                }
                Ok(Some(Walked {
                    souths: std::mem::take(&mut self.souths),
                    cycles,
                }))
            }
        }
    }
}

/// What a whole answer says of its group's members ([`member_results`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberResults {
    /// Each member's completions and its share of the walk's cycles, in the members' order.
    pub each: Vec<(u64, u64)>,
    /// The first place code of a record that names no south side of the group, if any: such
    /// an answer is wrong whatever its counts (`each` leaves those records out).
    pub unknown_place: Option<u32>,
}

/// What a whole answer says of each of `members` (a group's, in canonical order, all walked
/// by one walk): its completions (the south records that name its south side; the sides of
/// rings that are not canonical are walked and counted too, and left out here) and its share
/// of the walk's cycles ([`cycle_shares`]).
pub fn member_results(table: &PairTable, members: &[Subproblem], walked: &Walked) -> MemberResults {
    let mut counts = vec![0u64; members.len()];
    let mut unknown_place = None;
    if let Some(first) = members.first() {
        let walk = crate::south::SouthWalk::new(&first.pre);
        let souths: Vec<u32> = members.iter().map(|m| m.pre.side_indices(table)[3]).collect();
        for &(code, c) in &walked.souths {
            match walk.south(code, table) {
                Some(s) => {
                    if let Some(i) = souths.iter().position(|&m| m == s) {
                        counts[i] += c;
                    }
                }
                None => {
                    unknown_place.get_or_insert(code);
                }
            }
        }
    }
    let each = counts
        .into_iter()
        .zip(cycle_shares(walked.cycles, members.len()))
        .collect();
    MemberResults { each, unknown_place }
}

/// Each of `members` entries' share of a walk of `cycles`: equal shares, the first
/// `cycles mod members` (in canonical order) one cycle more, so that they add up to the walk.
pub fn cycle_shares(cycles: u64, members: usize) -> Vec<u64> {
    let k = members.max(1) as u64;
    (0..members as u64)
        .map(|i| cycles / k + u64::from(i < cycles % k))
        .collect()
}
