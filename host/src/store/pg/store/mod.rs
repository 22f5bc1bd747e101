//! The store the dispatcher leases blocks from and commits results to (see the module
//! above for how hosts share a campaign). In parts: where its work comes from (`lease.rs`),
//! how its results go back (`commit.rs`).

mod commit;
mod lease;

use super::rows::{read_summary, summary_of};
use super::schema::{campaigns, connect};
use super::{create, db_err};
use crate::store::history::Event;
use crate::store::pg_conn::Target;
use crate::store::{Claim, CrossChecks, Store, StoreError, Summary};
use commit::{Committer, Returned};
use queens_core::entry::{Solution, Stamp};
use queens_core::BoardSize;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Stores opened by this process, to tell their leases apart.
static STORES: AtomicU32 = AtomicU32::new(0);

/// While blocks are free, how long after finding no count to check a host asks again
/// (counts are chosen at commits, about once a second per host; each ask scans the pending).
const CHECKS_AGAIN: Duration = Duration::from_secs(1);

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

/// This workstation's name ("localhost" when it has none).
fn hostname() -> String {
    nix::unistd::gethostname()
        .ok()
        .map(|h| h.to_string_lossy().into_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into())
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

    fn health(&self) -> crate::store::StoreHealth {
        crate::store::StoreHealth {
            uncommitted: self.buffered.len() as u64,
            leases: self.leases.len() as u64,
            lease: Some(self.lease_ttl),
            online: !self.offline,
            disputed: self.checks.disputed,
        }
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
        self.commit_in_background()
    }

    fn solver_id(&mut self, link: &str) -> Result<u16, StoreError> {
        let name = format!("{} {link}", self.host);
        if let Some(&id) = self.solvers.get(&name) {
            return Ok(id);
        }
        let id: i32 = self
            .client
            .query_one("SELECT queens_solver_id($1, $2) AS id", &[&self.n, &name])
            .map_err(db_err(&self.target, "getting a solver id"))?
            .get("id");
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
                                                        OR h.seen > now() - interval '15 seconds')))
                        AS more,
                        (SELECT count(*) FROM queens_check
                         WHERE n = $1 AND state IN ('agreed', 'settled')) AS confirmed,
                        (SELECT count(*) FROM queens_check
                         WHERE n = $1 AND state IN ('open', 'disputed')) AS pending
                 FROM queens_campaign WHERE n = $1",
                &[&self.n],
            )
            .map_err(db_err(&self.target, "looking for open blocks"));
        match r {
            Ok(row) => {
                self.summary = summary_of(&row);
                self.checks.confirmed = row.get::<_, i64>("confirmed") as u64;
                self.checks.pending = row.get::<_, i64>("pending") as u64;
                let more: bool = row.get("more");
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
