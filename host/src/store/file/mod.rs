//! The embedded campaign store: a file of 16-byte entries in canonical order, exactly a
//! Queens@TUD database, memory-mapped.
//!
//! Crash safety comes from how it is written, not from a journal: an update is one aligned
//! 8-byte store into the mapping (word 1's time stamp when handed out, word 2 when solved),
//! so the page cache never holds half an entry and a killed process loses nothing it wrote.
//! A solved entry is never written again (except when a recomputation settles a dispute).
//! `sync` flushes the mapping to disk; a power cut loses at most the results since the last
//! sync, whose entries stay unsolved and are simply recomputed. The file is locked while a
//! run uses it, so two hosts never share it by accident.
//!
//! In parts: writing a new campaign file (`write.rs`), opening one with every entry checked
//! (`open.rs`), and the store the dispatcher uses (`store.rs`); here the file's entries.

mod blocks;
mod open;
mod rebuild;
mod store;
pub mod summary;
mod write;

pub use crate::store::Watch;
pub use open::campaign_at;

use super::history::{self, Event, History};
use super::{StoreError, Summary};
use queens_core::entry::{Stamp, ENTRY_BYTES};
use queens_core::{BoardSize, Entry, Enumerator};
use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

/// Read-only views (stats, verify, plot) may look at a campaign while a run writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

pub struct FileStore {
    path: PathBuf,
    size: BoardSize,
    map: memmap2::MmapRaw,
    len: u64,
    access: Access,
    /// Next entry to look at for `claim`.
    cursor: u64,
    /// Entries behind the cursor whose counts were withdrawn, to be claimed again.
    reopened: std::collections::VecDeque<u64>,
    summary: Summary,
    /// Cycle counts beside the entries (`<campaign>.cycles`, 8 bytes each, zero = unknown),
    /// created when the first one arrives.
    cycles: Option<memmap2::MmapRaw>,
    history: Option<History>,
    solvers: HashMap<String, u16>,
    /// Solver ids in the entries that the history names no link for (a Queens@TUD database's).
    unnamed: Vec<u16>,
    /// Holds the lock as long as the store lives; blocks are read through it.
    file: File,
    /// The summary kept beside the file, as this session has it.
    kept: summary::Summary,
    rules: blocks::Rules,
    /// Which blocks this session has read, shared with the background pass.
    pass: std::sync::Arc<blocks::Pass>,
    background: Option<std::thread::JoinHandle<()>>,
    /// Per block: entries claimed in this session and not yet solved.
    outstanding: Vec<u32>,
    /// Per block: its cycle counts have disk space allocated (the cycles file is sparse;
    /// writing a page of it that has none on a full disk would kill the process).
    cycles_room: Vec<bool>,
    /// Per block: written since the last sync.
    written: Vec<bool>,
    /// A damaged entry was found: nothing more is written, and no summary.
    broken: Option<String>,
    /// The summary says when the background pass last read every block.
    recorded_checked: bool,
}

fn io<'a>(path: &'a Path, what: &'static str) -> impl FnOnce(std::io::Error) -> StoreError + 'a {
    move |error| StoreError::io(path, what, error, 0)
}

/// The file that holds the cycle counts of a campaign.
pub fn cycles_path(campaign: &Path) -> PathBuf {
    super::beside(campaign, ".cycles")
}

/// A set of 12-bit solver ids.
#[derive(Debug, Clone, Copy)]
struct Solvers([u64; 64]);

impl Solvers {
    const NONE: Solvers = Solvers([0; 64]);

    fn insert(&mut self, id: u16) {
        self.0[(id as usize >> 6) & 63] |= 1 << (id & 63);
    }

    fn contains(&self, id: u16) -> bool {
        self.0[(id as usize >> 6) & 63] & 1 << (id & 63) != 0
    }

    fn union(mut self, other: &Solvers) -> Solvers {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a |= b;
        }
        self
    }

    fn ids(&self) -> impl Iterator<Item = u16> + '_ {
        (1..=0xFFFu16).filter(|&id| self.contains(id))
    }
}

/// Takes a campaign's lock (a run holds it as long as it uses the campaign).
fn lock(file: &File, path: &Path) -> Result<(), StoreError> {
    // Released when the file closes.
    let r = rustix::fs::flock(file, rustix::fs::FlockOperation::NonBlockingLockExclusive);
    if let Err(e) = r {
        let err = std::io::Error::from(e);
        return Err(if err.kind() == std::io::ErrorKind::WouldBlock {
            StoreError::Busy { path: path.into() }
        } else {
            io(path, "locking")(err)
        });
    }
    Ok(())
}

/// Maps a campaign's file for reading, or for reading and writing.
fn map_file(file: &File, access: Access) -> std::io::Result<memmap2::MmapRaw> {
    match access {
        Access::Write => memmap2::MmapOptions::new().map_raw(file),
        Access::Read => memmap2::MmapOptions::new().map_raw_read_only(file),
    }
}

/// The board size whose campaign has `entries` entries.
fn size_of(entries: u64) -> Option<BoardSize> {
    for size in BoardSize::all() {
        let total = Enumerator::new(size).census().total();
        if total == entries {
            return Some(size);
        }
        if total > entries {
            return None;
        }
    }
    None
}

/// The link a history records for a solver id found in the entries without one.
fn unnamed_link(id: u16) -> String {
    format!("unnamed solver {id} (found in the entries)")
}

impl FileStore {
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn word(&self, index: u64, k: u64) -> u64 {
        debug_assert!(index < self.len && k < 2);
        // SAFETY: in bounds (index < len, the map has 2 * len words); the map is page-aligned
        // so every word is 8-byte aligned; volatile because another process may write it.
        // (Left unsafe: memmap2 hands out the mapping, and no crate reads or writes the
        // words of a map another process shares without it.)
        u64::from_be(unsafe {
            (self.map.as_ptr() as *const u64)
                .add((2 * index + k) as usize)
                .read_volatile()
        })
    }

    fn set_word(&mut self, index: u64, k: u64, value: u64) -> Result<(), StoreError> {
        assert!(self.access == Access::Write && index < self.len && k < 2);
        self.touch(index)?;
        // SAFETY: as in `word`; one aligned 8-byte store, so no reader or crash sees half of it.
        unsafe {
            (self.map.as_mut_ptr() as *mut u64)
                .add((2 * index + k) as usize)
                .write_volatile(value.to_be())
        }
        Ok(())
    }

    fn block_of(&self, index: u64) -> usize {
        (index / self.kept.block_entries) as usize
    }

    /// Before a write into the block of `index`: the block read this session, and open in
    /// the summary on disk (so that a kill leaves it to be read again).
    fn touch(&mut self, index: u64) -> Result<(), StoreError> {
        let b = self.block_of(index);
        self.ensure_checked(b)?;
        if !self.kept.blocks[b].open {
            self.kept.blocks[b].open = true;
            self.write_summary()?;
        }
        self.written[b] = true;
        Ok(())
    }

    /// Writes the summary as this session has it, durably.
    fn write_summary(&mut self) -> Result<(), StoreError> {
        if self.broken.is_some() {
            return Ok(());
        }
        let spath = summary::path_of(&self.path);
        self.kept.identity = summary::Identity::of(&self.path, &history::path_of(&self.path))
            .map_err(io(&spath, "writing"))?;
        self.kept.write(&spath).map_err(io(&spath, "writing"))
    }

    /// After the map is flushed: every open block that nothing of this session will write
    /// soon is closed (its digest taken from the file), and the summary written if anything
    /// changed. At a clean stop (`all`), every block is closed and the summary marked clean.
    fn close_blocks(&mut self, all: bool) -> Result<(), StoreError> {
        let mut changed = false;
        let cursor_block = (self.cursor < self.len).then(|| self.block_of(self.cursor));
        for b in 0..self.kept.blocks.len() {
            let busy = self.written[b] || self.outstanding[b] > 0 || cursor_block == Some(b);
            if self.kept.blocks[b].open && (all || !busy) {
                let r = self.kept.range(b);
                self.kept.blocks[b].bytes = self.with_reader(|reader| reader.digest(r))?;
                self.kept.blocks[b].open = false;
                changed = true;
            }
            self.written[b] = false;
        }
        if !self.recorded_checked && self.pass.done.load(std::sync::atomic::Ordering::Acquire) {
            self.apply_found()?;
            self.kept.checked_at = history::now();
            self.recorded_checked = true;
            changed = true;
        }
        if all {
            self.kept.clean = true;
            changed = true;
        }
        if changed {
            self.write_summary()?;
        }
        Ok(())
    }

    fn raw(&self, index: u64) -> [u8; ENTRY_BYTES] {
        let mut b = [0u8; ENTRY_BYTES];
        b[..8].copy_from_slice(&self.word(index, 0).to_be_bytes());
        b[8..].copy_from_slice(&self.word(index, 1).to_be_bytes());
        b
    }

    fn corrupt(&self, index: u64, reason: String) -> StoreError {
        StoreError::Corrupt {
            path: self.path.clone(),
            index,
            offset: index * ENTRY_BYTES as u64,
            reason,
        }
    }

    /// The cycle count recorded for an entry, if any.
    pub fn cycles(&self, index: u64) -> Option<u64> {
        let m = self.cycles.as_ref()?;
        // SAFETY: the cycles map holds `len` aligned words (checked at open/creation).
        let v = unsafe { (m.as_ptr() as *const u64).add(index as usize).read_volatile() };
        (v != 0).then_some(u64::from_le(v))
    }

    pub fn has_cycles(&self) -> bool {
        self.cycles.is_some()
    }

    fn record_cycles(&mut self, index: u64, cycles: u64) -> Result<(), StoreError> {
        if self.cycles.is_none() {
            let cpath = cycles_path(&self.path);
            let f = File::options()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&cpath)
                .map_err(io(&cpath, "creating"))?;
            // Sparse: unknown counts cost no disk.
            f.set_len(self.len * 8).map_err(io(&cpath, "sizing"))?;
            self.cycles = Some(map_file(&f, Access::Write).map_err(io(&cpath, "mapping"))?);
        }
        let b = self.block_of(index);
        if !self.cycles_room[b] {
            self.allocate_cycles(b)?;
        }
        let m = self.cycles.as_ref().expect("just made");
        // SAFETY: in bounds, aligned, one store (see `set_word`); its page has disk space.
        unsafe {
            (m.as_mut_ptr() as *mut u64)
                .add(index as usize)
                .write_volatile(cycles.max(1).to_le())
        }
        Ok(())
    }

    /// Gives the cycle counts of block `b` their disk space before the first is written:
    /// a full disk is then an error to report here, not a SIGBUS on a store into the map.
    fn allocate_cycles(&mut self, b: usize) -> Result<(), StoreError> {
        let cpath = cycles_path(&self.path);
        let r = self.kept.range(b);
        let (start, len) = (r.start as i64 * 8, (r.end - r.start) as i64 * 8);
        let f = File::options()
            .write(true)
            .open(&cpath)
            .map_err(io(&cpath, "opening"))?;
        nix::fcntl::posix_fallocate(&f, start, len)
            .map_err(|e| StoreError::io(&cpath, "making room for cycle counts in", e.into(), len as u64))?;
        self.cycles_room[b] = true;
        Ok(())
    }

    pub fn history(&self) -> Result<Vec<Event>, StoreError> {
        let p = history::path_of(&self.path);
        history::read(&p).map_err(io(&p, "reading"))
    }

    pub fn entry(&self, index: u64) -> Result<Entry, StoreError> {
        if index >= self.len {
            return Err(StoreError::Index { index, len: self.len });
        }
        Entry::decode(self.size, &self.raw(index)).map_err(|x| self.corrupt(index, x.to_string()))
    }

    /// An entry's 16 bytes as stored.
    pub fn raw_entry(&self, index: u64) -> [u8; ENTRY_BYTES] {
        assert!(index < self.len, "entry {index} of {}", self.len);
        self.raw(index)
    }

    /// Solver ids in the entries that the history names no link for (a Queens@TUD database
    /// opened to read).
    pub fn unnamed_solvers(&self) -> &[u16] {
        &self.unnamed
    }

    /// Sets an entry's hand-out stamp to now when it has none: a solved entry carries one
    /// (the check on open relies on it), even one solved without being claimed here.
    fn stamp(&mut self, index: u64) -> Result<(), StoreError> {
        if self.word(index, 0) & 0xF_FFFF == 0 {
            let mut e = self.entry(index)?;
            e.handed_out = Some(Stamp::now());
            self.set_word(
                index,
                0,
                u64::from_be_bytes(e.encode()[..8].try_into().expect("8 bytes")),
            )?;
        }
        Ok(())
    }

    /// The solver ids and the links they stand for, by id.
    pub fn solvers(&self) -> Vec<(u16, String)> {
        let mut v: Vec<(u16, String)> = self.solvers.iter().map(|(l, &id)| (id, l.clone())).collect();
        v.sort();
        v
    }
}

impl Drop for FileStore {
    /// A clean stop: the background pass stopped, every block closed and the summary marked
    /// clean, so that the next start reads nothing it need not.
    fn drop(&mut self) {
        self.pass.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.background.take() {
            let _ = t.join();
        }
        if self.access == Access::Write && self.broken.is_none() {
            let r = self
                .map
                .flush()
                .map_err(io(&self.path, "syncing"))
                .and_then(|_| self.close_blocks(true));
            if let Err(e) = r {
                tracing::warn!("{e}: the next start reads the blocks this session wrote again");
            }
        }
    }
}
