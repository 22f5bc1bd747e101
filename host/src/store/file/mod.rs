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
    /// Solver ids in the entries that the history names no link for (a Queens@TUD database's).
    unnamed: Vec<u16>,
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

/// A set of 12-bit solver ids.
#[derive(Clone, Copy)]
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

/// What the history says a solved entry must be, checked for each one on open: a flipped
/// bit that makes an unsolved entry read as solved is named, never counted.
struct Rules {
    /// The solver ids the history names, when it knows them all (it holds `Created`).
    known: Option<Solvers>,
    /// Every solved entry was handed out first.
    stamped: bool,
    history: PathBuf,
}

/// Takes a campaign's lock (a run holds it as long as it uses the campaign).
fn lock(file: &File, path: &Path) -> Result<(), StoreError> {
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
    Ok(())
}

/// May a new campaign be written at `path`? Not over an existing file unless `force`, and
/// never while a run holds the campaign there: the file returned holds its lock in turn
/// until the new one is in place.
fn replaceable(path: &Path, force: bool) -> Result<Option<File>, StoreError> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(path, "looking at")(e)),
        Ok(_) if !force => return Err(StoreError::Exists { path: path.into() }),
        Ok(_) => {}
    }
    // A campaign replaces a file, never a device or a directory (`--out /dev/null --force`
    // must not rename a file over /dev/null).
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(io(path, "replacing")(std::io::Error::other(
            "not a regular file; a campaign replaces only a file",
        )));
    }
    let file = match File::open(path) {
        Ok(f) => f,
        // A dangling link: nothing to hold.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(path, "opening")(e)),
    };
    lock(&file, path)?;
    Ok(Some(file))
}

/// A new temporary file beside `path`, or an error naming its directory.
fn temp_beside(path: &Path) -> Result<tempfile::NamedTempFile, StoreError> {
    super::temp_beside(path).map_err(io(path, "creating a temporary file beside"))
}

/// Renames a complete temporary file onto `path`: over what is there only when `replace`
/// (else a file that appeared meanwhile is an error, and stays).
fn persist(
    tmp: tempfile::NamedTempFile,
    path: &Path,
    replace: bool,
    what: &'static str,
) -> Result<(), StoreError> {
    let r = if replace {
        tmp.persist(path)
    } else {
        tmp.persist_noclobber(path)
    };
    match r {
        Ok(_) => Ok(()),
        Err(e) if !replace && e.error.kind() == std::io::ErrorKind::AlreadyExists => {
            Err(StoreError::Exists { path: path.into() })
        }
        Err(e) => Err(io(path, what)(e.error)),
    }
}

/// The board size of the campaign at `path`, when it holds one (ours or a Queens@TUD
/// database): a file of whole entries, as many as some N has, whose first entry is an entry
/// of that N. Outputs of other kinds (a plot, Verilog) are never written over one.
pub fn campaign_at(path: &Path) -> Option<BoardSize> {
    use std::io::Read;
    let meta = std::fs::metadata(path).ok()?;
    let bytes = meta.len();
    if !meta.is_file() || bytes == 0 || bytes % ENTRY_BYTES as u64 != 0 {
        return None;
    }
    let mut first = [0u8; ENTRY_BYTES];
    File::open(path).ok()?.read_exact(&mut first).ok()?;
    (queens_core::board::MIN_N..=queens_core::board::MAX_N)
        .filter_map(|n| BoardSize::new(n).ok())
        .filter(|&s| Entry::decode(s, &first).is_ok())
        .find(|&s| Enumerator::new(s).census().total() == bytes / ENTRY_BYTES as u64)
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

/// The link a history records for a solver id found in the entries without one.
fn unnamed_link(id: u16) -> String {
    format!("unnamed solver {id} (found in the entries)")
}

impl FileStore {
    /// Writes a fresh campaign of unsolved entries through a temporary file renamed at the
    /// end, so an interrupted run never leaves a file that looks complete. An existing file
    /// is replaced only when `force`, and never while a run holds it. `done` counts the
    /// prefixes written. Returns the number of entries.
    pub fn create(path: &Path, size: BoardSize, force: bool, done: &AtomicU64) -> Result<u64, StoreError> {
        let _held = replaceable(path, force)?;
        let tmp = temp_beside(path)?;
        let mut out = BufWriter::with_capacity(1 << 20, tmp.as_file());
        let written = super::fresh_entries(size, done, |b| {
            out.write_all(b).map_err(io(tmp.path(), "writing"))
        })?;
        out.flush().map_err(io(tmp.path(), "writing"))?;
        drop(out);
        tmp.as_file().sync_all().map_err(io(tmp.path(), "syncing"))?;
        persist(tmp, path, force, "renaming the new campaign to")?;
        // Cycle counts or a history left from an earlier campaign of the same name would
        // mislead: a fresh history that will name every solver id.
        let _ = std::fs::remove_file(cycles_path(path));
        let hpath = history::path_of(path);
        history::write_new(
            &hpath,
            &[Event::Created {
                t: history::now(),
                n: size.n(),
                stamped: true,
            }],
        )
        .map_err(io(&hpath, "writing"))?;
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
        let _held = replaceable(path, force)?;
        let tmp = temp_beside(path)?;
        let mut out = BufWriter::with_capacity(1 << 20, tmp.as_file());
        let mut cycles: Option<tempfile::NamedTempFile> = None;
        let mut written = 0u64;
        let mut used = Solvers::NONE;
        let solvers = blocks(&mut |first, entries, c| {
            out.write_all(entries).map_err(io(tmp.path(), "writing"))?;
            written += (entries.len() / ENTRY_BYTES) as u64;
            for e in entries.chunks_exact(ENTRY_BYTES) {
                let w2 = u64::from_be_bytes(e[8..].try_into().expect("8 bytes"));
                if w2 != 0 {
                    used.insert((w2 >> 52) as u16);
                }
            }
            if let Some(c) = c {
                if cycles.is_none() {
                    cycles = Some(temp_beside(&cycles_path(path))?);
                }
                let f = cycles.as_ref().expect("just made");
                f.as_file()
                    .write_all_at(c, first * 8)
                    .map_err(io(f.path(), "writing"))?;
            }
            Ok(())
        })?;
        out.flush().map_err(io(tmp.path(), "writing"))?;
        drop(out);
        tmp.as_file().sync_all().map_err(io(tmp.path(), "syncing"))?;
        if let Some(f) = &cycles {
            // Sparse up to the full length: entries without a count read as unknown.
            f.as_file().set_len(written * 8).map_err(io(f.path(), "sizing"))?;
            f.as_file().sync_all().map_err(io(f.path(), "syncing"))?;
        }
        persist(tmp, path, force, "renaming the new campaign to")?;
        let _ = std::fs::remove_file(cycles_path(path));
        if let Some(f) = cycles {
            persist(f, &cycles_path(path), true, "renaming the cycle counts to")?;
        }
        // The history names every solver id of the entries: the links the source knows, and
        // a placeholder for any other (a Queens@TUD database's ids).
        let t = history::now();
        let mut events: Vec<Event> = Vec::new();
        let mut named = Solvers::NONE;
        for (id, link) in solvers {
            named.insert(id);
            events.push(Event::Solver { t, id, link });
        }
        for id in used.ids().filter(|&id| !named.contains(id)) {
            events.push(Event::Solver {
                t,
                id,
                link: unnamed_link(id),
            });
        }
        let n = size_of(written).map_or(0, |s| s.n());
        events.push(Event::Created { t, n, stamped: false });
        let hpath = history::path_of(path);
        history::write_new(&hpath, &events).map_err(io(&hpath, "writing"))?;
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
            lock(&file, path)?;
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
            unnamed: Vec::new(),
            _file: file,
        };
        let hpath = history::path_of(path);
        let mut created = None;
        for e in history::read(&hpath).map_err(io(&hpath, "reading"))? {
            match e {
                Event::Solver { id, link, .. } => {
                    store.solvers.insert(link, id);
                }
                Event::Created { stamped, .. } => created = Some(stamped),
                _ => {}
            }
        }
        let mut named = Solvers::NONE;
        for &id in store.solvers.values() {
            named.insert(id);
        }
        let rules = Rules {
            known: created.map(|_| named),
            stamped: created == Some(true),
            history: hpath.clone(),
        };
        let (summary, used) = store.scan(&layout, &rules)?;
        store.summary = summary;
        store.unnamed = used.ids().filter(|&id| !named.contains(id)).collect();
        if access == Access::Write {
            let mut h = History::append_to(&hpath).map_err(io(&hpath, "opening"))?;
            if created.is_none() {
                // Adopted (a Queens@TUD database, or a campaign of an older version): the ids
                // found in its entries are taken as they are, named from now on, and new
                // ones are given above them.
                let t = history::now();
                for &id in &store.unnamed {
                    let link = unnamed_link(id);
                    h.record(&Event::Solver {
                        t,
                        id,
                        link: link.clone(),
                    })
                    .map_err(io(&hpath, "writing"))?;
                    store.solvers.insert(link, id);
                }
                h.record(&Event::Created {
                    t,
                    n: size.n(),
                    stamped: false,
                })
                .and_then(|_| h.sync())
                .map_err(io(&hpath, "writing"))?;
                store.unnamed.clear();
            }
            store.history = Some(h);
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

    /// Checks every entry against the canonical subproblem at its index and the rules of the
    /// history; sums the solved and collects their solver ids.
    fn scan(&self, layout: &Layout, rules: &Rules) -> Result<(Summary, Solvers), StoreError> {
        let e = &layout.enumerator;
        type Part = (Tally, [u64; 3], Solvers);
        let results: Vec<Result<Part, StoreError>> = layout
            .prefixes
            .par_iter()
            .zip(layout.offsets.par_iter())
            .map(|(&p, &start)| {
                let mut tally = Tally::default();
                let mut census = [0u64; 3];
                let mut used = Solvers::NONE;
                let mut index = start;
                let mut err = None;
                e.for_each_in(p, |sp| {
                    if err.is_none() {
                        match self.check(index, sp, rules) {
                            Ok(Some((count, solver))) => {
                                tally.add(sp.sym, count);
                                used.insert(solver);
                            }
                            Ok(None) => {}
                            Err(x) => err = Some(x),
                        }
                        census[sp.sym.slot()] += 1;
                    }
                    index += 1;
                });
                err.map_or(Ok((tally, census, used)), Err)
            })
            .collect();
        let mut s = Summary {
            subproblems: self.len,
            ..Summary::default()
        };
        let mut used = Solvers::NONE;
        for r in results {
            let (t, c, u) = r?;
            s.solved = s.solved.merge(&t);
            for (total, n) in s.census.iter_mut().zip(c) {
                *total += n;
            }
            used = used.union(&u);
        }
        Ok((s, used))
    }

    /// One entry against the subproblem the canonical order puts at its index and against
    /// the history's rules: its count and solver when solved.
    fn check(&self, index: u64, sp: Subproblem, rules: &Rules) -> Result<Option<(u64, u16)>, StoreError> {
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
        let Some(s) = entry.solution else {
            return Ok(None);
        };
        let count = s
            .true_count()
            .ok()
            .filter(|&c| c == s.count || crate::validate::possible(self.size, c, self.cycles(index)))
            .ok_or_else(|| {
                self.corrupt(
                    index,
                    format!(
                        "count {} disagrees with its digits mod 13 = {}, mod 15 = {}",
                        s.count, s.mod13, s.mod15
                    ),
                )
            })?;
        if rules.known.is_some_and(|k| !k.contains(s.solver)) {
            return Err(self.corrupt(
                index,
                format!(
                    "word 2 names solver {}, which {} never gave out (it would count {count}): a damaged entry, not a result",
                    s.solver,
                    rules.history.display()
                ),
            ));
        }
        if rules.stamped && entry.handed_out.is_none() {
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
            );
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
        self.stamp(index)?;
        self.set_word(index, 1, solution.word());
        self.summary.solved.add(sym, solution.whole());
        Ok(())
    }

    fn correct(&mut self, index: u64, solution: Solution) -> Result<(), StoreError> {
        let entry = self.entry(index)?;
        self.stamp(index)?;
        let old = entry.solution.as_ref().map_or(0, Solution::whole);
        self.set_word(index, 1, solution.word());
        let slot = entry.sym.slot();
        if entry.solution.is_none() {
            self.summary.solved.preplacements[slot] += 1;
        }
        self.summary.solved.solutions[slot] = self.summary.solved.solutions[slot] - old + solution.whole();
        Ok(())
    }

    fn retract(&mut self, index: u64) -> Result<(), StoreError> {
        let entry = self.entry(index)?;
        if let Some(old) = entry.solution {
            self.set_word(index, 1, 0);
            let slot = entry.sym.slot();
            self.summary.solved.preplacements[slot] -= 1;
            self.summary.solved.solutions[slot] -= old.whole();
        }
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
        // Durable before any entry names it: on open, an entry naming an id the history does
        // not know is taken for a damaged one.
        let hpath = history::path_of(&self.path);
        let h = self.history.as_mut().ok_or_else(|| {
            io(&hpath, "recording a solver id in")(std::io::Error::other("the campaign is open to read only"))
        })?;
        h.record(&Event::Solver {
            t: history::now(),
            id,
            link: link.into(),
        })
        .and_then(|_| h.sync())
        .map_err(io(&hpath, "recording a solver id in"))?;
        self.solvers.insert(link.into(), id);
        Ok(id)
    }
}
