//! Opening a campaign file: from its summary when the summary is whole and describes this
//! file (the blocks written since the last sync read again, the rest re-read in the
//! background), or with every entry checked against the canonical order of its N.

use super::blocks::{self, BlockReader, Outcome, Pass, Rules};
use super::rebuild::rebuild;
use super::summary::{self, Identity, Summary as Kept, Unusable};
use super::{
    cycles_path, history, io, lock, map_file, size_of, unnamed_link, Access, FileStore, Solvers, Watch,
};
use crate::store::history::{Event, History};
use crate::store::{StoreError, Summary};
use queens_core::entry::ENTRY_BYTES;
use queens_core::{BoardSize, Entry, Enumerator, Tally};
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs::File;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

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
    BoardSize::all()
        .filter(|&s| Entry::decode(s, &first).is_ok())
        .find(|&s| Enumerator::new(s).census().total() == bytes / ENTRY_BYTES as u64)
}

impl FileStore {
    /// Opens a campaign (of N = `expect` when given). `Write` takes the campaign's lock.
    pub fn open(path: &Path, expect: Option<BoardSize>, access: Access) -> Result<Self, StoreError> {
        Self::open_watched(path, expect, access, &Watch::default())
    }

    /// Opens a campaign, telling `watch` what it does: from its summary when that is whole
    /// and current (the blocks written since its last sync read again; a run re-reads the
    /// rest in the background), or with every entry checked against the canonical order of
    /// its N and the summary made anew.
    pub fn open_watched(
        path: &Path,
        expect: Option<BoardSize>,
        access: Access,
        watch: &Watch,
    ) -> Result<Self, StoreError> {
        let file = File::options()
            .read(true)
            .write(access == Access::Write)
            .open(path)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => StoreError::NoCampaign { path: path.into() },
                _ => io(path, "opening the campaign")(e),
            })?;
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
        let hpath = history::path_of(path);
        let mut solvers = HashMap::new();
        let mut created = None;
        for e in history::read(&hpath).map_err(io(&hpath, "reading"))? {
            match e {
                Event::Solver { id, link, .. } => {
                    solvers.insert(link, id);
                }
                Event::Created { stamped, .. } => created = Some(stamped),
                _ => {}
            }
        }
        let mut named = Solvers::NONE;
        for &id in solvers.values() {
            named.insert(id);
        }
        let rules = Rules {
            known: created.map(|_| named),
            stamped: created == Some(true),
            history: hpath.clone(),
        };
        let spath = summary::path_of(path);
        // A summary is used only for a campaign whose history names its solvers (one of
        // ours, or an adopted one): a Queens@TUD database's ids are found by a full check.
        let kept = match created {
            None => Err(Unusable::Missing),
            Some(_) => Kept::read(&spath).and_then(|k| usable(k, path, len, expect)),
        };
        let size = match &kept {
            Ok(k) => BoardSize::new(k.n)?,
            Err(_) => match expect {
                Some(s) if Enumerator::new(s).census().total() == len => s,
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
                    found
                }
            },
        };
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
                return Err(StoreError::CyclesLength {
                    path: cpath,
                    bytes,
                    expected: len * 8,
                });
            }
            Some(map_file(&f, access).map_err(io(&cpath, "mapping"))?)
        } else {
            None
        };
        let cycles_file = cpath
            .exists()
            .then(|| File::open(&cpath))
            .transpose()
            .map_err(io(&cpath, "opening"))?;
        let rebuilt = kept.as_ref().err().map(|why| why.to_string());
        let reader = BlockReader {
            file: &file,
            path,
            size,
            rules: &rules,
            cycles: cycles_file.as_ref(),
        };
        let (kept, used, pass) = match kept {
            Ok(k) => {
                let pass = Pass::new(k.blocks.len());
                let k = reread_open(k, &reader, &pass, watch)?;
                (k, Solvers::NONE, pass)
            }
            Err(why) => {
                if !matches!(why, Unusable::Missing) || created.is_some() {
                    tracing::warn!(
                        "{}: not used, {why}: every entry of {} is checked instead",
                        spath.display(),
                        path.display()
                    );
                }
                let (k, used) = rebuild(&reader, len, watch)?;
                let pass = Pass::new(k.blocks.len());
                for (b, _) in k.blocks.iter().enumerate() {
                    pass.mark_checked(b, k.range(b).end - k.range(b).start);
                }
                (k, used, pass)
            }
        };
        let solved = kept.solved();
        let unchecked = len - pass.checked_entries.load(Ordering::Relaxed);
        let blocks = kept.blocks.len();
        let mut store = Self {
            path: path.into(),
            size,
            map,
            len,
            access,
            cursor: 0,
            reopened: Default::default(),
            summary: Summary {
                subproblems: len,
                solved,
                census: kept.census,
                unchecked,
            },
            cycles,
            history: None,
            solvers,
            unnamed: Vec::new(),
            file,
            kept,
            rules,
            pass: Arc::new(pass),
            background: None,
            outstanding: vec![0; blocks],
            cycles_room: vec![false; blocks],
            written: vec![false; blocks],
            broken: None,
            recorded_checked: false,
        };
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
                store.rules.known = Some(store.solvers.values().fold(Solvers::NONE, |mut s, &id| {
                    s.insert(id);
                    s
                }));
            }
            store.history = Some(h);
            if let Some(why) = rebuilt {
                tracing::info!("{}: made anew ({why})", spath.display());
            }
            // From here on this session may write: a kill leaves the summary marked so.
            store.kept.clean = false;
            store.write_summary()?;
            store.start_background(cycles_file)?;
        }
        store.skip_solved();
        Ok(store)
    }
}

/// A summary that describes the campaign at `path` as it is, or why it does not.
fn usable(k: Kept, path: &Path, len: u64, expect: Option<BoardSize>) -> Result<Kept, Unusable> {
    let now = Identity::of(path, &history::path_of(path)).map_err(Unusable::Io)?;
    if k.entries != len || expect.is_some_and(|s| s.n() != k.n) || k.block_entries == 0 {
        return Err(Unusable::Other(format!(
            "a campaign of N = {} with {} entries",
            k.n, k.entries
        )));
    }
    if !k.identity.same_file(&now) {
        return Err(Unusable::Other(
            "another file (the campaign was copied, restored or made anew)".into(),
        ));
    }
    // A clean stop wrote it last: the file and its history must be as it left them.
    if k.clean && (k.identity != now) {
        return Err(Unusable::Stale);
    }
    Ok(k)
}

/// Reads again the blocks a summary has open (written since its last sync, or a session was
/// killed while it held them): each entry checked, its fixed bits against the block's
/// canonical digest, its counts summed anew.
fn reread_open(mut k: Kept, reader: &BlockReader, pass: &Pass, watch: &Watch) -> Result<Kept, StoreError> {
    let open: Vec<usize> = (0..k.blocks.len()).filter(|&b| k.blocks[b].open).collect();
    if open.is_empty() {
        return Ok(k);
    }
    let entries: u64 = open.iter().map(|&b| k.range(b).end - k.range(b).start).sum();
    watch.begin("reading the blocks written since the last sync", entries);
    let scans: Vec<_> = open
        .par_iter()
        .map(|&b| {
            let r = k.range(b);
            let s = reader.scan(r.clone(), Some(k.blocks[b].canon));
            watch.done.fetch_add(r.end - r.start, Ordering::Relaxed);
            s
        })
        .collect();
    for (&b, s) in open.iter().zip(scans) {
        k.blocks[b].solved = s?.solved;
        pass.mark_checked(b, k.range(b).end - k.range(b).start);
    }
    Ok(k)
}

impl FileStore {
    /// Starts the pass that re-reads, in the background, every block trusted from the
    /// summary.
    fn start_background(&mut self, cycles: Option<File>) -> Result<(), StoreError> {
        if self.pass.checked_entries.load(Ordering::Relaxed) == self.len {
            return Ok(());
        }
        let file = File::open(&self.path).map_err(io(&self.path, "opening"))?;
        let bg = blocks::Background {
            file,
            cycles,
            path: self.path.clone(),
            size: self.size,
            rules: self.rules.clone(),
            blocks: (0..self.kept.blocks.len())
                .map(|b| (self.kept.range(b), self.kept.blocks[b]))
                .collect(),
        };
        self.background = Some(blocks::spawn(bg, self.pass.clone()));
        Ok(())
    }

    /// Applies what the background pass (or a check before a write) found: a block changed
    /// since the summary is counted as it is now; a damaged entry stops the store.
    pub(super) fn apply_found(&mut self) -> Result<(), StoreError> {
        if let Some(why) = &self.broken {
            return Err(StoreError::Broken {
                path: self.path.clone(),
                why: why.clone(),
            });
        }
        let found = std::mem::take(&mut *self.pass.found.lock().unwrap_or_else(|e| e.into_inner()));
        for (b, outcome) in found {
            match outcome {
                Ok(Outcome::Same) => {}
                Ok(Outcome::Changed(scan)) => {
                    let was = self.kept.blocks[b];
                    if scan.solved != was.solved {
                        tracing::warn!(
                            "{}: entries {:?} changed since the summary was written ({} solved there, {} now): counted as they are now",
                            self.path.display(),
                            self.kept.range(b),
                            was.solved.subproblems(),
                            scan.solved.subproblems()
                        );
                        self.summary.solved = sub(self.summary.solved, &was.solved).merge(&scan.solved);
                        // Entries that read as unsolved now behind the cursor are claimed again.
                        let r = self.kept.range(b);
                        if r.start < self.cursor {
                            for i in r.start..r.end.min(self.cursor) {
                                if self.word(i, 1) == 0 {
                                    self.reopened.push_back(i);
                                }
                            }
                        }
                    }
                    let blk = &mut self.kept.blocks[b];
                    blk.solved = scan.solved;
                    if !blk.open {
                        blk.bytes = scan.bytes;
                    }
                }
                Err(e) => {
                    self.broken = Some(e.to_string());
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// Runs `f` with a reader of this campaign's blocks (and of its cycle counts, when it
    /// has them).
    pub(super) fn with_reader<T>(&self, f: impl FnOnce(&BlockReader) -> T) -> T {
        let cycles = File::open(cycles_path(&self.path)).ok();
        f(&BlockReader {
            file: &self.file,
            path: &self.path,
            size: self.size,
            rules: &self.rules,
            cycles: cycles.as_ref(),
        })
    }

    /// Makes sure block `b` has been read this session before this host writes it.
    pub(super) fn ensure_checked(&mut self, b: usize) -> Result<(), StoreError> {
        if self.pass.take(b) {
            let r = self.kept.range(b);
            let outcome = self.with_reader(|reader| reader.recheck(r.clone(), &self.kept.blocks[b]));
            self.pass.put(b, r.end - r.start, outcome);
        } else {
            self.pass.wait(b);
        }
        self.apply_found()
    }

    /// Moves the claim cursor past blocks the summary holds as wholly solved.
    pub(super) fn skip_solved(&mut self) {
        let be = self.kept.block_entries;
        while self.cursor < self.len {
            let b = (self.cursor / be) as usize;
            let r = self.kept.range(b);
            if self.cursor == r.start && self.kept.blocks[b].solved.subproblems() == r.end - r.start {
                self.cursor = r.end;
            } else {
                break;
            }
        }
    }

    /// Every entry checked against the canonical order and the history's rules, and summed
    /// anew, whatever the summary says (`db stats --recount`, `db verify --entries`).
    pub fn recount(&self, watch: &Watch) -> Result<Summary, StoreError> {
        let (k, _) = self.with_reader(|reader| rebuild(reader, self.len, watch))?;
        Ok(Summary {
            subproblems: self.len,
            solved: k.solved(),
            census: k.census,
            unchecked: 0,
        })
    }

    /// The summary's record of the campaign's blocks.
    pub fn kept(&self) -> &Kept {
        &self.kept
    }

    /// Reads every block not yet read this session, on all threads, and applies what it
    /// finds (`db verify --entries` wants all of it; a withdrawal writes everywhere).
    pub fn check_all(&mut self, watch: &Watch) -> Result<(), StoreError> {
        let todo: Vec<usize> = (0..self.kept.blocks.len())
            .filter(|&b| self.pass.take(b))
            .collect();
        let entries = todo
            .iter()
            .map(|&b| self.kept.range(b).end - self.kept.range(b).start)
            .sum();
        watch.begin("reading every block again", entries);
        self.with_reader(|reader| {
            todo.par_iter().for_each(|&b| {
                let r = self.kept.range(b);
                let outcome = reader.recheck(r.clone(), &self.kept.blocks[b]);
                watch.done.fetch_add(r.end - r.start, Ordering::Relaxed);
                self.pass.put(b, r.end - r.start, outcome);
            })
        });
        for b in 0..self.kept.blocks.len() {
            self.pass.wait(b);
        }
        self.apply_found()
    }
}

/// `t` less `o`, per class.
fn sub(mut t: Tally, o: &Tally) -> Tally {
    for i in 0..3 {
        t.preplacements[i] -= o.preplacements[i];
        t.solutions[i] -= o.solutions[i];
    }
    t
}
