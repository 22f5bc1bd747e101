//! The store the dispatcher leases blocks from and commits results to (see the module
//! above for how hosts share a campaign).

use super::rows::{check_block, read_solvers, read_summary, summary_at, summary_of};
use super::schema::{campaigns, connect};
use super::{block_of, create, db_err};
use crate::store::history::Event;
use crate::store::pg_conn::Target;
use crate::store::{Claim, CrossChecks, Store, StoreError, Summary};
use queens_core::entry::{Solution, Stamp, ENTRY_BYTES};
use queens_core::{BoardSize, Entry, Subproblem};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Stores opened by this process, to tell their leases apart.
static STORES: AtomicU32 = AtomicU32::new(0);

/// The block of a queued claim that is another host's count to check (no lease of ours).
const CHECK: i32 = -1;

/// While blocks are free, how long after finding no count to check a host asks again
/// (counts are chosen at commits, about once a second per host; each ask scans the pending).
const CHECKS_AGAIN: Duration = Duration::from_secs(1);

/// A result waiting for the next sync: entry, word 2, cycles.
type Returned = (u64, u64, Option<u64>);

/// What one `queens_commit` call sends: the leases to renew (block → lease), results,
/// corrections and history events.
#[derive(Default)]
struct Batch {
    leases: BTreeMap<i32, i64>,
    results: Vec<Returned>,
    corrections: Vec<(u64, u64)>,
    events: Vec<String>,
}

/// What a commit answered: the leases kept, the campaign's totals, and how many of the
/// results were compared with another host's count (agreed, disputed) or refused.
struct Answer {
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
            "SELECT * FROM queens_commit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
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
        kept: row.get::<_, Vec<i64>>(0).into_iter().collect(),
        summary: summary_at(&row, 1),
        agreed: row.get::<_, i64>(5) as u64,
        disputed: row.get::<_, i64>(6) as u64,
        refused: row.get(7),
    })
}

/// A thread with a connection of its own that commits one batch at a time, so that the run
/// loop keeps feeding its boards while the server merges (`PgStore::sync_soon`).
struct Committer {
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

pub struct PgStore {
    target: Target,
    client: postgres::Client,
    size: BoardSize,
    n: i32,
    /// This workstation, in solver names.
    host: String,
    /// This store ("host pid N.K", the K-th of process N): lease holder, author of history
    /// events and disputes.
    who: String,
    lease_ttl: Duration,
    summary: Summary,
    /// Leases this store holds: block → lease id.
    leases: BTreeMap<i32, i64>,
    /// Unsolved entries of leased blocks not yet handed out.
    queue: VecDeque<(i32, Claim)>,
    results: Vec<Returned>,
    /// Settled disputes (entry, word 2; 0 withdraws), replacing what is stored.
    corrections: Vec<(u64, u64)>,
    /// Solvers of this host caught lying, whose counts of every session are to be withdrawn
    /// (with why), after the next commit.
    withdrawals: Vec<(u16, String)>,
    /// Other hosts' counts taken to check, not yet committed (each is taken once).
    checking: HashSet<u64>,
    /// Entries with a result in `results` (so a re-leased block does not hand them out).
    buffered: HashSet<u64>,
    events: Vec<String>,
    solvers: HashMap<String, u16>,
    checks: CrossChecks,
    /// When to ask for counts to check again (now, once no block is free).
    checks_due: Instant,
    /// The database could not be reached at the last attempt.
    offline: bool,
    /// The background committer, once started, and whether a batch is with it now (its
    /// results stay in `buffered` until it is answered; a failed batch comes back to the
    /// front of the next).
    committer: Option<Committer>,
    in_flight: bool,
}

fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is writable for its length; gethostname NUL-terminates within it.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len()) };
    let end = buf.iter().position(|&b| b == 0).unwrap_or(0);
    if r == 0 && end > 0 {
        String::from_utf8_lossy(&buf[..end]).into_owned()
    } else {
        "localhost".into()
    }
}

impl PgStore {
    /// Opens the campaign of `size` in the database, creating it when there is none.
    /// Returns the store and whether it was created.
    pub fn open(target: &Target, size: BoardSize, lease_ttl: Duration) -> Result<(Self, bool), StoreError> {
        Self::open_watched(target, size, lease_ttl, &crate::store::Watch::default())
    }

    /// As [`PgStore::open`], telling `watch` how the creation goes when this host makes the
    /// campaign.
    pub fn open_watched(
        target: &Target,
        size: BoardSize,
        lease_ttl: Duration,
        watch: &crate::store::Watch,
    ) -> Result<(Self, bool), StoreError> {
        let mut client = connect(target)?;
        let n = size.n() as i32;
        let mut created = false;
        if !campaigns(&mut client, target)?.contains(&(n as u32)) {
            match create(&mut client, target, size, None, false, watch) {
                Ok(_) => created = true,
                // Another host created it meanwhile.
                Err(StoreError::Campaign { .. }) => {}
                // A host role: campaigns are the administrator's to make.
                Err(StoreError::Db { source, .. })
                    if source.code() == Some(&postgres::error::SqlState::INSUFFICIENT_PRIVILEGE) =>
                {
                    return Err(StoreError::Campaign {
                        db: target.shown.clone(),
                        what: format!(
                            "holds no campaign of N = {n}, and this role may not make one: the administrator makes it with `queens db init {} --hosts ROLE --n {n}`",
                            target.shown
                        ),
                    });
                }
                Err(x) => return Err(x),
            }
        }
        let host = hostname();
        let mut s = Self {
            target: target.clone(),
            client,
            size,
            n,
            who: format!(
                "{host} pid {}.{}",
                std::process::id(),
                STORES.fetch_add(1, Ordering::Relaxed)
            ),
            host,
            lease_ttl,
            summary: Summary::default(),
            leases: BTreeMap::new(),
            queue: VecDeque::new(),
            results: Vec::new(),
            corrections: Vec::new(),
            withdrawals: Vec::new(),
            buffered: HashSet::new(),
            checking: HashSet::new(),
            events: Vec::new(),
            solvers: HashMap::new(),
            checks: CrossChecks::default(),
            checks_due: Instant::now(),
            offline: false,
            committer: None,
            in_flight: false,
        };
        s.refresh()?;
        s.release_dead()?;
        Ok((s, created))
    }

    /// Who can recompute the campaign's chosen counts, this host's role among them.
    pub fn checkers(&mut self) -> Result<super::Checkers, StoreError> {
        super::checkers(&mut self.client, &self.target, self.size, true)
    }

    /// Leases held by processes of this workstation that are gone (a crash, a kill): their
    /// blocks need not wait for the leases to expire. (Workstations sharing a campaign need
    /// distinct host names, as they do for their solver names.)
    fn release_dead(&mut self) -> Result<(), StoreError> {
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
            .map(|r| r.get::<_, String>(0))
            .filter(|h| {
                let pid = h[mine.len()..].split('.').next().unwrap_or("");
                pid.parse::<i32>().is_ok_and(|pid| {
                    // SAFETY: signal 0 only asks whether the process exists.
                    let r = unsafe { libc::kill(pid, 0) };
                    r != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
                })
            })
            .collect();
        if !dead.is_empty() {
            let freed: i64 = self
                .client
                .query_one("SELECT queens_release($1, $2)", &[&self.n, &dead])
                .map_err(self.err("releasing leases"))?
                .get(0);
            tracing::info!(
                blocks = freed,
                "leases of ended processes on this workstation released: {dead:?}"
            );
        }
        Ok(())
    }

    fn err(&self, what: &'static str) -> impl FnOnce(postgres::Error) -> StoreError {
        db_err(&self.target, what)
    }

    /// Reads the campaign's totals.
    fn refresh(&mut self) -> Result<(), StoreError> {
        self.summary = read_summary(&mut self.client, &self.target, self.n)?;
        Ok(())
    }

    /// A failed database call: a lost connection is waited out (reconnecting at the next
    /// call), anything else is fatal.
    fn transient(&mut self, e: StoreError) -> Result<(), StoreError> {
        use postgres::error::SqlState;
        let lost = match &e {
            StoreError::Db { source, .. } => {
                source.is_closed() || self.client.is_closed() || source.code().is_none()
            }
            _ => false,
        };
        // Two commits that met (a quarantine locks every block): one is undone whole, and
        // simply redone at the next sync.
        let retry = matches!(&e, StoreError::Db { source, .. }
            if source.code() == Some(&SqlState::T_R_DEADLOCK_DETECTED)
                || source.code() == Some(&SqlState::T_R_SERIALIZATION_FAILURE));
        if retry {
            tracing::info!("{e}; committed again at the next sync");
            return Ok(());
        }
        if !lost {
            return Err(e);
        }
        if !self.offline {
            tracing::warn!("{e}; results wait in memory until the database is back");
        }
        self.offline = true;
        Ok(())
    }

    /// Reconnects when the connection was lost; false while the database is unreachable.
    fn online(&mut self) -> bool {
        if !self.offline && !self.client.is_closed() {
            return true;
        }
        match self.target.connect() {
            Ok(c) => {
                tracing::warn!(db = %self.target.shown, "database reachable again");
                self.client = c;
                self.offline = false;
                true
            }
            Err(e) => {
                tracing::debug!("{}: {e}", self.target.shown);
                self.offline = true;
                false
            }
        }
    }

    /// Leases the next open block (unleased, or its lease expired) and queues its unsolved
    /// entries. False when no block is free now.
    fn lease_block(&mut self) -> Result<bool, StoreError> {
        let held: Vec<i64> = self.leases.values().copied().collect();
        let row = self
            .client
            .query_opt(
                "SELECT * FROM queens_lease($1, $2, $3, $4)",
                &[&self.n, &self.who, &self.lease_ttl.as_secs_f64(), &held],
            )
            .map_err(self.err("leasing a block"))?;
        let Some(row) = row else {
            return Ok(false);
        };
        let block: i32 = row.get(0);
        let first: i64 = row.get(1);
        let entries: Vec<u8> = row.get(3);
        let lease: i64 = row.get(2);
        tracing::debug!(block, lease, "block leased");
        check_block(&self.target, block, first as u64, &entries, row.get(4), || {
            read_solvers(&mut self.client, &self.target, self.n).unwrap_or_default()
        })?;
        // Our own lease that lapsed and came back: its entries are queued or running already
        // (as a rule: see `requeue_held`).
        if self.leases.insert(block, lease).is_some() {
            return Ok(true);
        }
        self.queue_unsolved(block, first as u64, &entries)?;
        Ok(true)
    }

    /// Queues the entries of leased block `block` (its first entry `first`) that have no
    /// count, stored or waiting to be committed. How many it queued.
    fn queue_unsolved(&mut self, block: i32, first: u64, entries: &[u8]) -> Result<usize, StoreError> {
        let before = self.queue.len();
        for (k, raw) in entries.chunks_exact(ENTRY_BYTES).enumerate() {
            let index = first + k as u64;
            let entry = Entry::decode(self.size, raw.try_into().expect("16 bytes")).map_err(|x| {
                StoreError::Campaign {
                    db: self.target.shown.clone(),
                    what: format!("entry {index} (block {block}) is corrupted: {x}"),
                }
            })?;
            if entry.solution.is_none() && !self.buffered.contains(&index) {
                let sub = Subproblem {
                    pre: entry.pre,
                    sym: entry.sym,
                };
                self.queue.push_back((block, Claim { index, sub }));
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
    fn requeue_held(&mut self) -> Result<(), StoreError> {
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
            let block: i32 = r.get(0);
            let queued = self.queue_unsolved(block, r.get::<_, i64>(1) as u64, r.get(2))?;
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
    fn lease_checks(&mut self, max: usize) -> Result<bool, StoreError> {
        let rows = self
            .client
            .query(
                "SELECT o_entry, o_w1 FROM queens_lease_checks($1, $2, $3, $4)",
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
            let index = r.get::<_, i64>(0) as u64;
            if self.buffered.contains(&index) || !self.checking.insert(index) {
                continue;
            }
            let mut raw = [0u8; ENTRY_BYTES];
            raw[..8].copy_from_slice(&r.get::<_, i64>(1).to_be_bytes());
            let entry = Entry::decode(self.size, &raw).map_err(|x| StoreError::Campaign {
                db: self.target.shown.clone(),
                what: format!("entry {index} is corrupted: {x}"),
            })?;
            let sub = Subproblem {
                pre: entry.pre,
                sym: entry.sym,
            };
            self.queue.push_back((CHECK, Claim { index, sub }));
            queued = true;
        }
        Ok(queued)
    }

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
    fn commit(&mut self) -> Result<(), StoreError> {
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

    /// The answer to the batch with the background committer, if it came (waiting for it
    /// when `wait`). Errors are those of `transient`: fatal ones only.
    fn collect(&mut self, wait: bool) -> Result<(), StoreError> {
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

    /// Withdraws every count of each solver caught lying, in every session (one transaction
    /// each, after the commit of this session's own retractions). Withdrawn entries of blocks
    /// this store leases are queued again; the others' blocks are open to every host.
    fn withdraw(&mut self) -> Result<(), StoreError> {
        while let Some((solver, reason)) = self.withdrawals.first().cloned() {
            let rows = self
                .client
                .query(
                    "SELECT o_entry, o_w1 FROM queens_withdraw($1, $2, $3, $4)",
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
                let index = r.get::<_, i64>(0) as u64;
                let (block, _) = block_of(index);
                if !self.leases.contains_key(&block) {
                    continue;
                }
                let mut raw = [0u8; ENTRY_BYTES];
                raw[..8].copy_from_slice(&r.get::<_, i64>(1).to_be_bytes());
                let entry = Entry::decode(self.size, &raw).map_err(|x| StoreError::Campaign {
                    db: self.target.shown.clone(),
                    what: format!("entry {index} (block {block}) is corrupted: {x}"),
                })?;
                let sub = Subproblem {
                    pre: entry.pre,
                    sym: entry.sym,
                };
                self.queue.push_back((block, Claim { index, sub }));
            }
            self.refresh()?;
        }
        Ok(())
    }
}

impl Store for PgStore {
    fn size(&self) -> BoardSize {
        self.size
    }

    fn summary(&self) -> Summary {
        self.summary
    }

    fn claim(&mut self, max: usize, _stamp: Stamp) -> Result<Vec<Claim>, StoreError> {
        let mut out = Vec::with_capacity(max);
        while out.len() < max {
            if let Some((_, c)) = self.queue.pop_front() {
                out.push(c);
                continue;
            }
            if !self.online() {
                break;
            }
            if Instant::now() >= self.checks_due {
                match self.lease_checks(max - out.len()) {
                    Ok(true) => continue,
                    Ok(false) => self.checks_due = Instant::now() + CHECKS_AGAIN,
                    Err(e) => {
                        self.transient(e)?;
                        break;
                    }
                }
            }
            match self.lease_block() {
                Ok(true) => {}
                Ok(false) => {
                    // Out of blocks: the next claim asks for counts to check first.
                    self.checks_due = Instant::now();
                    break;
                }
                Err(e) => {
                    self.transient(e)?;
                    break;
                }
            }
        }
        Ok(out)
    }

    fn solve(&mut self, index: u64, solution: Solution, cycles: Option<u64>) -> Result<(), StoreError> {
        if index >= self.summary.subproblems {
            return Err(StoreError::Index {
                index,
                len: self.summary.subproblems,
            });
        }
        // The totals learn of it at the commit, which is where counting happens.
        self.results.push((index, solution.word(), cycles));
        self.buffered.insert(index);
        Ok(())
    }

    fn correct(&mut self, index: u64, solution: Solution) -> Result<(), StoreError> {
        self.corrections.push((index, solution.word()));
        Ok(())
    }

    fn retract(&mut self, index: u64) -> Result<(), StoreError> {
        // A correction to no solution: merged like the others, at the next commit.
        self.corrections.push((index, 0));
        Ok(())
    }

    fn withdraw_solver(&mut self, solver: u16, reason: &str) -> Result<(), StoreError> {
        self.withdrawals.push((solver, reason.to_owned()));
        Ok(())
    }

    fn sync(&mut self) -> Result<(), StoreError> {
        self.collect(true)?;
        if !self.online() {
            return Ok(());
        }
        let r = self.commit().and_then(|_| self.withdraw());
        if let Err(e) = r {
            self.transient(e)?;
        }
        Ok(())
    }

    fn sync_soon(&mut self) -> Result<(), StoreError> {
        self.collect(false)?;
        if self.in_flight {
            return Ok(());
        }
        // Withdrawals follow their commit at once, on this connection.
        if !self.withdrawals.is_empty() || !self.online() {
            return self.sync();
        }
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

    fn solver_id(&mut self, link: &str) -> Result<u16, StoreError> {
        let name = format!("{} {link}", self.host);
        if let Some(&id) = self.solvers.get(&name) {
            return Ok(id);
        }
        let id: i32 = self
            .client
            .query_one("SELECT queens_solver_id($1, $2)", &[&self.n, &name])
            .map_err(db_err(&self.target, "getting a solver id"))?
            .get(0);
        self.solvers.insert(name, id as u16);
        Ok(id as u16)
    }

    fn record(&mut self, event: &Event) {
        match serde_json::to_string(event) {
            Ok(s) => self.events.push(s),
            Err(e) => tracing::warn!("history event not recorded: {e}"),
        }
    }

    fn more_later(&mut self) -> Result<bool, StoreError> {
        // Results not yet committed are work still to land.
        if self.in_flight
            || !self.results.is_empty()
            || !self.corrections.is_empty()
            || !self.withdrawals.is_empty()
            || !self.online()
        {
            return Ok(true);
        }
        // One statement, one snapshot: the totals read with the answer, so that a host that
        // stops because another one committed the last block reports the finished campaign.
        let r = self
            .client
            .query_one(
                "SELECT subproblems, census, solved, solutions,
                        EXISTS (SELECT 1 FROM queens_block WHERE n = $1 AND solved < len)
                        -- counts waiting for a recomputation that a live host of another
                        -- role (this one, or one heard lately) can give
                        OR EXISTS (SELECT 1 FROM queens_check c
                                   WHERE c.n = $1 AND c.state IN ('open', 'disputed')
                                     AND EXISTS (SELECT 1 FROM queens_host h
                                                 WHERE h.n = $1 AND h.quarantined IS NULL
                                                   AND h.role <> c.giver
                                                   AND h.role IS DISTINCT FROM c.second
                                                   AND (h.role = session_user
                                                        OR h.seen > now() - interval '15 seconds'))),
                        (SELECT count(*) FROM queens_check
                         WHERE n = $1 AND state IN ('agreed', 'settled')),
                        (SELECT count(*) FROM queens_check
                         WHERE n = $1 AND state IN ('open', 'disputed'))
                 FROM queens_campaign WHERE n = $1",
                &[&self.n],
            )
            .map_err(db_err(&self.target, "looking for open blocks"));
        match r {
            Ok(row) => {
                self.summary = summary_of(&row);
                self.checks.confirmed = row.get::<_, i64>(5) as u64;
                self.checks.pending = row.get::<_, i64>(6) as u64;
                let more: bool = row.get(4);
                if more {
                    if let Err(e) = self.requeue_held() {
                        self.transient(e)?;
                    }
                }
                Ok(more)
            }
            Err(e) => self.transient(e).map(|_| true),
        }
    }

    fn cross_checks(&mut self) -> CrossChecks {
        let checkers = match self.checkers() {
            Ok(c) => Some(c),
            Err(e) => {
                tracing::warn!("who can confirm the campaign's counts is not known: {e}");
                None
            }
        };
        CrossChecks {
            checkers,
            ..self.checks.clone()
        }
    }
}
