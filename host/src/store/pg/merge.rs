//! Results merged into a block's entries: the part of a commit that decides what lands and
//! what it adds to the totals, apart from the database (the store reads the locked rows,
//! merges, and writes them back in the same transaction).

use super::word2;
use crate::store::CrossChecks;
use queens_core::entry::{Solution, ENTRY_BYTES};
use queens_core::{BoardSize, Entry, ModelError, Symmetry};

/// A block as its row holds it, changed in place by [`merge`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// Index of its first entry.
    pub first: u64,
    /// Entries in it.
    pub len: usize,
    /// Entries that read as solved.
    pub solved: i32,
    /// Its 16-byte entries.
    pub entries: Vec<u8>,
    /// A little-endian u64 per entry (0 = unknown), once one is known.
    pub cycles: Option<Vec<u8>>,
}

/// A host's result for an entry of a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Returned {
    /// The entry's offset in its block.
    pub off: usize,
    /// Its word 2 (never 0).
    pub word: u64,
    pub cycles: Option<u64>,
}

/// A settled dispute: word 2 that replaces what an entry holds (0 withdraws its count).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Correction {
    pub off: usize,
    pub word: u64,
}

/// A result that differs from the count another host stored first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conflict {
    pub index: u64,
    /// Word 2 stored, which is kept.
    pub kept: u64,
    /// Word 2 of the result that differs.
    pub other: u64,
}

/// What merged blocks add to the campaign.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Gain {
    /// Solved entries, per class (fewer where a count was withdrawn).
    pub solved: [i64; 3],
    /// Summed counts, per class.
    pub sums: [i64; 3],
    /// Results for entries another host had solved.
    pub checks: CrossChecks,
    pub conflicts: Vec<Conflict>,
}

impl Gain {
    /// Whether the campaign's totals stay as they are.
    pub fn is_nothing(&self) -> bool {
        self.solved.iter().chain(&self.sums).all(|&d| d == 0)
    }
}

/// An entry of a block that does not decode.
#[derive(Debug, thiserror::Error)]
#[error("entry {index} is corrupted: {source}")]
pub struct Corrupt {
    pub index: u64,
    pub source: ModelError,
}

/// Merges results and then corrections into `block`, adding what they change to `gain`.
/// A result for an unsolved entry lands (with its cycle count, if any); one for a solved
/// entry is compared, never counted again: the same count is an agreement, another one a
/// conflict, the stored count kept. A correction replaces what is stored, solved or not.
pub fn merge(
    size: BoardSize,
    block: &mut Block,
    results: &[Returned],
    corrections: impl IntoIterator<Item = Correction>,
    gain: &mut Gain,
) -> Result<(), Corrupt> {
    for r in results {
        let off = r.off;
        let stored = word2(&block.entries, off);
        let (old, new) = (Solution::from_word(stored), Solution::from_word(r.word));
        if stored == 0 {
            set_word2(&mut block.entries, off, r.word);
            let slot = block.class(size, off)?.slot();
            gain.solved[slot] += 1;
            gain.sums[slot] += new.whole() as i64;
            block.solved += 1;
            if let Some(c) = r.cycles {
                let cs = block.cycles.get_or_insert_with(|| vec![0; block.len * 8]);
                cs[off * 8..][..8].copy_from_slice(&c.max(1).to_le_bytes());
            }
        } else if old.whole() == new.whole() {
            gain.checks.agreed += 1;
        } else {
            gain.checks.disputed += 1;
            let index = block.first + off as u64;
            tracing::error!(
                index,
                kept = old.whole(),
                kept_solver = old.solver,
                other = new.whole(),
                other_solver = new.solver,
                "another host solved this subproblem with a different count: the first is kept, the dispute recorded"
            );
            gain.conflicts.push(Conflict {
                index,
                kept: stored,
                other: r.word,
            });
        }
    }
    for c in corrections {
        let stored = word2(&block.entries, c.off);
        let slot = block.class(size, c.off)?.slot();
        if stored != 0 {
            // The old count comes off; the entry stays solved unless withdrawn.
            gain.sums[slot] -= Solution::from_word(stored).whole() as i64;
            if c.word == 0 {
                block.solved -= 1;
                gain.solved[slot] -= 1;
            }
        } else if c.word != 0 {
            block.solved += 1;
            gain.solved[slot] += 1;
        }
        if c.word != 0 {
            gain.sums[slot] += Solution::from_word(c.word).whole() as i64;
        }
        set_word2(&mut block.entries, c.off, c.word);
    }
    Ok(())
}

fn set_word2(entries: &mut [u8], off: usize, w2: u64) {
    entries[off * ENTRY_BYTES + 8..][..8].copy_from_slice(&w2.to_be_bytes());
}

impl Block {
    /// The symmetry class of the entry at `off`, the whole entry checked.
    fn class(&self, size: BoardSize, off: usize) -> Result<Symmetry, Corrupt> {
        let raw = self.entries[off * ENTRY_BYTES..][..ENTRY_BYTES]
            .try_into()
            .expect("16 bytes");
        Entry::decode(size, raw).map(|e| e.sym).map_err(|source| Corrupt {
            index: self.first + off as u64,
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use queens_core::Enumerator;

    fn size() -> BoardSize {
        BoardSize::new(10).unwrap()
    }

    /// A fresh block holding the first `len` entries of N = 10, as if it began at `first`.
    fn fresh(first: u64, len: usize) -> Block {
        let mut entries = Vec::new();
        Enumerator::new(size()).for_each(|sp| {
            if entries.len() < len * ENTRY_BYTES {
                entries.extend_from_slice(&Entry::fresh(sp.pre, sp.sym).encode());
            }
        });
        Block {
            first,
            len,
            solved: 0,
            entries,
            cycles: None,
        }
    }

    fn word(solver: u16, count: u64) -> u64 {
        Solution::new(solver, count).unwrap().word()
    }

    fn result(off: usize, word: u64, cycles: Option<u64>) -> Returned {
        Returned { off, word, cycles }
    }

    /// Merges into `b`; what it gained.
    fn run(b: &mut Block, results: &[Returned], corrections: &[Correction]) -> Gain {
        let mut gain = Gain::default();
        merge(size(), b, results, corrections.iter().copied(), &mut gain).unwrap();
        gain
    }

    /// A block with the entry at `off` solved already.
    fn solved(first: u64, off: usize, word: u64) -> Block {
        let mut b = fresh(first, 4);
        run(&mut b, &[result(off, word, None)], &[]);
        b
    }

    /// The gain of `solved` entries and `sums` in the class of the entry at `off` of `b`.
    fn gain_at(b: &Block, off: usize, solved: i64, sums: i64) -> Gain {
        let slot = b.class(size(), off).unwrap().slot();
        let mut g = Gain::default();
        g.solved[slot] = solved;
        g.sums[slot] = sums;
        g
    }

    #[test]
    fn a_new_result_lands_with_its_cycles() {
        let mut b = fresh(4096, 8);
        let gain = run(&mut b, &[result(3, word(1, 40), Some(0))], &[]);
        assert_eq!(word2(&b.entries, 3), word(1, 40));
        assert_eq!(b.solved, 1);
        assert_eq!(gain, gain_at(&b, 3, 1, 40));
        // A cycle count of 0 would read as unknown: it is kept as 1.
        let cycles = b.cycles.as_ref().unwrap();
        assert_eq!(cycles.len(), 8 * 8);
        assert_eq!(cycles[3 * 8..][..8], 1u64.to_le_bytes());
        assert!(cycles[..3 * 8].iter().all(|&c| c == 0));
    }

    #[test]
    fn a_result_without_cycles_makes_no_cycle_column() {
        let mut b = fresh(0, 4);
        let gain = run(&mut b, &[result(0, word(2, 7), None)], &[]);
        assert_eq!(b.cycles, None);
        assert_eq!(b.solved, 1);
        assert!(!gain.is_nothing());
    }

    /// A result for the entry at `off` of a block where it is solved already: the block
    /// stays as it is and the totals gain nothing, whatever the result.
    fn again(first: u64, off: usize, stored: u64, returned: u64) -> Gain {
        let mut b = solved(first, off, stored);
        let before = b.clone();
        let gain = run(&mut b, &[result(off, returned, Some(9))], &[]);
        assert_eq!(b, before);
        assert!(gain.is_nothing());
        gain
    }

    #[test]
    fn a_result_for_a_solved_entry_is_compared_never_counted_twice() {
        // Another solver, the same count: agreed, the first solver kept.
        let same = again(0, 1, word(1, 92), word(2, 92));
        assert_eq!(
            same.checks,
            CrossChecks {
                agreed: 1,
                disputed: 0
            }
        );
        assert!(same.conflicts.is_empty());
        // Another count: a conflict, the first count kept.
        let other = again(8192, 2, word(1, 92), word(3, 93));
        assert_eq!(
            other.checks,
            CrossChecks {
                agreed: 0,
                disputed: 1
            }
        );
        let conflict = Conflict {
            index: 8194,
            kept: word(1, 92),
            other: word(3, 93),
        };
        assert_eq!(other.conflicts, [conflict]);
    }

    #[test]
    fn a_correction_replaces_the_count_of_a_solved_entry() {
        let mut b = solved(0, 0, word(1, 50));
        let gain = run(
            &mut b,
            &[],
            &[Correction {
                off: 0,
                word: word(4, 52),
            }],
        );
        assert_eq!(word2(&b.entries, 0), word(4, 52));
        assert_eq!(b.solved, 1);
        assert_eq!(gain, gain_at(&b, 0, 0, 2));
    }

    #[test]
    fn a_correction_of_an_unsolved_entry_solves_it() {
        let mut b = fresh(0, 4);
        let gain = run(
            &mut b,
            &[],
            &[Correction {
                off: 1,
                word: word(1, 6),
            }],
        );
        assert_eq!(b.solved, 1);
        assert_eq!(gain, gain_at(&b, 1, 1, 6));
    }

    #[test]
    fn a_retraction_withdraws_the_count_and_reopens_the_entry() {
        let mut b = solved(0, 3, word(1, 30));
        let gain = run(&mut b, &[], &[Correction { off: 3, word: 0 }]);
        assert_eq!(word2(&b.entries, 3), 0);
        assert_eq!(b.solved, 0);
        assert_eq!(gain, gain_at(&b, 3, -1, -30));
        // Retracting an entry that is not solved changes nothing.
        let again = run(&mut b, &[], &[Correction { off: 3, word: 0 }]);
        assert_eq!(b.solved, 0);
        assert!(again.is_nothing());
    }

    #[test]
    fn results_land_before_corrections_of_the_same_entry() {
        let mut b = fresh(0, 4);
        let gain = run(
            &mut b,
            &[result(2, word(1, 10), None)],
            &[Correction { off: 2, word: 0 }],
        );
        assert_eq!(word2(&b.entries, 2), 0);
        assert_eq!(b.solved, 0);
        assert!(gain.is_nothing());
    }

    #[test]
    fn a_damaged_entry_is_named_by_its_index() {
        let mut b = fresh(4096, 4);
        // A flipped bit in word 1 breaks its CRC.
        b.entries[ENTRY_BYTES] ^= 0x80;
        let mut gain = Gain::default();
        let err = merge(size(), &mut b, &[result(1, word(1, 3), None)], [], &mut gain).unwrap_err();
        assert_eq!(err.index, 4097);
        assert!(err.to_string().starts_with("entry 4097 is corrupted: "), "{err}");
    }
}
