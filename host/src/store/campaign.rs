//! A campaign to read, wherever it is kept: a file, or a shared campaign's database
//! (`postgres://…`), for `db verify` and `db plot`.

use super::file::{Access, FileStore};
use super::{pg, Location, Store, StoreError, Summary};
use crate::plot::{Binner, Panel};
use queens_core::{BoardSize, Entry};
use std::collections::HashMap;

pub enum Campaign {
    File(Box<FileStore>),
    Shared {
        reader: Box<pg::Reader>,
        /// The database, as it is shown.
        db: String,
    },
}

impl Campaign {
    /// Opens `campaign` to read; `size` chooses among a database's campaigns (see
    /// [`pg::which`]).
    pub fn open(campaign: &Location, size: Option<BoardSize>) -> Result<Self, StoreError> {
        match campaign {
            Location::File(path) => {
                let file = FileStore::open(path, None, Access::Read)?;
                Ok(Campaign::File(Box::new(file)))
            }
            Location::Postgres(db) => {
                let target = &db.target()?;
                let mut client = pg::connect(target)?;
                let size = pg::which(&mut client, target, size)?;
                Ok(Campaign::Shared {
                    reader: Box::new(pg::Reader::open(client, target, size)?),
                    db: target.shown.clone(),
                })
            }
        }
    }

    /// The solver ids of host role `role` (a shared campaign's; a file has no roles).
    pub fn solvers_of(&mut self, role: &str) -> Result<Vec<u16>, StoreError> {
        match self {
            Campaign::File(_) => Ok(Vec::new()),
            Campaign::Shared { reader, .. } => reader.solvers_of(role),
        }
    }

    /// The file or the database, as it is shown.
    pub fn name(&self) -> String {
        match self {
            Campaign::File(f) => f.path().display().to_string(),
            Campaign::Shared { db, .. } => db.clone(),
        }
    }

    pub fn summary(&self) -> Summary {
        match self {
            Campaign::File(f) => f.summary(),
            Campaign::Shared { reader, .. } => reader.summary(),
        }
    }

    pub fn size(&self) -> BoardSize {
        match self {
            Campaign::File(f) => f.size(),
            Campaign::Shared { reader, .. } => reader.size(),
        }
    }

    pub fn entry(&mut self, index: u64) -> Result<Entry, StoreError> {
        match self {
            Campaign::File(f) => f.entry(index),
            Campaign::Shared { reader, .. } => reader.entry(index),
        }
    }

    /// The cycle count recorded for an entry, if any.
    pub fn cycles(&mut self, index: u64) -> Result<Option<u64>, StoreError> {
        Ok(match self {
            Campaign::File(f) => f.cycles(index),
            Campaign::Shared { reader, .. } => reader.cycles(index)?,
        })
    }

    pub fn has_cycles(&self) -> bool {
        match self {
            Campaign::File(f) => f.has_cycles(),
            Campaign::Shared { reader, .. } => reader.has_cycles(),
        }
    }

    /// The links behind the solver ids, by id.
    pub fn solvers(&self) -> HashMap<u16, String> {
        match self {
            Campaign::File(f) => f.solvers().into_iter().collect(),
            Campaign::Shared { reader, .. } => reader.solvers().iter().cloned().collect(),
        }
    }

    /// The picture's panels, every entry read in order: solutions per subproblem binned into
    /// `columns`, and the cycles when any are known.
    pub fn panels(&mut self, columns: usize) -> Result<Vec<Panel>, StoreError> {
        let len = self.summary().subproblems;
        let mut sol = Binner::new(len, columns);
        let mut cyc = Binner::new(len, columns);
        for i in 0..len {
            let e = self.entry(i)?;
            if let Some(s) = e.solution {
                sol.add(i, s.true_count().unwrap_or(s.count));
            }
            if let Some(c) = self.cycles(i)? {
                cyc.add(i, c);
            }
        }
        let mut panels = vec![sol.into_panel("solutions")];
        if self.has_cycles() {
            panels.push(cyc.into_panel("cycles"));
        }
        Ok(panels)
    }
}
