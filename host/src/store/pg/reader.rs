//! Random access to a shared campaign's entries, for `db verify` and `db plot`.

use super::rows::{check_block, read_solvers, read_summary};
use super::{block_of, db_err};
use crate::store::pg_conn::Target;
use crate::store::{StoreError, Summary};
use queens_core::entry::ENTRY_BYTES;
use queens_core::{BoardSize, Entry};

/// Random access to a shared campaign's entries, a block at a time (the last one read is
/// kept, so a scan in order costs one query per block): for `db verify` and `db plot`.
pub struct Reader {
    client: postgres::Client,
    target: Target,
    size: BoardSize,
    summary: Summary,
    solvers: Vec<(u16, String)>,
    has_cycles: bool,
    block: Option<(i32, Vec<u8>, Option<Vec<u8>>)>,
}

impl Reader {
    /// Reads the campaign of `size` through `client` (from [`super::connect`]).
    pub fn open(mut client: postgres::Client, target: &Target, size: BoardSize) -> Result<Self, StoreError> {
        let n = size.n() as i32;
        let summary = read_summary(&mut client, target, n)?;
        let solvers = read_solvers(&mut client, target, n)?;
        let has_cycles = client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM queens_block WHERE n = $1 AND cycles IS NOT NULL)",
                &[&n],
            )
            .map_err(db_err(target, "reading entries"))?
            .get(0);
        Ok(Self {
            client,
            target: target.clone(),
            size,
            summary,
            solvers,
            has_cycles,
            block: None,
        })
    }

    pub fn summary(&self) -> Summary {
        self.summary
    }

    pub fn size(&self) -> BoardSize {
        self.size
    }

    pub fn solvers(&self) -> &[(u16, String)] {
        &self.solvers
    }

    pub fn has_cycles(&self) -> bool {
        self.has_cycles
    }

    /// The solver ids of host role `role`.
    pub fn solvers_of(&mut self, role: &str) -> Result<Vec<u16>, StoreError> {
        super::solvers_of(&mut self.client, &self.target, self.size, role)
    }

    /// The block holding `index`, read when it is not the one at hand; the offset in it.
    fn load(&mut self, index: u64) -> Result<usize, StoreError> {
        if index >= self.summary.subproblems {
            return Err(StoreError::Index {
                index,
                len: self.summary.subproblems,
            });
        }
        let (block, off) = block_of(index);
        if self.block.as_ref().is_none_or(|b| b.0 != block) {
            let r = self
                .client
                .query_one(
                    "SELECT entries, cycles, solved, first FROM queens_block WHERE n = $1 AND block = $2",
                    &[&(self.size.n() as i32), &block],
                )
                .map_err(db_err(&self.target, "reading entries"))?;
            let entries: Vec<u8> = r.get(0);
            check_block(
                &self.target,
                block,
                r.get::<_, i64>(3) as u64,
                &entries,
                r.get(2),
                || self.solvers.clone(),
            )?;
            self.block = Some((block, entries, r.get(1)));
        }
        Ok(off)
    }

    pub fn entry(&mut self, index: u64) -> Result<Entry, StoreError> {
        let off = self.load(index)?;
        let (_, entries, _) = self.block.as_ref().expect("loaded");
        let raw = entries
            .get(off * ENTRY_BYTES..(off + 1) * ENTRY_BYTES)
            .ok_or_else(|| StoreError::Campaign {
                db: self.target.shown.clone(),
                what: format!("the block of entry {index} is short"),
            })?;
        Entry::decode(self.size, raw.try_into().expect("16 bytes")).map_err(|x| StoreError::Campaign {
            db: self.target.shown.clone(),
            what: format!("entry {index} is corrupted: {x}"),
        })
    }

    pub fn cycles(&mut self, index: u64) -> Result<Option<u64>, StoreError> {
        let off = self.load(index)?;
        let (_, _, cycles) = self.block.as_ref().expect("loaded");
        Ok(cycles
            .as_ref()
            .and_then(|c| c.get(off * 8..off * 8 + 8))
            .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
            .filter(|&c| c != 0))
    }
}
