//! Opening a campaign file: every entry checked against the canonical order of its N and
//! the rules of its history, the solved ones summed.

use super::{cycles_path, history, io, lock, map_file, size_of, unnamed_link, Access, FileStore, Solvers};
use crate::store::history::{Event, History};
use crate::store::{StoreError, Summary};
use queens_core::entry::ENTRY_BYTES;
use queens_core::enumerate::Prefix;
use queens_core::{BoardSize, Entry, Enumerator, Subproblem, Tally};
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

/// What the history says a solved entry must be, checked for each one on open: a flipped
/// bit that makes an unsolved entry read as solved is named, never counted.
struct Rules {
    /// The solver ids the history names, when it knows them all (it holds `Created`).
    known: Option<Solvers>,
    /// Every solved entry was handed out first.
    stamped: bool,
    history: PathBuf,
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

impl FileStore {
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
            reopened: Default::default(),
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
}
