//! The store the dispatcher leases blocks from and commits results to (see the module
//! above for how hosts share a campaign).

use super::merge::{self, Correction, Gain, Returned};
use super::rows::{check_block, read_solvers, read_summary, summary_of};
use super::schema::{campaigns, connect, lock_campaign};
use super::{block_of, create, db_err, Rows, BLOCK};
use crate::store::history::Event;
use crate::store::pg_conn::Target;
use crate::store::{Claim, CrossChecks, Store, StoreError, Summary};
use queens_core::entry::{Solution, Stamp, ENTRY_BYTES};
use queens_core::{BoardSize, Entry, Subproblem};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// Stores opened by this process, to tell their leases apart.
static STORES: AtomicU32 = AtomicU32::new(0);

/// Results waiting for the next sync, by block.
type Pending = BTreeMap<i32, Vec<Returned>>;

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
    results: Pending,
    /// Settled disputes, by block, replacing what is stored.
    corrections: Vec<(i32, Correction)>,
    /// Entries with a result in `results` (so a re-leased block does not hand them out).
    buffered: HashSet<u64>,
    events: Vec<String>,
    solvers: HashMap<String, u16>,
    checks: CrossChecks,
    /// The database could not be reached at the last attempt.
    offline: bool,
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
        let mut client = connect(target)?;
        let n = size.n() as i32;
        let mut created = false;
        if !campaigns(&mut client, target)?.contains(&(n as u32)) {
            match create(&mut client, target, size, None, false) {
                Ok(_) => created = true,
                // Another host created it meanwhile.
                Err(StoreError::Campaign { .. }) => {}
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
            results: Pending::new(),
            corrections: Vec::new(),
            buffered: HashSet::new(),
            events: Vec::new(),
            solvers: HashMap::new(),
            checks: CrossChecks::default(),
            offline: false,
        };
        s.refresh()?;
        s.release_dead()?;
        Ok((s, created))
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
            let freed = self
                .client
                .execute(
                    "UPDATE queens_block SET lease_until = now() - interval '1 second'
                     WHERE n = $1 AND holder = ANY($2) AND lease_until > now()",
                    &[&self.n, &dead],
                )
                .map_err(self.err("releasing leases"))?;
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
        let lost = match &e {
            StoreError::Db { source, .. } => {
                source.is_closed() || self.client.is_closed() || source.code().is_none()
            }
            _ => false,
        };
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
                "WITH free AS (
                     SELECT block FROM queens_block
                     WHERE n = $1 AND solved < len
                       AND (lease_until IS NULL OR lease_until < now()
                            -- ours, but the answer that granted it was lost with the connection
                            OR (holder = $2 AND lease <> ALL($4)))
                     ORDER BY block LIMIT 1
                     FOR UPDATE SKIP LOCKED)
                 UPDATE queens_block b
                 SET lease = nextval('queens_lease'), holder = $2,
                     lease_until = now() + make_interval(secs => $3)
                 FROM free WHERE b.n = $1 AND b.block = free.block
                 RETURNING b.block, b.first, b.lease, b.entries, b.solved",
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
        // Our own lease that lapsed and came back: its entries are queued or running already.
        if self.leases.insert(block, lease).is_some() {
            return Ok(true);
        }
        for (k, raw) in entries.chunks_exact(ENTRY_BYTES).enumerate() {
            let index = first as u64 + k as u64;
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
        Ok(true)
    }

    /// One transaction: buffered results merged into their blocks, leases renewed, totals
    /// added to, history and disputes written.
    fn commit(&mut self) -> Result<(), StoreError> {
        let n = self.n;
        let target = self.target.clone();
        let e = |what| db_err(&target, what);
        let mut touched: Vec<i32> = self.results.keys().copied().collect();
        touched.extend(self.corrections.iter().map(|c| c.0));
        touched.sort_unstable();
        touched.dedup();
        let lease_ids: Vec<i64> = self.leases.values().copied().collect();
        let mut tx = self.client.transaction().map_err(e("starting a transaction"))?;
        // Locked in block order, so two hosts committing at once never deadlock.
        let rows = if touched.is_empty() {
            Vec::new()
        } else {
            tx.query(
                "SELECT block, len, solved, entries, cycles FROM queens_block
                 WHERE n = $1 AND block = ANY($2) ORDER BY block FOR UPDATE",
                &[&n, &touched],
            )
            .map_err(e("locking blocks"))?
        };
        let mut gain = Gain::default();
        let mut upd: Rows = Default::default();
        for r in &rows {
            let block: i32 = r.get(0);
            let mut b = merge::Block {
                first: block as u64 * BLOCK as u64,
                len: r.get::<_, i32>(1) as usize,
                solved: r.get(2),
                entries: r.get(3),
                cycles: r.get(4),
            };
            let results = self.results.get(&block).map_or(&[][..], Vec::as_slice);
            let corrections = self
                .corrections
                .iter()
                .filter(|(b, _)| *b == block)
                .map(|&(_, c)| c);
            merge::merge(self.size, &mut b, results, corrections, &mut gain).map_err(|x| {
                StoreError::Campaign {
                    db: target.shown.clone(),
                    what: x.to_string(),
                }
            })?;
            upd.push(block, b.solved, b.entries, b.cycles);
        }
        if !upd.0.is_empty() {
            tx.execute(
                "UPDATE queens_block b
             SET solved = u.s, entries = u.e, cycles = u.c,
                 lease = CASE WHEN u.s = b.len THEN NULL ELSE b.lease END,
                 holder = CASE WHEN u.s = b.len THEN NULL ELSE b.holder END,
                 lease_until = CASE WHEN u.s = b.len THEN NULL ELSE b.lease_until END
             FROM unnest($2::int[], $3::int[], $4::bytea[], $5::bytea[]) AS u(b, s, e, c)
             WHERE b.n = $1 AND b.block = u.b",
                &[&n, &upd.0, &upd.1, &upd.2, &upd.3],
            )
            .map_err(e("writing results"))?;
        }
        let kept: Vec<i64> = tx
            .query(
                "UPDATE queens_block SET lease_until = now() + make_interval(secs => $3)
                 WHERE n = $1 AND lease = ANY($2) AND solved < len RETURNING lease",
                &[&n, &lease_ids, &self.lease_ttl.as_secs_f64()],
            )
            .map_err(e("renewing leases"))?
            .iter()
            .map(|r| r.get(0))
            .collect();
        // Nothing to add: read the totals without writing (and locking) the campaign's row.
        let row = if gain.is_nothing() {
            tx.query_one(
                "SELECT subproblems, census, solved, solutions FROM queens_campaign WHERE n = $1",
                &[&n],
            )
        } else {
            tx.query_one(
                "UPDATE queens_campaign
                 SET solved = ARRAY[solved[1] + ($2::bigint[])[1], solved[2] + ($2::bigint[])[2],
                                    solved[3] + ($2::bigint[])[3]],
                     solutions = ARRAY[solutions[1] + ($3::bigint[])[1], solutions[2] + ($3::bigint[])[2],
                                       solutions[3] + ($3::bigint[])[3]]
                 WHERE n = $1 RETURNING subproblems, census, solved, solutions",
                &[&n, &&gain.solved[..], &&gain.sums[..]],
            )
        }
        .map_err(e("adding to the totals"))?;
        if !self.events.is_empty() {
            tx.execute(
                "INSERT INTO queens_event (n, host, event) SELECT $1, $2, v::jsonb FROM unnest($3::text[]) AS v",
                &[&n, &self.who, &self.events],
            )
            .map_err(e("writing the history"))?;
        }
        for c in &gain.conflicts {
            tx.execute(
                "INSERT INTO queens_dispute (n, entry, kept, other, host) VALUES ($1, $2, $3, $4, $5)",
                &[
                    &n,
                    &(c.index as i64),
                    &(c.kept as i64),
                    &(c.other as i64),
                    &self.who,
                ],
            )
            .map_err(e("recording a dispute"))?;
        }
        tx.commit().map_err(e("committing results"))?;
        // Committed: only now is the buffer let go (a failed commit is simply redone).
        self.summary = summary_of(&row);
        self.checks.agreed += gain.checks.agreed;
        self.checks.disputed += gain.checks.disputed;
        self.results.clear();
        self.buffered.clear();
        self.corrections.clear();
        self.events.clear();
        let kept: HashSet<i64> = kept.into_iter().collect();
        let lost: Vec<i32> = self
            .leases
            .iter()
            .filter(|(_, id)| !kept.contains(id))
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
                    "lease expired and taken by another host; its unsent entries dropped"
                );
            }
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
            match self.lease_block() {
                Ok(true) => {}
                Ok(false) => break,
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
        let (block, off) = block_of(index);
        self.results.entry(block).or_default().push(Returned {
            off,
            word: solution.word(),
            cycles,
        });
        self.buffered.insert(index);
        Ok(())
    }

    fn correct(&mut self, index: u64, solution: Solution) -> Result<(), StoreError> {
        let (block, off) = block_of(index);
        self.corrections.push((
            block,
            Correction {
                off,
                word: solution.word(),
            },
        ));
        Ok(())
    }

    fn retract(&mut self, index: u64) -> Result<(), StoreError> {
        // A correction to no solution: merged like the others, at the next commit.
        let (block, off) = block_of(index);
        self.corrections.push((block, Correction { off, word: 0 }));
        Ok(())
    }

    fn sync(&mut self) -> Result<(), StoreError> {
        if !self.online() {
            return Ok(());
        }
        let r = self.commit();
        if let Err(e) = r {
            self.transient(e)?;
        }
        Ok(())
    }

    fn solver_id(&mut self, link: &str) -> Result<u16, StoreError> {
        let name = format!("{} {link}", self.host);
        if let Some(&id) = self.solvers.get(&name) {
            return Ok(id);
        }
        let target = self.target.clone();
        let e = |what| db_err(&target, what);
        let mut tx = self.client.transaction().map_err(e("starting a transaction"))?;
        lock_campaign(&mut tx, &target, self.n)?;
        let id: i32 = match tx
            .query_opt(
                "SELECT id FROM queens_solver WHERE n = $1 AND link = $2",
                &[&self.n, &name],
            )
            .map_err(e("reading solver ids"))?
        {
            Some(r) => r.get(0),
            None => {
                let id: i32 = tx
                    .query_one(
                        "SELECT coalesce(max(id), 0) + 1 FROM queens_solver WHERE n = $1",
                        &[&self.n],
                    )
                    .map_err(e("reading solver ids"))?
                    .get(0);
                if id > 0xFFF {
                    return Err(StoreError::Solvers);
                }
                tx.execute(
                    "INSERT INTO queens_solver (n, id, link) VALUES ($1, $2, $3)",
                    &[&self.n, &id, &name],
                )
                .map_err(e("writing a solver id"))?;
                id
            }
        };
        tx.commit().map_err(e("writing a solver id"))?;
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
        if !self.results.is_empty() || !self.corrections.is_empty() || !self.online() {
            return Ok(true);
        }
        // One statement, one snapshot: the totals read with the answer, so that a host that
        // stops because another one committed the last block reports the finished campaign.
        let r = self
            .client
            .query_one(
                "SELECT subproblems, census, solved, solutions,
                        EXISTS (SELECT 1 FROM queens_block WHERE n = $1 AND solved < len)
                 FROM queens_campaign WHERE n = $1",
                &[&self.n],
            )
            .map_err(db_err(&self.target, "looking for open blocks"));
        match r {
            Ok(row) => {
                self.summary = summary_of(&row);
                Ok(row.get(4))
            }
            Err(e) => self.transient(e).map(|_| true),
        }
    }

    fn cross_checks(&self) -> CrossChecks {
        self.checks
    }
}
