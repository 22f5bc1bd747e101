//! Checks of one result frame beyond its CRC: the echoed word must have this N's width and odd
//! parity, the mod-13/mod-15 digits must fit the count (revealing a wrapped 44-bit counter),
//! and the count must be possible in the cycles the unit spent. Whether the word is one the
//! host sent is the dispatcher's check (a word it sent is a valid pre-placement). A group
//! record ([`record`]) is checked alone here, its group's whole answer by the dispatcher.

use queens_core::group::{self, AnswerError, GroupRecord};
use queens_core::result::ResultRecord;
use queens_core::{word, BoardSize, ModelError};

/// A result that passed every check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checked {
    pub wire: u64,
    /// The whole count (wraps of the 44-bit counter added back).
    pub count: u64,
    pub cycles: Option<u64>,
    /// The 44-bit counter wrapped; the digits told how often.
    pub wrapped: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    #[error("payload of {found} bytes, expected {expected}")]
    Length { expected: usize, found: usize },
    #[error("echoed word {wire:#x} is no pre-placement of N = {n}: {source}")]
    Word { wire: u64, n: u32, source: ModelError },
    #[error("word {wire:#x}: {source}")]
    Digits { wire: u64, source: ModelError },
    #[error("word {wire:#x}: {count} solutions cannot be found in {cycles} cycles")]
    Implausible { wire: u64, count: u64, cycles: u64 },
    #[error("group record: {0}")]
    Record(ModelError),
    #[error("group record of word {wire:#x}: not a group word of N = {n} (its south fields must be zero, its parity odd)")]
    GroupWord { wire: u64, n: u32 },
    #[error("answer to group {group:#x} taken back, the group is sent again: {source}")]
    Answer { group: u64, source: AnswerError },
    #[error("answer to group {group:#x}: its west, north and east sides are no canonical ring's")]
    NoGroup { group: u64 },
    #[error("answer to group {group:#x}: place code {code} names no south side of the group")]
    South { group: u64, code: u32 },
}

/// Whether one subproblem can have `count` solutions: no more than the orderings of the
/// inner columns, nor than the cycles the unit spent (one solution per cycle at most).
pub fn possible(size: BoardSize, count: u64, cycles: Option<u64>) -> bool {
    let orderings = (1..=size.inner() as u64).try_fold(1u64, |f, k| f.checked_mul(k));
    orderings.is_none_or(|b| count <= b) && cycles.is_none_or(|c| count <= c)
}

/// Decodes and checks one group record payload of a board of grouped units of size `size`:
/// its length and fields, and that its word is a group word.
pub fn record(size: BoardSize, payload: &[u8]) -> Result<GroupRecord, Rejection> {
    let r = GroupRecord::from_payload(size, payload).map_err(Rejection::Record)?;
    if word::strip_parity(size, r.wire).is_err() || group::group_of(size, r.wire) != r.wire {
        return Err(Rejection::GroupWord {
            wire: r.wire,
            n: size.n(),
        });
    }
    Ok(r)
}

/// Decodes and checks one result payload of a board of size `size`.
pub fn check(size: BoardSize, payload: &[u8], with_cycles: bool) -> Result<Checked, Rejection> {
    let r = ResultRecord::decode(size, payload, with_cycles).map_err(|_| Rejection::Length {
        expected: ResultRecord::payload_len(size, with_cycles),
        found: payload.len(),
    })?;
    word::strip_parity(size, r.wire).map_err(|source| Rejection::Word {
        wire: r.wire,
        n: size.n(),
        source,
    })?;
    let digits = |source| Rejection::Digits { wire: r.wire, source };
    let count = r.true_count().map_err(digits)?;
    // Any pair of digits fits some number of wraps, so a wrap is believed only when it is
    // possible: no more solutions than cycles, nor than orderings of the inner columns.
    let wrapped = count != r.count;
    if wrapped && !possible(size, count, r.cycles) {
        return Err(digits(ModelError::Residue {
            count: r.count,
            mod13: r.mod13,
            mod15: r.mod15,
        }));
    }
    if let Some(cycles) = r.cycles {
        // A unit finds at most one solution per clock cycle.
        if count > cycles {
            return Err(Rejection::Implausible {
                wire: r.wire,
                count,
                cycles,
            });
        }
    }
    Ok(Checked {
        wire: r.wire,
        count,
        cycles: r.cycles,
        wrapped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use queens_core::enumerate::canonical;
    use queens_core::result::COUNT_BITS;

    fn size(n: u32) -> BoardSize {
        BoardSize::new(n).unwrap()
    }

    #[test]
    fn every_model_result_of_n10_passes_with_its_count() {
        let s = size(10);
        for sp in canonical(s) {
            let run = queens_sim::run_subproblem(&sp.pre);
            let wire = word::encode_wire(&sp.pre).unwrap();
            let p = ResultRecord::new(wire, run.solutions, Some(run.cycles)).encode(s);
            let c = check(s, &p, true).unwrap();
            assert_eq!((c.wire, c.count, c.wrapped), (wire, run.solutions, false));
        }
    }

    #[test]
    fn bad_parity_is_rejected() {
        let s = size(13);
        let sp = canonical(s).nth(5).unwrap();
        let wire = word::encode_wire(&sp.pre).unwrap() ^ (1 << 31);
        let p = ResultRecord::new(wire, 3, None).encode(s);
        assert!(matches!(check(s, &p, false), Err(Rejection::Word { .. })));
    }

    #[test]
    fn wrapped_counter_is_recovered_and_bad_digits_rejected() {
        let s = size(27);
        let pre = canonical(s).next().unwrap().pre;
        let wire = word::encode_wire(&pre).unwrap();
        let big = (3u64 << COUNT_BITS) + 12345;
        let p = ResultRecord::new(wire, big, Some(1 << 47)).encode(s);
        let c = check(s, &p, true).unwrap();
        assert_eq!((c.count, c.wrapped), (big, true));
        // Digits that only a wrap would explain, in too few cycles for one.
        let mut bad = ResultRecord::new(wire, 1000, Some(5000));
        bad.mod13 = (bad.mod13 + 1) % 13;
        assert!(matches!(
            check(s, &bad.encode(s), true),
            Err(Rejection::Digits { .. })
        ));
        // ... or on a board too small for 2^44 solutions of one subproblem.
        let s13 = size(13);
        let w13 = word::encode_wire(&canonical(s13).next().unwrap().pre).unwrap();
        let mut bad = ResultRecord::new(w13, 10, None);
        bad.mod15 = (bad.mod15 + 1) % 15;
        assert!(matches!(
            check(s13, &bad.encode(s13), false),
            Err(Rejection::Digits { .. })
        ));
    }

    #[test]
    fn more_solutions_than_cycles_is_implausible() {
        let s = size(12);
        let sp = canonical(s).next().unwrap();
        let wire = word::encode_wire(&sp.pre).unwrap();
        let p = ResultRecord::new(wire, 500, Some(499)).encode(s);
        assert!(matches!(check(s, &p, true), Err(Rejection::Implausible { .. })));
    }
}
