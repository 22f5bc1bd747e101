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

use super::history::{self, Event, History};
use super::{Claim, Store, StoreError, Summary};
use queens_core::entry::{Solution, Stamp, ENTRY_BYTES};
use queens_core::enumerate::Prefix;
use queens_core::{BoardSize, Entry, Enumerator, Subproblem, Symmetry, Tally};
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;

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
    summary: Summary,
    /// Cycle counts beside the entries (`<campaign>.cycles`, 8 bytes each, zero = unknown),
    /// created when the first one arrives.
    cycles: Option<memmap2::MmapRaw>,
    history: Option<History>,
    solvers: HashMap<String, u16>,
    /// Holds the lock as long as the store lives.
    _file: File,
}

fn io<'a>(path: &'a Path, what: &'static str) -> impl FnOnce(std::io::Error) -> StoreError + 'a {
    move |source| StoreError::Io {
        path: path.to_owned(),
        what,
        source,
    }
}

/// The file that holds the cycle counts of a campaign.
pub fn cycles_path(campaign: &Path) -> PathBuf {
    super::beside(campaign, ".cycles")
}

/// Where each prefix's entries start in canonical order, and how many entries there are:
/// one counting pass, the layout of the parallel check.
struct Layout {
    enumerator: Enumerator,
    prefixes: Vec<Prefix>,
    offsets: Vec<u64>,
    total: u64,
}

impl Layout {
    fn of(size: BoardSize) -> Self {
        let enumerator = Enumerator::new(size);
        let prefixes = enumerator.prefixes();
        let counts: Vec<u64> = prefixes
            .par_iter()
            .map(|&p| {
                let mut c = 0;
                enumerator.for_each_in(p, |_| c += 1);
                c
            })
            .collect();
        let mut total = 0;
        let offsets = counts
            .iter()
            .map(|&c| {
                total += c;
                total - c
            })
            .collect();
        Self {
            enumerator,
            prefixes,
            offsets,
            total,
        }
    }
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
    for n in queens_core::board::MIN_N..=queens_core::board::MAX_N {
        let size = BoardSize::new(n).expect("in range");
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

impl FileStore {
    /// Writes a fresh campaign of unsolved entries through a temporary file renamed at the
    /// end, so an interrupted run never leaves a file that looks complete. `done` counts
    /// the prefixes written. Returns the number of entries.
    pub fn create(path: &Path, size: BoardSize, force: bool, done: &AtomicU64) -> Result<u64, StoreError> {
        if path.exists() && !force {
            return Err(StoreError::Exists { path: path.into() });
        }
        let tmp = path.with_extension("partial");
        let file = File::create(&tmp).map_err(io(&tmp, "creating"))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        let written = super::fresh_entries(size, done, |b| out.write_all(b).map_err(io(&tmp, "writing")))?;
        out.flush().map_err(io(&tmp, "writing"))?;
        out.get_ref().sync_all().map_err(io(&tmp, "syncing"))?;
        std::fs::rename(&tmp, path).map_err(io(path, "renaming the new campaign to"))?;
        // A history left from an earlier campaign of the same name would mislead.
        let _ = std::fs::remove_file(history::path_of(path));
        let _ = std::fs::remove_file(cycles_path(path));
        Ok(written)
    }

    /// Writes a campaign file from its entries in canonical order, block by block (an
    /// export from a shared store): entries through a temporary file renamed at the end,
    /// cycle counts beside them, the solver ids into a fresh history. `blocks` hands every
    /// block (first entry, entries, cycles if known) to its argument and returns the solver
    /// ids. Returns the number of entries.
    pub fn write_blocks(
        path: &Path,
        force: bool,
        blocks: impl FnOnce(
            &mut dyn FnMut(u64, &[u8], Option<&[u8]>) -> Result<(), StoreError>,
        ) -> Result<Vec<(u16, String)>, StoreError>,
    ) -> Result<u64, StoreError> {
        use std::os::unix::fs::FileExt;
        if path.exists() && !force {
            return Err(StoreError::Exists { path: path.into() });
        }
        let tmp = path.with_extension("partial");
        let tmp_cycles = cycles_path(&tmp);
        let _ = std::fs::remove_file(&tmp_cycles);
        let file = File::create(&tmp).map_err(io(&tmp, "creating"))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        let mut cycles: Option<File> = None;
        let mut written = 0u64;
        let solvers = blocks(&mut |first, entries, c| {
            out.write_all(entries).map_err(io(&tmp, "writing"))?;
            written += (entries.len() / ENTRY_BYTES) as u64;
            if let Some(c) = c {
                if cycles.is_none() {
                    cycles = Some(File::create(&tmp_cycles).map_err(io(&tmp_cycles, "creating"))?);
                }
                let f = cycles.as_ref().expect("just made");
                f.write_all_at(c, first * 8).map_err(io(&tmp_cycles, "writing"))?;
            }
            Ok(())
        })?;
        out.flush().map_err(io(&tmp, "writing"))?;
        out.get_ref().sync_all().map_err(io(&tmp, "syncing"))?;
        let _ = std::fs::remove_file(history::path_of(path));
        let _ = std::fs::remove_file(cycles_path(path));
        if let Some(f) = cycles {
            // Sparse up to the full length: entries without a count read as unknown.
            f.set_len(written * 8).map_err(io(&tmp_cycles, "sizing"))?;
            f.sync_all().map_err(io(&tmp_cycles, "syncing"))?;
            std::fs::rename(&tmp_cycles, cycles_path(path))
                .map_err(io(path, "renaming the cycle counts beside"))?;
        }
        std::fs::rename(&tmp, path).map_err(io(path, "renaming the new campaign to"))?;
        let hpath = history::path_of(path);
        let mut h = History::append_to(&hpath).map_err(io(&hpath, "opening"))?;
        for (id, link) in solvers {
            h.record(&Event::Solver {
                t: history::now(),
                id,
                link,
            })
            .map_err(io(&hpath, "writing"))?;
        }
        Ok(written)
    }

    /// Opens a campaign, checks every entry against the canonical order of its N (which must
    /// be `expect` when given) and sums the solved ones. `Write` takes the campaign's lock.
    pub fn open(path: &Path, expect: Option<BoardSize>, access: Access) -> Result<Self, StoreError> {
        let file = File::options()
            .read(true)
            .write(access == Access::Write)
            .open(path)
            .map_err(io(path, "opening the campaign"))?;
        if access == Access::Write {
            // SAFETY: flock on a descriptor we own; it is released when the file closes.
            let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if r != 0 {
                let err = std::io::Error::last_os_error();
                return Err(if err.kind() == std::io::ErrorKind::WouldBlock {
                    StoreError::Busy { path: path.into() }
                } else {
                    io(path, "locking")(err)
                });
            }
        }
        let bytes = file.metadata().map_err(io(path, "reading the size of"))?.len();
        if bytes % ENTRY_BYTES as u64 != 0 || bytes == 0 {
            return Err(StoreError::Length {
                path: path.into(),
                bytes,
            });
        }
        let len = bytes / ENTRY_BYTES as u64;
        let layout = match expect.map(Layout::of) {
            Some(l) if l.total == len => l,
            _ => {
                let found = size_of(len).ok_or(StoreError::UnknownSize {
                    path: path.into(),
                    entries: len,
                })?;
                if let Some(s) = expect {
                    return Err(StoreError::WrongN {
                        path: path.into(),
                        found: found.n(),
                        expected: s.n(),
                        entries: len,
                    });
                }
                Layout::of(found)
            }
        };
        let size = layout.enumerator.size();
        let map = map_file(&file, access).map_err(io(path, "mapping"))?;
        let cpath = cycles_path(path);
        let cycles = if cpath.exists() {
            let f = File::options()
                .read(true)
                .write(access == Access::Write)
                .open(&cpath)
                .map_err(io(&cpath, "opening"))?;
            let bytes = f.metadata().map_err(io(&cpath, "reading the size of"))?.len();
            if bytes != len * 8 {
                return Err(StoreError::Length { path: cpath, bytes });
            }
            Some(map_file(&f, access).map_err(io(&cpath, "mapping"))?)
        } else {
            None
        };
        let mut store = Self {
            path: path.into(),
            size,
            map,
            len,
            access,
            cursor: 0,
            summary: Summary::default(),
            cycles,
            history: None,
            solvers: HashMap::new(),
            _file: file,
        };
        store.summary = store.scan(&layout)?;
        let hpath = history::path_of(path);
        for e in history::read(&hpath).map_err(io(&hpath, "reading"))? {
            if let Event::Solver { id, link, .. } = e {
                store.solvers.insert(link, id);
            }
        }
        if access == Access::Write {
            store.history = Some(History::append_to(&hpath).map_err(io(&hpath, "opening"))?);
        }
        Ok(store)
    }

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
        u64::from_be(unsafe {
            (self.map.as_ptr() as *const u64)
                .add((2 * index + k) as usize)
                .read_volatile()
        })
    }

    fn set_word(&mut self, index: u64, k: u64, value: u64) {
        assert!(self.access == Access::Write && index < self.len && k < 2);
        // SAFETY: as in `word`; one aligned 8-byte store, so no reader or crash sees half of it.
        unsafe {
            (self.map.as_mut_ptr() as *mut u64)
                .add((2 * index + k) as usize)
                .write_volatile(value.to_be())
        }
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

    /// Checks every entry against the canonical subproblem at its index; sums the solved.
    fn scan(&self, layout: &Layout) -> Result<Summary, StoreError> {
        let e = &layout.enumerator;
        let results: Vec<Result<(Tally, [u64; 3]), StoreError>> = layout
            .prefixes
            .par_iter()
            .zip(layout.offsets.par_iter())
            .map(|(&p, &start)| {
                let mut tally = Tally::default();
                let mut census = [0u64; 3];
                let mut index = start;
                let mut err = None;
                e.for_each_in(p, |sp| {
                    if err.is_none() {
                        match self.check(index, sp) {
                            Ok(Some(count)) => tally.add(sp.sym, count),
                            Ok(None) => {}
                            Err(x) => err = Some(x),
                        }
                        census[sp.sym.slot()] += 1;
                    }
                    index += 1;
                });
                err.map_or(Ok((tally, census)), Err)
            })
            .collect();
        let mut s = Summary {
            subproblems: self.len,
            ..Summary::default()
        };
        for r in results {
            let (t, c) = r?;
            s.solved = s.solved.merge(&t);
            for (total, n) in s.census.iter_mut().zip(c) {
                *total += n;
            }
        }
        Ok(s)
    }

    /// One entry against the subproblem the canonical order puts at its index: its count
    /// when solved.
    fn check(&self, index: u64, sp: Subproblem) -> Result<Option<u64>, StoreError> {
        let entry =
            Entry::decode(self.size, &self.raw(index)).map_err(|x| self.corrupt(index, x.to_string()))?;
        if entry.pre != sp.pre || entry.sym != sp.sym {
            return Err(self.corrupt(
                index,
                format!(
                    "it holds ({}) {}, where the canonical order of N = {} has ({}) {}",
                    entry.pre,
                    entry.sym,
                    self.size.n(),
                    sp.pre,
                    sp.sym
                ),
            ));
        }
        match entry.solution {
            None => Ok(None),
            Some(s) => s
                .true_count()
                .ok()
                .filter(|&c| c == s.count || crate::validate::possible(self.size, c, self.cycles(index)))
                .map(Some)
                .ok_or_else(|| {
                    self.corrupt(
                        index,
                        format!(
                            "count {} disagrees with its digits mod 13 = {}, mod 15 = {}",
                            s.count, s.mod13, s.mod15
                        ),
                    )
                }),
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
        let m = self.cycles.as_ref().expect("just made");
        // SAFETY: in bounds, aligned, one store (see `set_word`).
        unsafe {
            (m.as_mut_ptr() as *mut u64)
                .add(index as usize)
                .write_volatile(cycles.max(1).to_le())
        }
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

    /// The solver ids and the links they stand for, by id.
    pub fn solvers(&self) -> Vec<(u16, String)> {
        let mut v: Vec<(u16, String)> = self.solvers.iter().map(|(l, &id)| (id, l.clone())).collect();
        v.sort();
        v
    }
}

impl Store for FileStore {
    fn size(&self) -> BoardSize {
        self.size
    }

    fn summary(&self) -> Summary {
        self.summary
    }

    fn claim(&mut self, max: usize, stamp: Stamp) -> Result<Vec<Claim>, StoreError> {
        let mut out = Vec::new();
        while out.len() < max && self.cursor < self.len {
            let index = self.cursor;
            self.cursor += 1;
            if self.word(index, 1) != 0 {
                continue;
            }
            let mut entry =
                Entry::decode(self.size, &self.raw(index)).map_err(|x| self.corrupt(index, x.to_string()))?;
            entry.handed_out = Some(stamp);
            let w1 = u64::from_be_bytes(entry.encode()[..8].try_into().expect("8 bytes"));
            self.set_word(index, 0, w1);
            out.push(Claim {
                index,
                sub: Subproblem {
                    pre: entry.pre,
                    sym: entry.sym,
                },
            });
        }
        Ok(out)
    }

    fn solve(&mut self, index: u64, solution: Solution, cycles: Option<u64>) -> Result<(), StoreError> {
        if index >= self.len {
            return Err(StoreError::Index { index, len: self.len });
        }
        // Only the class (word 1) and word 2 matter here; the entry was checked at open.
        let w2 = self.word(index, 1);
        if w2 != 0 {
            return Err(StoreError::AlreadySolved {
                index,
                count: w2 & ((1 << 44) - 1),
            });
        }
        let sym = Symmetry::from_code(self.word(index, 0) >> 23 & 3)
            .map_err(|x| self.corrupt(index, x.to_string()))?;
        if let Some(c) = cycles {
            self.record_cycles(index, c)?;
        }
        self.set_word(index, 1, solution.word());
        self.summary.solved.add(sym, solution.whole());
        Ok(())
    }

    fn correct(&mut self, index: u64, solution: Solution) -> Result<(), StoreError> {
        let entry = self.entry(index)?;
        let old = entry.solution.as_ref().map_or(0, Solution::whole);
        self.set_word(index, 1, solution.word());
        let slot = entry.sym.slot();
        if entry.solution.is_none() {
            self.summary.solved.preplacements[slot] += 1;
        }
        self.summary.solved.solutions[slot] = self.summary.solved.solutions[slot] - old + solution.whole();
        Ok(())
    }

    fn sync(&mut self) -> Result<(), StoreError> {
        if self.access == Access::Write {
            self.map.flush().map_err(io(&self.path, "syncing"))?;
            if let Some(c) = &self.cycles {
                c.flush().map_err(io(&cycles_path(&self.path), "syncing"))?;
            }
        }
        Ok(())
    }

    /// Appends to the history (a failure to write it is logged, never fatal).
    fn record(&mut self, e: &Event) {
        if let Some(h) = &mut self.history {
            if let Err(err) = h.record(e) {
                tracing::warn!("{}: {err}", history::path_of(&self.path).display());
            }
        }
    }

    fn solver_id(&mut self, link: &str) -> Result<u16, StoreError> {
        if let Some(&id) = self.solvers.get(link) {
            return Ok(id);
        }
        let id = self.solvers.values().max().map_or(1, |m| m + 1);
        if id > 0xFFF {
            return Err(StoreError::Solvers);
        }
        self.solvers.insert(link.into(), id);
        self.record(&Event::Solver {
            t: history::now(),
            id,
            link: link.into(),
        });
        Ok(id)
    }
}
