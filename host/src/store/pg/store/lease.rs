//! Where a store's work comes from: blocks it leases, other hosts' counts it takes to check,
//! entries withdrawn from its own blocks, each entry queued as a claim; and the leases of
//! this workstation's ended processes, released.

use super::PgStore;
use crate::store::pg::rows::{check_block, read_solvers};
use crate::store::pg::{block_of, db_err};
use crate::store::{Claim, StoreError};
use queens_core::entry::ENTRY_BYTES;
use queens_core::Entry;

/// The block of a queued claim that is another host's count to check (no lease of ours).
pub(super) const CHECK: i32 = -1;

/// Whether process `pid` of this machine has ended (no signal sent: only asks whether it
/// exists).
fn ended(pid: i32) -> bool {
    use nix::sys::signal::kill;
    kill(nix::unistd::Pid::from_raw(pid), None) == Err(nix::errno::Errno::ESRCH)
}

impl PgStore {
    /// Entry `index` from its 16 bytes, with the claim of its subproblem; `block` names the
    /// block it was read from, if one, in the error for a corrupted entry.
    fn claim_of(
        &self,
        index: u64,
        block: Option<i32>,
        raw: &[u8; ENTRY_BYTES],
    ) -> Result<(Claim, Entry), StoreError> {
        Claim::decode(self.size, index, raw).map_err(|x| StoreError::Campaign {
            db: self.target.shown.clone(),
            what: match block {
                Some(block) => format!("entry {index} (block {block}) is corrupted: {x}"),
                None => format!("entry {index} is corrupted: {x}"),
            },
        })
    }

    /// The claim of entry `index` from its word 1 alone (as the server hands out entries to
    /// check or withdrawn: word 2 is not needed to compute one).
    fn claim_of_word1(&self, index: u64, block: Option<i32>, w1: i64) -> Result<Claim, StoreError> {
        let mut raw = [0u8; ENTRY_BYTES];
        raw[..8].copy_from_slice(&w1.to_be_bytes());
        Ok(self.claim_of(index, block, &raw)?.0)
    }

    /// Leases held by processes of this workstation that are gone (a crash, a kill): their
    /// blocks need not wait for the leases to expire. (Workstations sharing a campaign need
    /// distinct host names, as they do for their solver names.)
    pub(super) fn release_dead(&mut self) -> Result<(), StoreError> {
        let mine = format!("{} pid ", self.host);
        let rows = self
            .client
            .query(
                "SELECT DISTINCT holder FROM queens_block
                 WHERE n = $1 AND lease_until > now() AND starts_with(holder, $2)",
                &[&self.n, &mine],
            )
            .map_err(self.err("reading leases"))?;
        let dead: Vec<String> = rows
            .iter()
            .map(|r| r.get::<_, String>("holder"))
            .filter(|h| {
                let pid = h[mine.len()..].split('.').next().unwrap_or("");
                pid.parse::<i32>().is_ok_and(ended)
            })
            .collect();
        if !dead.is_empty() {
            let freed: i64 = self
                .client
                .query_one("SELECT queens_release($1, $2) AS freed", &[&self.n, &dead])
                .map_err(self.err("releasing leases"))?
                .get("freed");
            tracing::info!(
                blocks = freed,
                "leases of ended processes on this workstation released: {dead:?}"
            );
        }
        Ok(())
    }

    /// Leases the next open block (unleased, or its lease expired) and queues its unsolved
    /// entries. False when no block is free now.
    pub(super) fn lease_block(&mut self) -> Result<bool, StoreError> {
        let held: Vec<i64> = self.leases.values().copied().collect();
        let row = self
            .client
            .query_opt(
                "SELECT o_block AS block, o_first AS first, o_lease AS lease,
                        o_entries AS entries, o_solved AS solved
                 FROM queens_lease($1, $2, $3, $4)",
                &[&self.n, &self.who, &self.lease_ttl.as_secs_f64(), &held],
            )
            .map_err(self.err("leasing a block"))?;
        let Some(row) = row else {
            return Ok(false);
        };
        let block: i32 = row.get("block");
        let first = row.get::<_, i64>("first") as u64;
        let entries: Vec<u8> = row.get("entries");
        let lease: i64 = row.get("lease");
        tracing::debug!(block, lease, "block leased");
        check_block(&self.target, block, first, &entries, row.get("solved"), || {
            read_solvers(&mut self.client, &self.target, self.n).unwrap_or_default()
        })?;
        // Our own lease that lapsed and came back: its entries are queued or running already
        // (as a rule: see `requeue_held`).
        if self.leases.insert(block, lease).is_some() {
            return Ok(true);
        }
        self.queue_unsolved(block, first, &entries)?;
        Ok(true)
    }

    /// Queues the entries of leased block `block` (its first entry `first`) that have no
    /// count, stored or waiting to be committed. How many it queued.
    fn queue_unsolved(&mut self, block: i32, first: u64, entries: &[u8]) -> Result<usize, StoreError> {
        let before = self.queue.len();
        for (k, raw) in entries.chunks_exact(ENTRY_BYTES).enumerate() {
            let index = first + k as u64;
            let (claim, entry) = self.claim_of(index, Some(block), raw.try_into().expect("16 bytes"))?;
            if entry.solution.is_none() && !self.buffered.contains(&index) {
                self.queue.push_back((block, claim));
            }
        }
        Ok(self.queue.len() - before)
    }

    /// With nothing queued or running, queues again the unsolved entries of the blocks this
    /// store still leases. A lease that lapsed and came back is not queued again (its entries
    /// are queued or running), but results sent under the lapsed lease while another host
    /// held the block are refused: unsolved, in no queue, the block held and renewed by us
    /// to the end of time. (Seen once in three runs of `postgres`'s three hosts with 2 s
    /// leases.) The dispatcher asks only once all its work is back, so nothing is computed
    /// twice.
    pub(super) fn requeue_held(&mut self) -> Result<(), StoreError> {
        if !self.queue.is_empty() || self.leases.is_empty() {
            return Ok(());
        }
        let held: Vec<i32> = self.leases.keys().copied().collect();
        let rows = self
            .client
            .query(
                "SELECT block, first, entries FROM queens_block
                 WHERE n = $1 AND block = ANY ($2) AND solved < len",
                &[&self.n, &held],
            )
            .map_err(self.err("reading the blocks leased"))?;
        for r in rows {
            let block: i32 = r.get("block");
            let first = r.get::<_, i64>("first") as u64;
            let queued = self.queue_unsolved(block, first, r.get("entries"))?;
            if queued > 0 {
                tracing::warn!(
                    block,
                    queued,
                    "unsolved entries of a block leased here were in no queue: queued again"
                );
            }
        }
        Ok(())
    }

    /// Takes up to `max` counts of other hosts chosen for recomputation and queues them
    /// (no block lease: their results are compared at the commit, never counted again).
    /// False when there are none for this host now.
    pub(super) fn lease_checks(&mut self, max: usize) -> Result<bool, StoreError> {
        let rows = self
            .client
            .query(
                "SELECT o_entry AS entry, o_w1 AS w1 FROM queens_lease_checks($1, $2, $3, $4)",
                &[
                    &self.n,
                    &self.who,
                    &self.lease_ttl.as_secs_f64(),
                    &(max.min(1 << 20) as i32),
                ],
            )
            .map_err(self.err("taking counts to check"))?;
        let mut queued = false;
        for r in rows {
            let index = r.get::<_, i64>("entry") as u64;
            if self.buffered.contains(&index) || !self.checking.insert(index) {
                continue;
            }
            let claim = self.claim_of_word1(index, None, r.get("w1"))?;
            self.queue.push_back((CHECK, claim));
            queued = true;
        }
        Ok(queued)
    }

    /// Withdraws every count of each solver caught lying, in every session (one transaction
    /// each, after the commit of this session's own retractions). Withdrawn entries of blocks
    /// this store leases are queued again; the others' blocks are open to every host.
    pub(super) fn withdraw(&mut self) -> Result<(), StoreError> {
        while let Some((solver, reason)) = self.withdrawals.first().cloned() {
            let rows = self
                .client
                .query(
                    "SELECT o_entry AS entry, o_w1 AS w1 FROM queens_withdraw($1, $2, $3, $4)",
                    &[&self.n, &self.who, &(solver as i32), &reason],
                )
                .map_err(db_err(&self.target, "withdrawing a solver's counts"))?;
            self.withdrawals.remove(0);
            tracing::error!(
                solver,
                entries = rows.len(),
                "every count this solver gave in earlier sessions withdrawn, to be computed again"
            );
            for r in rows {
                let index = r.get::<_, i64>("entry") as u64;
                let (block, _) = block_of(index);
                if !self.leases.contains_key(&block) {
                    continue;
                }
                let claim = self.claim_of_word1(index, Some(block), r.get("w1"))?;
                self.queue.push_back((block, claim));
            }
            self.refresh()?;
        }
        Ok(())
    }
}
