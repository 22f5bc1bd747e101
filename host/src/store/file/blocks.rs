//! Reading a block of a campaign file against what it must be: every entry decoded and held
//! to the history's rules, its fixed bits against the block's canonical digest, its solved
//! entries summed; and the background pass that re-reads every block a run trusted from the
//! summary.

use super::summary::Block;
use super::Solvers;
use crate::store::StoreError;
use queens_core::entry::ENTRY_BYTES;
use queens_core::{BoardSize, Entry, Tally};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

/// What the history says a solved entry must be: a flipped bit that makes an unsolved entry
/// read as solved is named, never counted.
#[derive(Clone)]
pub(super) struct Rules {
    /// The solver ids the history names, when it knows them all (it holds `Created`).
    pub known: Option<Solvers>,
    /// Every solved entry was handed out first.
    pub stamped: bool,
    pub history: PathBuf,
}

/// The digest of an entry's fixed bits, fed one entry at a time.
pub(super) struct Canon(xxhash_rust::xxh3::Xxh3, Vec<u8>);

impl Canon {
    pub fn new() -> Self {
        Canon(xxhash_rust::xxh3::Xxh3::new(), Vec::with_capacity(8 << 12))
    }

    /// Word 1 above the stamp: coordinates, class, CRC-3.
    pub fn add(&mut self, raw: &[u8]) {
        let w1 = u64::from_be_bytes(raw[..8].try_into().expect("8 bytes"));
        self.1.extend_from_slice(&(w1 >> 20).to_le_bytes());
        if self.1.len() == self.1.capacity() {
            self.0.update(&self.1);
            self.1.clear();
        }
    }

    pub fn digest(mut self) -> u64 {
        self.0.update(&self.1);
        self.0.digest()
    }
}

/// What a block holds, read from the file.
#[derive(Debug, Clone, Copy)]
pub(super) struct Scan {
    pub solved: Tally,
    pub canon: u64,
    pub bytes: u64,
}

/// Reads a campaign's entries with `pread`: the page cache serves them, nothing of the file
/// is mapped into the reader, and one buffer per block is all it holds.
pub(super) struct BlockReader<'a> {
    pub file: &'a File,
    pub path: &'a Path,
    pub size: BoardSize,
    pub rules: &'a Rules,
    /// The campaign's cycle counts, when it has them (a count off its digits is possible
    /// only where its cycles say so).
    pub cycles: Option<&'a File>,
}

impl BlockReader<'_> {
    pub fn bytes(&self, range: std::ops::Range<u64>) -> Result<Vec<u8>, StoreError> {
        let mut buf = vec![0u8; ((range.end - range.start) as usize) * ENTRY_BYTES];
        self.file
            .read_exact_at(&mut buf, range.start * ENTRY_BYTES as u64)
            .map_err(super::io(self.path, "reading"))?;
        Ok(buf)
    }

    /// The digest of a block's bytes.
    pub fn digest(&self, range: std::ops::Range<u64>) -> Result<u64, StoreError> {
        Ok(xxhash_rust::xxh3::xxh3_64(&self.bytes(range)?))
    }

    /// Every entry of `range` decoded and held to the rules; its fixed bits against
    /// `canon` when given.
    pub fn scan(&self, range: std::ops::Range<u64>, canon: Option<u64>) -> Result<Scan, StoreError> {
        let buf = self.bytes(range.clone())?;
        let mut c = Canon::new();
        let mut solved = Tally::default();
        for (k, raw) in buf.chunks_exact(ENTRY_BYTES).enumerate() {
            let index = range.start + k as u64;
            c.add(raw);
            self.check_raw(index, raw.try_into().expect("16 bytes"), |sym, count| {
                solved.add(sym, count)
            })?;
        }
        let found = c.digest();
        if canon.is_some_and(|d| d != found) {
            return Err(self.corrupt(
                range.start,
                format!(
                    "the fixed bits of entries {} to {} (pre-placements, classes) are not those the canonical order of N = {} put there: an entry was moved or damaged",
                    range.start,
                    range.end - 1,
                    self.size.n()
                ),
            ));
        }
        Ok(Scan {
            solved,
            canon: found,
            bytes: xxhash_rust::xxh3::xxh3_64(&buf),
        })
    }

    /// One entry's own checks, its pre-placement taken as placed (the canonical digest or
    /// the order vouches for it): an unsolved one by word 1's CRC and stamp alone, a solved
    /// one decoded whole and held to the rules; `solved` gets its class and count.
    pub fn check_raw(
        &self,
        index: u64,
        raw: &[u8; ENTRY_BYTES],
        solved: impl FnOnce(queens_core::Symmetry, u64),
    ) -> Result<Option<u16>, StoreError> {
        let w1 = u64::from_be_bytes(raw[..8].try_into().expect("8 bytes"));
        if raw[8..] == [0; 8] {
            return Entry::check_word1(w1)
                .map(|_| None)
                .map_err(|x| self.corrupt(index, x.to_string()));
        }
        let entry = Entry::decode(self.size, raw).map_err(|x| self.corrupt(index, x.to_string()))?;
        Ok(self.check(index, &entry)?.map(|(count, solver)| {
            solved(entry.sym, count);
            solver
        }))
    }

    pub fn corrupt(&self, index: u64, reason: String) -> StoreError {
        StoreError::Corrupt {
            path: self.path.to_owned(),
            index,
            offset: index * ENTRY_BYTES as u64,
            reason,
        }
    }

    fn cycles_of(&self, index: u64) -> Option<u64> {
        let mut b = [0u8; 8];
        self.cycles?.read_exact_at(&mut b, index * 8).ok()?;
        let v = u64::from_le_bytes(b);
        (v != 0).then_some(v)
    }

    /// A decoded entry against the history's rules: its count and solver when solved.
    pub fn check(&self, index: u64, entry: &Entry) -> Result<Option<(u64, u16)>, StoreError> {
        let Some(s) = entry.solution else {
            return Ok(None);
        };
        let count = s
            .true_count()
            .ok()
            .filter(|&c| c == s.count || crate::validate::possible(self.size, c, self.cycles_of(index)))
            .ok_or_else(|| {
                self.corrupt(
                    index,
                    format!(
                        "count {} disagrees with its digits mod 13 = {}, mod 15 = {}",
                        s.count, s.mod13, s.mod15
                    ),
                )
            })?;
        if self.rules.known.is_some_and(|k| !k.contains(s.solver)) {
            return Err(self.corrupt(
                index,
                format!(
                    "word 2 names solver {}, which {} never gave out (it would count {count}): a damaged entry, not a result",
                    s.solver,
                    self.rules.history.display()
                ),
            ));
        }
        if self.rules.stamped && entry.handed_out.is_none() {
            return Err(self.corrupt(
                index,
                format!(
                    "it reads as solved (count {count}, solver {}) but was never handed out (its stamp in word 1 is 0): a damaged entry, not a result",
                    s.solver
                ),
            ));
        }
        Ok(Some((count, s.solver)))
    }

    /// A block the summary describes, read again: its bytes unchanged since the summary took
    /// their digest, or every entry checked and its new record made.
    pub fn recheck(&self, range: std::ops::Range<u64>, was: &Block) -> Result<Outcome, StoreError> {
        if !was.open && self.digest(range.clone())? == was.bytes {
            return Ok(Outcome::Same);
        }
        Ok(Outcome::Changed(self.scan(range, Some(was.canon))?))
    }
}

/// What reading a block again found.
#[derive(Debug)]
pub(super) enum Outcome {
    /// Its bytes are those the summary took the digest of.
    Same,
    /// It was written since (it was open, or another tool wrote it): every entry checked.
    Changed(Scan),
}

/// Where each block stands in this session.
pub(super) const UNCHECKED: u8 = 0;
pub(super) const CHECKING: u8 = 1;
pub(super) const CHECKED: u8 = 2;

/// The state the store and its background pass share.
pub(super) struct Pass {
    pub states: Vec<AtomicU8>,
    /// Outcomes for the store to apply, by block.
    pub found: Mutex<Vec<(usize, Result<Outcome, StoreError>)>>,
    /// Entries in blocks read this session.
    pub checked_entries: AtomicU64,
    pub stop: AtomicBool,
    pub done: AtomicBool,
}

impl Pass {
    pub fn new(blocks: usize) -> Self {
        Self {
            states: (0..blocks).map(|_| AtomicU8::new(UNCHECKED)).collect(),
            found: Mutex::new(Vec::new()),
            checked_entries: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            done: AtomicBool::new(false),
        }
    }

    /// Takes block `b` to check, unless someone else has.
    pub fn take(&self, b: usize) -> bool {
        self.states[b]
            .compare_exchange(UNCHECKED, CHECKING, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Block `b` is checked: its outcome for the store, its entries counted as read.
    pub fn put(&self, b: usize, entries: u64, outcome: Result<Outcome, StoreError>) {
        self.found
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((b, outcome));
        self.checked_entries.fetch_add(entries, Ordering::Relaxed);
        self.states[b].store(CHECKED, Ordering::Release);
    }

    pub fn mark_checked(&self, b: usize, entries: u64) {
        self.states[b].store(CHECKED, Ordering::Release);
        self.checked_entries.fetch_add(entries, Ordering::Relaxed);
    }

    /// Waits until block `b` is checked (by the pass, which has taken it).
    pub fn wait(&self, b: usize) {
        while self.states[b].load(Ordering::Acquire) != CHECKED {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}

/// What the background pass needs of a campaign: its own handles, and the summary's records
/// of the blocks it has not read (records of blocks this host writes are not looked at: it
/// takes a block to check before its first write).
pub(super) struct Background {
    pub file: File,
    pub cycles: Option<File>,
    pub path: PathBuf,
    pub size: BoardSize,
    pub rules: Rules,
    pub blocks: Vec<(std::ops::Range<u64>, Block)>,
}

/// Re-reads every unchecked block in order, in the background, until done or stopped.
pub(super) fn spawn(bg: Background, pass: Arc<Pass>) -> std::thread::JoinHandle<()> {
    std::thread::Builder::new()
        .name("campaign-check".into())
        .spawn(move || {
            let reader = BlockReader {
                file: &bg.file,
                path: &bg.path,
                size: bg.size,
                rules: &bg.rules,
                cycles: bg.cycles.as_ref(),
            };
            for (b, (range, was)) in bg.blocks.iter().enumerate() {
                if pass.stop.load(Ordering::Relaxed) {
                    return;
                }
                if pass.take(b) {
                    let entries = range.end - range.start;
                    pass.put(b, entries, reader.recheck(range.clone(), was));
                }
            }
            pass.done.store(true, Ordering::Release);
        })
        .expect("a thread for the campaign's background check")
}
