//! The file store as the dispatcher uses it: claims stamped into word 1, results into word 2.

use super::{cycles_path, history, io, Access, Event, FileStore};
use crate::store::{Claim, Store, StoreError, Summary};
use queens_core::entry::{Solution, Stamp};
use queens_core::{BoardSize, Symmetry};

impl Store for FileStore {
    fn size(&self) -> BoardSize {
        self.size
    }

    fn summary(&self) -> Summary {
        Summary {
            unchecked: self.len
                - self
                    .pass
                    .checked_entries
                    .load(std::sync::atomic::Ordering::Relaxed),
            ..self.summary
        }
    }

    fn claim(&mut self, max: usize, stamp: Stamp) -> Result<Vec<Claim>, StoreError> {
        let mut out = Vec::new();
        while out.len() < max {
            // Entries behind the cursor withdrawn since go first.
            let index = match self.reopened.pop_front() {
                Some(i) => i,
                None if self.cursor < self.len => {
                    self.cursor += 1;
                    let i = self.cursor - 1;
                    // Wholly solved blocks ahead are passed over without reading them.
                    self.skip_solved();
                    i
                }
                None => break,
            };
            if self.word(index, 1) != 0 {
                continue;
            }
            let (claim, mut entry) = Claim::decode(self.size, index, &self.raw(index))
                .map_err(|x| self.corrupt(index, x.to_string()))?;
            entry.handed_out = Some(stamp);
            let w1 = u64::from_be_bytes(entry.encode()[..8].try_into().expect("8 bytes"));
            self.set_word(index, 0, w1)?;
            let b = self.block_of(index);
            self.outstanding[b] += 1;
            out.push(claim);
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
        self.set_word(index, 1, solution.word())?;
        self.summary.solved.add(sym, solution.whole());
        let b = self.block_of(index);
        self.kept.blocks[b].solved.add(sym, solution.whole());
        self.outstanding[b] = self.outstanding[b].saturating_sub(1);
        Ok(())
    }

    fn correct(&mut self, index: u64, solution: Solution) -> Result<(), StoreError> {
        let entry = self.entry(index)?;
        self.stamp(index)?;
        let old = entry.solution.as_ref().map_or(0, Solution::whole);
        self.set_word(index, 1, solution.word())?;
        let slot = entry.sym.slot();
        let b = self.block_of(index);
        for t in [&mut self.summary.solved, &mut self.kept.blocks[b].solved] {
            if entry.solution.is_none() {
                t.preplacements[slot] += 1;
            }
            t.solutions[slot] = t.solutions[slot] - old + solution.whole();
        }
        Ok(())
    }

    fn retract(&mut self, index: u64) -> Result<(), StoreError> {
        let entry = self.entry(index)?;
        if let Some(old) = entry.solution {
            self.set_word(index, 1, 0)?;
            let slot = entry.sym.slot();
            let b = self.block_of(index);
            for t in [&mut self.summary.solved, &mut self.kept.blocks[b].solved] {
                t.preplacements[slot] -= 1;
                t.solutions[slot] -= old.whole();
            }
        }
        Ok(())
    }

    fn withdraw_solver(&mut self, solver: u16, reason: &str) -> Result<(), StoreError> {
        // Every block is read before its counts are looked at.
        self.check_all(&super::Watch::default())?;
        let mut gone = 0u64;
        for index in 0..self.len {
            let w2 = self.word(index, 1);
            if w2 != 0 && Solution::from_word(w2).solver == solver {
                self.retract(index)?;
                gone += 1;
                // Ahead of the cursor it is claimed in its turn; behind it, first.
                if index < self.cursor {
                    self.reopened.push_back(index);
                }
            }
        }
        tracing::error!(
            solver,
            entries = gone,
            "every count this solver gave in earlier sessions withdrawn, to be computed again: {reason}"
        );
        Ok(())
    }

    fn sync(&mut self) -> Result<(), StoreError> {
        // A damaged entry the background pass found stops the run here.
        self.apply_found()?;
        if self.access == Access::Write {
            self.map.flush().map_err(io(&self.path, "syncing"))?;
            if let Some(c) = &self.cycles {
                c.flush().map_err(io(&cycles_path(&self.path), "syncing"))?;
            }
            self.close_blocks(false)?;
        }
        Ok(())
    }

    fn settle(&mut self) -> Result<(), StoreError> {
        if let Some(t) = self.background.take() {
            let _ = t.join();
        }
        self.apply_found()?;
        if self.access == Access::Write {
            self.close_blocks(false)?;
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
