//! Committing: what a store has recorded since the last sync, sent in one `queens_commit`
//! call (one transaction on the server), on this connection or on a thread of its own, and
//! what the answer changes here.

use super::PgStore;
use crate::store::pg::db_err;
use crate::store::pg::rows::summary_of;
use crate::store::pg_conn::Target;
use crate::store::{StoreError, Summary};
use std::collections::{BTreeMap, HashSet};
use std::sync::mpsc;
use std::time::Duration;

/// A result waiting for the next sync: entry, word 2, cycles.
pub(super) type Returned = (u64, u64, Option<u64>);

/// What one `queens_commit` call sends: the leases to renew (block → lease), results,
/// corrections and history events.
#[derive(Default)]
pub(super) struct Batch {
    leases: BTreeMap<i32, i64>,
    results: Vec<Returned>,
    corrections: Vec<(u64, u64)>,
    events: Vec<String>,
}

/// What a commit answered: the leases kept, the campaign's totals, and how many of the
/// results were compared with another host's count (agreed, disputed) or refused.
pub(super) struct Answer {
    kept: HashSet<i64>,
    summary: Summary,
    agreed: u64,
    disputed: u64,
    refused: i64,
}

/// Runs `queens_commit` for `batch` on `client`: one call, one transaction on the server.
fn commit_batch(
    client: &mut postgres::Client,
    target: &Target,
    n: i32,
    who: &str,
    ttl: Duration,
    batch: &Batch,
) -> Result<Answer, StoreError> {
    let lease_ids: Vec<i64> = batch.leases.values().copied().collect();
    // Sorted by entry (stably: of two results for one entry the first still comes first),
    // so that the server finds each block's results together.
    let mut order: Vec<usize> = (0..batch.results.len()).collect();
    order.sort_by_key(|&k| batch.results[k].0);
    let sorted = order.iter().map(|&k| &batch.results[k]);
    let r_entry: Vec<i64> = sorted.clone().map(|r| r.0 as i64).collect();
    let r_word: Vec<i64> = sorted.clone().map(|r| r.1 as i64).collect();
    let r_cycles: Vec<Option<Vec<u8>>> = sorted
        .map(|r| r.2.map(|c| c.max(1).to_le_bytes().to_vec()))
        .collect();
    let c_entry: Vec<i64> = batch.corrections.iter().map(|c| c.0 as i64).collect();
    let c_word: Vec<i64> = batch.corrections.iter().map(|c| c.1 as i64).collect();
    let row = client
        .query_one(
            "SELECT o_kept AS kept, o_subproblems AS subproblems, o_census AS census,
                    o_solved AS solved, o_solutions AS solutions,
                    o_agreed AS agreed, o_disputed AS disputed, o_refused AS refused
             FROM queens_commit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            &[
                &n,
                &who,
                &ttl.as_secs_f64(),
                &lease_ids,
                &r_entry,
                &r_word,
                &r_cycles,
                &c_entry,
                &c_word,
                &batch.events,
            ],
        )
        .map_err(db_err(target, "committing results"))?;
    Ok(Answer {
        kept: row.get::<_, Vec<i64>>("kept").into_iter().collect(),
        summary: summary_of(&row),
        agreed: row.get::<_, i64>("agreed") as u64,
        disputed: row.get::<_, i64>("disputed") as u64,
        refused: row.get("refused"),
    })
}

/// A thread with a connection of its own that commits one batch at a time, so that the run
/// loop keeps feeding its boards while the server merges (`PgStore::sync_soon`).
pub(super) struct Committer {
    jobs: mpsc::Sender<Batch>,
    answers: mpsc::Receiver<(Batch, Result<Answer, StoreError>)>,
}

impl Committer {
    fn start(target: &Target, n: i32, who: &str, ttl: Duration) -> Result<Self, StoreError> {
        let shown = target.shown.clone();
        let mut client = target.connect().map_err(db_err(target, "connecting"))?;
        let (jobs, job_rx) = mpsc::channel::<Batch>();
        let (answer_tx, answers) = mpsc::channel();
        let (target, who) = (target.clone(), who.to_owned());
        std::thread::Builder::new()
            .name("pg-commit".into())
            .spawn(move || {
                for batch in job_rx {
                    // A lost connection is made again for the next batch.
                    if client.is_closed() {
                        if let Ok(c) = target.connect() {
                            client = c;
                        }
                    }
                    let r = commit_batch(&mut client, &target, n, &who, ttl, &batch);
                    if answer_tx.send((batch, r)).is_err() {
                        return;
                    }
                }
            })
            .map_err(|e| StoreError::Campaign {
                db: shown,
                what: format!("no thread for commits: {e}"),
            })?;
        Ok(Self { jobs, answers })
    }
}

impl PgStore {
    /// The results, corrections and events recorded since the last batch, with the leases
    /// held now, taken out to be committed.
    fn take_batch(&mut self) -> Batch {
        Batch {
            leases: self.leases.clone(),
            results: std::mem::take(&mut self.results),
            corrections: std::mem::take(&mut self.corrections),
            events: std::mem::take(&mut self.events),
        }
    }

    /// A batch that failed: its contents go back in front of what was recorded since, to
    /// be committed again.
    fn put_back(&mut self, mut batch: Batch) {
        batch.results.append(&mut self.results);
        self.results = batch.results;
        batch.corrections.append(&mut self.corrections);
        self.corrections = batch.corrections;
        batch.events.append(&mut self.events);
        self.events = batch.events;
    }

    /// A batch committed: only now are its results let go, and the leases it sent that the
    /// server did not keep given up (with their blocks' unsent entries).
    fn committed(&mut self, batch: Batch, answer: Answer) {
        if answer.refused > 0 {
            tracing::warn!(
                refused = answer.refused,
                "results for entries of blocks another host holds now (our lease had lapsed) were not counted"
            );
        }
        self.summary = answer.summary;
        self.checks.agreed += answer.agreed;
        self.checks.disputed += answer.disputed;
        for (index, _, _) in &batch.results {
            self.checking.remove(index);
            self.buffered.remove(index);
        }
        // (An entry given again since the batch left is still waiting.)
        for (index, _, _) in &self.results {
            self.buffered.insert(*index);
        }
        let lost: Vec<i32> = batch
            .leases
            .iter()
            .filter(|(b, id)| !answer.kept.contains(id) && self.leases.get(b) == Some(id))
            .map(|(&b, _)| b)
            .collect();
        for b in lost {
            self.leases.remove(&b);
            let before = self.queue.len();
            self.queue.retain(|(qb, _)| *qb != b);
            let dropped = before - self.queue.len();
            if dropped > 0 {
                tracing::warn!(
                    block = b,
                    dropped,
                    "lease lost (it lapsed and another host took the block, or a withdrawal reopened the block); its unsent entries dropped"
                );
            }
        }
    }

    /// One call, one transaction on the server: buffered results merged into their blocks,
    /// leases renewed, totals added to, history and disputes written (`queens_commit`, which
    /// decides what lands: the host only proposes).
    pub(super) fn commit(&mut self) -> Result<(), StoreError> {
        let batch = self.take_batch();
        match commit_batch(
            &mut self.client,
            &self.target,
            self.n,
            &self.who,
            self.lease_ttl,
            &batch,
        ) {
            Ok(answer) => {
                self.committed(batch, answer);
                Ok(())
            }
            Err(e) => {
                // Not committed: the batch is simply sent again.
                self.put_back(batch);
                Err(e)
            }
        }
    }

    /// Hands what was recorded since the last batch to the background committer (started
    /// when there is none yet), unless a batch is with it now.
    pub(super) fn commit_in_background(&mut self) -> Result<(), StoreError> {
        if self.committer.is_none() {
            match Committer::start(&self.target, self.n, &self.who, self.lease_ttl) {
                Ok(c) => self.committer = Some(c),
                Err(e) => return self.transient(e),
            }
        }
        let batch = self.take_batch();
        let committer = self.committer.as_ref().expect("started above");
        if let Err(mpsc::SendError(batch)) = committer.jobs.send(batch) {
            self.put_back(batch);
            self.committer = None;
            return Ok(());
        }
        self.in_flight = true;
        Ok(())
    }

    /// The answer to the batch with the background committer, if it came (waiting for it
    /// when `wait`). Errors are those of `transient`: fatal ones only.
    pub(super) fn collect(&mut self, wait: bool) -> Result<(), StoreError> {
        if !self.in_flight {
            return Ok(());
        }
        let answers = &self.committer.as_ref().expect("a committer with a batch").answers;
        let got = if wait {
            answers.recv().ok()
        } else {
            match answers.try_recv() {
                Ok(a) => Some(a),
                Err(mpsc::TryRecvError::Empty) => return Ok(()),
                Err(mpsc::TryRecvError::Disconnected) => None,
            }
        };
        self.in_flight = false;
        let Some((batch, r)) = got else {
            return Err(StoreError::Campaign {
                db: self.target.shown.clone(),
                what: "the commit thread ended".into(),
            });
        };
        match r {
            Ok(answer) => {
                self.committed(batch, answer);
                Ok(())
            }
            Err(e) => {
                self.put_back(batch);
                self.transient(e)
            }
        }
    }
}
