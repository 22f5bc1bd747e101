//! A record of a campaign that outsiders can check (docs/spec/record.md): per block of
//! entries in canonical order, its range, how many are solved, the sum of their weighted
//! counts and a SHA-256 of their results. A record is checked against a software recount of
//! a sample of its blocks, or against another campaign of the same N.

use crate::store::campaign::Campaign;
use crate::store::StoreError;
use queens_core::entry::{Solution, ENTRY_BYTES};
use queens_core::{BoardSize, Entry, Enumerator, Subproblem};
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// The first line of every record, with its version.
pub const MAGIC: &str = "queens-record 1";

/// One block of a record.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Block {
    pub first: u64,
    pub last: u64,
    pub solved: u64,
    /// Σ count × weight over the block's solved entries.
    pub sum: u128,
    /// SHA-256 of the block's entries with the hand-out stamp and solver id set to zero.
    pub hash: String,
}

/// A campaign's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub n: u32,
    pub entries: u64,
    pub block_entries: u64,
    pub total: u128,
    pub blocks: Vec<Block>,
}

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{file}, line {line}: {what}")]
    Syntax { file: String, line: usize, what: String },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Model(#[from] queens_core::ModelError),
}

/// An entry's 16 bytes as the record hashes them: as stored, with the hand-out stamp (word
/// 1, bits 19..0) and the solver id (word 2, bits 63..52) set to zero, so that two
/// campaigns that agree on every count hash alike whoever solved them and when.
pub fn hashed_bytes(e: &Entry) -> [u8; ENTRY_BYTES] {
    let mut b = e.encode();
    let w1 = u64::from_be_bytes(b[..8].try_into().expect("8 bytes")) & !0xF_FFFF;
    let w2 = u64::from_be_bytes(b[8..].try_into().expect("8 bytes")) & ((1 << 52) - 1);
    b[..8].copy_from_slice(&w1.to_be_bytes());
    b[8..].copy_from_slice(&w2.to_be_bytes());
    b
}

/// Accumulates one block.
struct Acc {
    first: u64,
    next: u64,
    solved: u64,
    sum: u128,
    hash: Sha256,
}

impl Acc {
    fn new(first: u64) -> Self {
        Acc {
            first,
            next: first,
            solved: 0,
            sum: 0,
            hash: Sha256::new(),
        }
    }

    fn add(&mut self, e: &Entry) {
        if let Some(s) = &e.solution {
            self.solved += 1;
            self.sum += s.whole() as u128 * e.sym.weight() as u128;
        }
        self.hash.update(hashed_bytes(e));
        self.next += 1;
    }

    fn close(self) -> Block {
        Block {
            first: self.first,
            last: self.next - 1,
            solved: self.solved,
            sum: self.sum,
            hash: hex(&self.hash.finalize()),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

impl Record {
    /// The record of `campaign`, in blocks of `block_entries` entries (the last may be
    /// shorter); `done` counts the entries read.
    pub fn of(
        campaign: &mut Campaign,
        block_entries: u64,
        done: &std::sync::atomic::AtomicU64,
    ) -> Result<Self, RecordError> {
        let entries = campaign.summary().subproblems;
        let mut blocks = Vec::new();
        let mut acc = Acc::new(0);
        for i in 0..entries {
            if i > 0 && i % block_entries == 0 {
                blocks.push(std::mem::replace(&mut acc, Acc::new(i)).close());
                done.store(i, std::sync::atomic::Ordering::Relaxed);
            }
            acc.add(&campaign.entry(i)?);
        }
        if entries > 0 {
            blocks.push(acc.close());
        }
        Ok(Record {
            n: campaign.size().n(),
            entries,
            block_entries,
            total: blocks.iter().map(|b| b.sum).sum(),
            blocks,
        })
    }

    /// The record as text (docs/spec/record.md).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{MAGIC}");
        let _ = writeln!(s, "n {}", self.n);
        let _ = writeln!(s, "entries {}", self.entries);
        let _ = writeln!(s, "block_entries {}", self.block_entries);
        let _ = writeln!(s, "total {}", self.total);
        let _ = writeln!(s, "# block first last solved sum sha256");
        for (i, b) in self.blocks.iter().enumerate() {
            let _ = writeln!(s, "{i} {} {} {} {} {}", b.first, b.last, b.solved, b.sum, b.hash);
        }
        s
    }

    /// Reads a record written by [`Record::to_text`]; `file` names it in errors. Its lines
    /// must agree with one another: blocks in order and without gaps, the total their sum.
    pub fn parse(file: &str, text: &str) -> Result<Self, RecordError> {
        let err = |line: usize, what: String| RecordError::Syntax {
            file: file.into(),
            line,
            what,
        };
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
        match lines.next() {
            Some((_, MAGIC)) => {}
            Some((i, l)) => {
                return Err(err(
                    i,
                    format!(
                    "expected {MAGIC:?}, not {l:?}: not a campaign record (`queens db record` writes one)"
                ),
                ))
            }
            None => return Err(err(1, "empty: not a campaign record".into())),
        }
        let mut field = |name: &str| -> Result<u128, RecordError> {
            let (i, l) = lines
                .next()
                .ok_or_else(|| err(0, format!("ends before its {name} line")))?;
            l.strip_prefix(name)
                .and_then(|v| v.trim().parse().ok())
                .ok_or_else(|| err(i, format!("expected `{name} NUMBER`, not {l:?}")))
        };
        let n = field("n")? as u32;
        let entries = field("entries")? as u64;
        let block_entries = field("block_entries")? as u64;
        let total = field("total")?;
        let size = BoardSize::new(n)?;
        let census = Enumerator::new(size).census().total();
        if census != entries || block_entries == 0 {
            return Err(err(
                0,
                format!(
                    "N = {n} has {census} entries, the record says {entries} in blocks of {block_entries}"
                ),
            ));
        }
        let mut blocks = Vec::new();
        for (i, l) in lines {
            let f: Vec<&str> = l.split_whitespace().collect();
            let num = |k: usize| -> Result<u128, RecordError> {
                f.get(k).and_then(|v| v.parse().ok()).ok_or_else(|| {
                    err(
                        i,
                        format!("expected `block first last solved sum sha256`, not {l:?}"),
                    )
                })
            };
            let b = Block {
                first: num(1)? as u64,
                last: num(2)? as u64,
                solved: num(3)? as u64,
                sum: num(4)?,
                hash: f.get(5).map_or(String::new(), |h| h.to_string()),
            };
            let want_first = blocks.len() as u64 * block_entries;
            let want_last = (want_first + block_entries).min(entries) - 1;
            if num(0)? != blocks.len() as u128 || b.first != want_first || b.last != want_last {
                return Err(err(
                    i,
                    format!(
                        "block {} should cover entries {want_first} to {want_last}: {l:?}",
                        blocks.len()
                    ),
                ));
            }
            if b.hash.len() != 64 || !b.hash.bytes().all(|c| c.is_ascii_hexdigit()) || f.len() != 6 {
                return Err(err(i, format!("expected a SHA-256 in 64 hex digits last: {l:?}")));
            }
            blocks.push(b);
        }
        if blocks.len() as u64 != entries.div_ceil(block_entries) {
            return Err(err(
                0,
                format!(
                    "{} blocks, not the {} that cover {entries} entries",
                    blocks.len(),
                    entries.div_ceil(block_entries)
                ),
            ));
        }
        let sum: u128 = blocks.iter().map(|b| b.sum).sum();
        if sum != total {
            return Err(err(
                0,
                format!("its blocks sum to {sum}, its total line says {total}"),
            ));
        }
        Ok(Record {
            n,
            entries,
            block_entries,
            total,
            blocks,
        })
    }
}

/// A block whose recount or other campaign disagrees with the record.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Mismatch {
    pub block: usize,
    pub recorded: Block,
    pub found: Block,
}

/// The blocks `which` recounted in software (on the calling rayon pool): every entry of
/// each block enumerated in canonical order and counted. Returns the recounted blocks.
pub fn recount(record: &Record, which: &[usize]) -> Result<Vec<(usize, Block)>, RecordError> {
    let size = BoardSize::new(record.n)?;
    let mut want: Vec<usize> = which.to_vec();
    want.sort_unstable();
    want.dedup();
    // The subproblems of the blocks wanted, gathered in one pass over the canonical order.
    let e = Enumerator::new(size);
    let mut subs: Vec<(usize, Vec<Subproblem>)> = want.iter().map(|&b| (b, Vec::new())).collect();
    let last = want.last().map_or(0, |&b| record.blocks[b].last);
    let mut index = 0u64;
    let mut k = 0;
    'prefixes: for p in e.prefixes() {
        let mut out = false;
        e.for_each_in(p, |sp| {
            if index > last {
                out = true;
                return;
            }
            while k < want.len() && index > record.blocks[want[k]].last {
                k += 1;
            }
            if k < want.len() && index >= record.blocks[want[k]].first {
                subs[k].1.push(sp);
            }
            index += 1;
        });
        if out {
            break 'prefixes;
        }
    }
    subs.into_par_iter()
        .map(|(b, sps)| {
            let counts: Vec<u64> = sps
                .par_iter()
                .map(|sp| queens_core::completions(&sp.pre))
                .collect();
            let mut acc = Acc::new(record.blocks[b].first);
            for (sp, c) in sps.iter().zip(counts) {
                let mut entry = Entry::fresh(sp.pre, sp.sym);
                entry.solution = Some(Solution::new(1, c)?);
                acc.add(&entry);
            }
            Ok((b, acc.close()))
        })
        .collect()
}

/// The blocks where `found` differs from `record` in its solved count, sum or hash.
pub fn differences(record: &Record, found: &[(usize, Block)]) -> Vec<Mismatch> {
    found
        .iter()
        .filter(|(b, f)| &record.blocks[*b] != f)
        .map(|(b, f)| Mismatch {
            block: *b,
            recorded: record.blocks[*b].clone(),
            found: f.clone(),
        })
        .collect()
}
