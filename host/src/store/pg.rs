//! The shared campaign store: one PostgreSQL database that the hosts of many workstations
//! draw subproblems from and return counts to.
//!
//! The campaign is cut into blocks of contiguous entries in canonical order; a block's row
//! holds its entries in the 16-byte Queens@TUD format (one `bytea`, so a 2·10⁹-entry
//! campaign stays near its file size instead of a row per entry). A host leases whole
//! blocks: it picks open ones with `FOR UPDATE SKIP LOCKED`, so hosts never wait for each
//! other, and renews its leases at every sync. A lease that is not renewed expires and its
//! block goes to the next host that asks. Results are buffered and committed at each sync in
//! one transaction that locks their blocks, merges them into the entries, renews the leases
//! and adds to the campaign's totals: a count lands once, whoever sent it. A result for an
//! entry another host solved meanwhile (the lease had expired) is compared with that count,
//! never added again; a different count is kept as a dispute and logged.
//!
//! Lost connections are not fatal: results stay buffered until the database is back (they
//! are the same transaction, redone), and the host waits rather than finishing early.

use super::history::Event;
use super::pg_conn::Target;
use super::{Claim, CrossChecks, Store, StoreError, Summary};
use queens_core::entry::{Solution, Stamp, ENTRY_BYTES};
use queens_core::{BoardSize, Entry, Subproblem, Tally};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

/// Entries per block (64 KiB of entries; a 341-unit board at Q(27) speed works ~10 minutes
/// on one; the simulated Q(14) has 116 of them).
pub const BLOCK: usize = 4096;

/// Stores opened by this process, to tell their leases apart.
static STORES: AtomicU32 = AtomicU32::new(0);

/// Blocks written per statement when a campaign is created or imported.
const INSERT_BATCH: usize = 64;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS queens_campaign (
    n           integer  PRIMARY KEY,
    subproblems bigint   NOT NULL,
    block_size  integer  NOT NULL,
    census      bigint[] NOT NULL,  -- entries per class (none, point, rotate)
    solved      bigint[] NOT NULL,  -- solved entries per class
    solutions   bigint[] NOT NULL,  -- summed counts per class
    created     timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS queens_block (
    n           integer NOT NULL REFERENCES queens_campaign ON DELETE CASCADE,
    block       integer NOT NULL,
    first       bigint  NOT NULL,   -- index of its first entry
    len         integer NOT NULL,
    solved      integer NOT NULL,
    entries     bytea   NOT NULL,   -- len 16-byte entries
    cycles      bytea,              -- len little-endian u64 (0 = unknown), once one is known
    lease       bigint,
    holder      text,
    lease_until timestamptz,
    PRIMARY KEY (n, block)
);
CREATE INDEX IF NOT EXISTS queens_block_open ON queens_block (n, block) WHERE solved < len;
CREATE SEQUENCE IF NOT EXISTS queens_lease;
CREATE TABLE IF NOT EXISTS queens_solver (
    n    integer NOT NULL REFERENCES queens_campaign ON DELETE CASCADE,
    id   integer NOT NULL,
    link text    NOT NULL,
    PRIMARY KEY (n, id),
    UNIQUE (n, link)
);
CREATE TABLE IF NOT EXISTS queens_event (
    n     integer NOT NULL REFERENCES queens_campaign ON DELETE CASCADE,
    t     timestamptz NOT NULL DEFAULT now(),
    host  text  NOT NULL,
    event jsonb NOT NULL
);
CREATE TABLE IF NOT EXISTS queens_dispute (
    n      integer NOT NULL REFERENCES queens_campaign ON DELETE CASCADE,
    entry  bigint  NOT NULL,
    kept   bigint  NOT NULL,        -- word 2 stored first
    other  bigint  NOT NULL,        -- word 2 of the differing result
    host   text    NOT NULL,
    t      timestamptz NOT NULL DEFAULT now()
);
";

/// Advisory lock keys: schema creation, and one per N for creating a campaign or a solver id.
const LOCK_SCHEMA: i64 = 0x5175_6565_6e73_0000;
const LOCK_CAMPAIGN: i64 = 0x5175_6565_6e73_0100;

/// Results waiting for the next sync, by block: (offset, word 2, cycles).
type Pending = BTreeMap<i32, Vec<(usize, u64, Option<u64>)>>;

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
    /// Settled disputes: (block, offset, word 2), replacing what is stored.
    corrections: Vec<(i32, usize, u64)>,
    /// Entries with a result in `results` (so a re-leased block does not hand them out).
    buffered: HashSet<u64>,
    events: Vec<String>,
    solvers: HashMap<String, u16>,
    checks: CrossChecks,
    /// The database could not be reached at the last attempt.
    offline: bool,
}

fn db_err(t: &Target, what: &'static str) -> impl FnOnce(postgres::Error) -> StoreError {
    let db = t.shown.clone();
    move |source| StoreError::Db { db, what, source }
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

fn block_of(index: u64) -> (i32, usize) {
    ((index / BLOCK as u64) as i32, (index % BLOCK as u64) as usize)
}

fn word2(entries: &[u8], off: usize) -> u64 {
    u64::from_be_bytes(
        entries[off * ENTRY_BYTES + 8..(off + 1) * ENTRY_BYTES]
            .try_into()
            .expect("8 bytes"),
    )
}

fn tally_of(solved: &[i64], solutions: &[i64]) -> Tally {
    let mut t = Tally::default();
    for i in 0..3 {
        t.preplacements[i] = solved.get(i).copied().unwrap_or(0) as u64;
        t.solutions[i] = solutions.get(i).copied().unwrap_or(0) as u64;
    }
    t
}

/// A block's entries against its row: as many of them read as solved as its `solved` column
/// counts (every commit keeps the two together). A difference is damage, such as a flipped
/// bit that makes an unsolved entry read as solved: it is named, never counted or skipped.
/// `solvers` gives the campaign's solver ids, to point at the entries that name another.
fn check_block(
    target: &Target,
    block: i32,
    first: u64,
    entries: &[u8],
    solved: i32,
    solvers: impl FnOnce() -> Vec<(u16, String)>,
) -> Result<(), StoreError> {
    let count = (0..entries.len() / ENTRY_BYTES)
        .filter(|&k| word2(entries, k) != 0)
        .count();
    if count == solved as usize {
        return Ok(());
    }
    let known: HashSet<u16> = solvers().into_iter().map(|s| s.0).collect();
    let suspects: Vec<String> = (0..entries.len() / ENTRY_BYTES)
        .map(|k| (k, Solution::from_word(word2(entries, k))))
        .filter(|(_, s)| s.solver != 0 && !known.is_empty() && !known.contains(&s.solver))
        .take(8)
        .map(|(k, s)| {
            format!(
                "entry {} names solver {}, which the campaign never gave out",
                first + k as u64,
                s.solver
            )
        })
        .collect();
    Err(StoreError::Campaign {
        db: target.shown.clone(),
        what: format!(
            "block {block} (entries {first}..{}): {count} of its entries read as solved where its row counts {solved}: the block is damaged{}",
            first + (entries.len() / ENTRY_BYTES) as u64,
            if suspects.is_empty() {
                String::new()
            } else {
                format!(" ({})", suspects.join("; "))
            }
        ),
    })
}

/// What a campaign brings along when it is imported: its entries in canonical order, their
/// cycle counts, and the links behind its solver ids.
pub struct Import<'a> {
    pub entries: &'a mut dyn FnMut(u64) -> [u8; ENTRY_BYTES],
    pub cycles: &'a mut dyn FnMut(u64) -> Option<u64>,
    pub solvers: Vec<(u16, String)>,
}

/// Connects and makes sure the tables exist (several hosts may start at once).
pub fn connect(target: &Target) -> Result<postgres::Client, StoreError> {
    if target.password_in_url {
        tracing::warn!(
            "the campaign URL carries a password, which the shell history and `ps` keep; prefer PGPASSWORD or ~/.pgpass"
        );
    }
    let mut client = target.connect().map_err(db_err(target, "connecting"))?;
    let mut tx = client
        .transaction()
        .map_err(db_err(target, "starting a transaction"))?;
    tx.execute("SELECT pg_advisory_xact_lock($1::bigint)", &[&LOCK_SCHEMA])
        .map_err(db_err(target, "locking the schema"))?;
    tx.batch_execute(SCHEMA)
        .map_err(db_err(target, "creating the campaign tables"))?;
    tx.commit()
        .map_err(db_err(target, "creating the campaign tables"))?;
    Ok(client)
}

/// The N of every campaign in the database.
pub fn campaigns(client: &mut postgres::Client, target: &Target) -> Result<Vec<u32>, StoreError> {
    let rows = client
        .query("SELECT n FROM queens_campaign ORDER BY n", &[])
        .map_err(db_err(target, "listing campaigns"))?;
    Ok(rows.iter().map(|r| r.get::<_, i32>(0) as u32).collect())
}

/// Writes a whole campaign in one transaction (nobody sees half of one): fresh entries when
/// `import` is None. Refuses when N has a campaign already, unless `replace`.
pub fn create(
    client: &mut postgres::Client,
    target: &Target,
    size: BoardSize,
    import: Option<Import>,
    replace: bool,
) -> Result<u64, StoreError> {
    let n = size.n() as i32;
    let e = db_err;
    let mut tx = client
        .transaction()
        .map_err(e(target, "starting a transaction"))?;
    lock_campaign(&mut tx, target, n)?;
    let exists = tx
        .query_opt("SELECT subproblems FROM queens_campaign WHERE n = $1", &[&n])
        .map_err(e(target, "reading the campaign"))?;
    if exists.is_some() {
        if !replace {
            return Err(StoreError::Campaign {
                db: target.shown.clone(),
                what: format!(
                    "N = {n} has a campaign already (it may hold results); pass --force to replace it"
                ),
            });
        }
        tx.execute("DELETE FROM queens_campaign WHERE n = $1", &[&n])
            .map_err(e(target, "deleting the old campaign"))?;
    }
    let census = queens_core::Enumerator::new(size).census();
    let total = census.total();
    let census: Vec<i64> = census.count.iter().map(|&c| c as i64).collect();
    tx.execute(
        "INSERT INTO queens_campaign (n, subproblems, block_size, census, solved, solutions)
         VALUES ($1, $2, $3, $4, '{0,0,0}', '{0,0,0}')",
        &[&n, &(total as i64), &(BLOCK as i32), &census],
    )
    .map_err(e(target, "creating the campaign"))?;
    let insert = tx
        .prepare(
            "INSERT INTO queens_block (n, block, first, len, solved, entries, cycles)
             SELECT $1, b, b::bigint * $2, length(e) / 16, s, e, c
             FROM unnest($3::int[], $4::int[], $5::bytea[], $6::bytea[]) AS u(b, s, e, c)",
        )
        .map_err(e(target, "preparing the insert"))?;
    let mut batch: Rows = Default::default();
    let mut tally = Tally::default();
    let flush = |tx: &mut postgres::Transaction, batch: &mut Rows| {
        if batch.0.is_empty() {
            return Ok(());
        }
        tx.execute(
            &insert,
            &[&n, &(BLOCK as i64), &batch.0, &batch.1, &batch.2, &batch.3],
        )
        .map_err(e(target, "writing entries"))?;
        *batch = Default::default();
        Ok::<(), StoreError>(())
    };
    let written = match import {
        None => {
            let mut block = Vec::with_capacity(BLOCK * ENTRY_BYTES);
            let mut next = 0i32;
            let mut push = |tx: &mut postgres::Transaction, block: &mut Vec<u8>, batch: &mut Rows| {
                batch.push(next, 0, std::mem::take(block), None);
                next += 1;
                if batch.0.len() == INSERT_BATCH {
                    flush(tx, batch)?;
                }
                Ok::<(), StoreError>(())
            };
            let written = super::fresh_entries(size, &AtomicU64::new(0), |mut chunk: &[u8]| {
                while !chunk.is_empty() {
                    let take = (BLOCK * ENTRY_BYTES - block.len()).min(chunk.len());
                    block.extend_from_slice(&chunk[..take]);
                    chunk = &chunk[take..];
                    if block.len() == BLOCK * ENTRY_BYTES {
                        push(&mut tx, &mut block, &mut batch)?;
                    }
                }
                Ok::<(), StoreError>(())
            })?;
            if !block.is_empty() {
                push(&mut tx, &mut block, &mut batch)?;
            }
            written
        }
        Some(imp) => {
            for b in 0..total.div_ceil(BLOCK as u64) {
                let first = b * BLOCK as u64;
                let len = (total - first).min(BLOCK as u64);
                let mut entries = Vec::with_capacity(len as usize * ENTRY_BYTES);
                let mut cycles = vec![0u8; len as usize * 8];
                let mut any_cycles = false;
                let mut solved = 0;
                for k in 0..len {
                    let raw = (imp.entries)(first + k);
                    let entry = Entry::decode(size, &raw).map_err(|x| StoreError::Corrupt {
                        path: "import".into(),
                        index: first + k,
                        offset: (first + k) * ENTRY_BYTES as u64,
                        reason: x.to_string(),
                    })?;
                    if let Some(s) = entry.solution {
                        solved += 1;
                        tally.add(entry.sym, s.whole());
                    }
                    if let Some(c) = (imp.cycles)(first + k) {
                        any_cycles = true;
                        cycles[k as usize * 8..][..8].copy_from_slice(&c.to_le_bytes());
                    }
                    entries.extend_from_slice(&raw);
                }
                batch.push(b as i32, solved, entries, any_cycles.then_some(cycles));
                if batch.0.len() == INSERT_BATCH {
                    flush(&mut tx, &mut batch)?;
                }
            }
            for (id, link) in &imp.solvers {
                tx.execute(
                    "INSERT INTO queens_solver (n, id, link) VALUES ($1, $2, $3)",
                    &[&n, &(*id as i32), link],
                )
                .map_err(e(target, "writing solver ids"))?;
            }
            total
        }
    };
    flush(&mut tx, &mut batch)?;
    let solved: Vec<i64> = tally.preplacements.iter().map(|&c| c as i64).collect();
    let sums: Vec<i64> = tally.solutions.iter().map(|&c| c as i64).collect();
    tx.execute(
        "UPDATE queens_campaign SET solved = $2, solutions = $3 WHERE n = $1",
        &[&n, &solved, &sums],
    )
    .map_err(e(target, "writing the totals"))?;
    tx.commit().map_err(e(target, "committing the new campaign"))?;
    Ok(written)
}

/// Serialises, until the transaction ends, what must not race for one N: creating its
/// campaign, giving out solver ids.
fn lock_campaign(tx: &mut postgres::Transaction, target: &Target, n: i32) -> Result<(), StoreError> {
    tx.execute(
        "SELECT pg_advisory_xact_lock($1::bigint + $2::bigint)",
        &[&LOCK_CAMPAIGN, &(n as i64)],
    )
    .map_err(db_err(target, "locking the campaign"))?;
    Ok(())
}

/// Block rows to write in one statement, as the columns `unnest` takes: block, solved,
/// entries, cycles.
#[derive(Default)]
struct Rows(Vec<i32>, Vec<i32>, Vec<Vec<u8>>, Vec<Option<Vec<u8>>>);

impl Rows {
    fn push(&mut self, block: i32, solved: i32, entries: Vec<u8>, cycles: Option<Vec<u8>>) {
        self.0.push(block);
        self.1.push(solved);
        self.2.push(entries);
        self.3.push(cycles);
    }
}

/// Hands every block of a campaign to `block` in canonical order, (first entry, entries,
/// cycle counts if any), from one consistent snapshot, a few blocks in memory at a time.
/// Returns the campaign's solver ids and their links.
pub fn export(
    client: &mut postgres::Client,
    target: &Target,
    size: BoardSize,
    mut block: impl FnMut(u64, &[u8], Option<&[u8]>) -> Result<(), StoreError>,
) -> Result<Vec<(u16, String)>, StoreError> {
    let n = size.n() as i32;
    let e = db_err;
    let mut tx = client
        .build_transaction()
        .isolation_level(postgres::IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .map_err(e(target, "starting a transaction"))?;
    let total = tx
        .query_opt("SELECT subproblems FROM queens_campaign WHERE n = $1", &[&n])
        .map_err(e(target, "reading the campaign"))?
        .ok_or_else(|| missing(target, n))?
        .get::<_, i64>(0) as u64;
    let portal = tx
        .bind(
            "SELECT block, first, entries, cycles, solved FROM queens_block WHERE n = $1 ORDER BY block",
            &[&n],
        )
        .map_err(e(target, "reading entries"))?;
    let mut next = 0u64;
    loop {
        let rows = tx
            .query_portal(&portal, 16)
            .map_err(e(target, "reading entries"))?;
        if rows.is_empty() {
            break;
        }
        for r in rows {
            let first = r.get::<_, i64>(1) as u64;
            let entries: &[u8] = r.get(2);
            if first != next || entries.len() % ENTRY_BYTES != 0 {
                return Err(StoreError::Campaign {
                    db: target.shown.clone(),
                    what: format!(
                        "block {} starts at entry {first} with {} bytes; entry {next} was expected next",
                        r.get::<_, i32>(0),
                        entries.len()
                    ),
                });
            }
            check_block(target, r.get(0), first, entries, r.get(4), || {
                read_solvers(&mut tx, target, n).unwrap_or_default()
            })?;
            block(first, entries, r.get(3))?;
            next += (entries.len() / ENTRY_BYTES) as u64;
        }
    }
    if next != total {
        return Err(StoreError::Campaign {
            db: target.shown.clone(),
            what: format!("its blocks hold {next} entries, the campaign {total}"),
        });
    }
    let solvers = read_solvers(&mut tx, target, n)?;
    Ok(solvers)
}

/// A campaign row (subproblems, census, solved, solutions) as a summary.
fn summary_of(row: &postgres::Row) -> Summary {
    let census: Vec<i64> = row.get(1);
    Summary {
        subproblems: row.get::<_, i64>(0) as u64,
        solved: tally_of(&row.get::<_, Vec<i64>>(2), &row.get::<_, Vec<i64>>(3)),
        census: [0, 1, 2].map(|i| census.get(i).copied().unwrap_or(0) as u64),
    }
}

fn read_summary(client: &mut postgres::Client, target: &Target, n: i32) -> Result<Summary, StoreError> {
    let row = client
        .query_opt(
            "SELECT subproblems, census, solved, solutions, block_size FROM queens_campaign WHERE n = $1",
            &[&n],
        )
        .map_err(db_err(target, "reading the campaign"))?
        .ok_or_else(|| missing(target, n))?;
    // Entry indices map to blocks by this build's block size.
    let block_size: i32 = row.get(4);
    if block_size as usize != BLOCK {
        return Err(StoreError::Campaign {
            db: target.shown.clone(),
            what: format!(
                "the campaign of N = {n} was made with blocks of {block_size} entries; this build uses {BLOCK} (move it with an older build's db export and this one's db import)"
            ),
        });
    }
    Ok(summary_of(&row))
}

/// The campaign's solver ids and the boards ("host link") behind them.
fn read_solvers(
    client: &mut impl postgres::GenericClient,
    target: &Target,
    n: i32,
) -> Result<Vec<(u16, String)>, StoreError> {
    Ok(client
        .query(
            "SELECT id, link FROM queens_solver WHERE n = $1 ORDER BY id",
            &[&n],
        )
        .map_err(db_err(target, "reading solver ids"))?
        .iter()
        .map(|r| (r.get::<_, i32>(0) as u16, r.get(1)))
        .collect())
}

/// Where a shared campaign stands, for `queens db stats`.
pub struct Status {
    pub summary: Summary,
    /// History events by the host process that recorded them, in order.
    pub events: Vec<(String, Event)>,
    pub solvers: Vec<(u16, String)>,
    /// Live leases per holder: (holder, blocks, seconds until the first expires).
    pub leases: Vec<(String, i64, f64)>,
    /// Recorded disputes: (entry, word 2 kept, word 2 of the other result, host).
    pub disputes: Vec<(i64, i64, i64, String)>,
}

pub fn status(client: &mut postgres::Client, target: &Target, size: BoardSize) -> Result<Status, StoreError> {
    let n = size.n() as i32;
    let summary = read_summary(client, target, n)?;
    let e = db_err;
    let events = client
        .query(
            "SELECT host, event::text FROM queens_event WHERE n = $1 ORDER BY host, t",
            &[&n],
        )
        .map_err(e(target, "reading the history"))?
        .iter()
        .filter_map(|r| {
            let ev = serde_json::from_str(r.get::<_, &str>(1)).ok()?;
            Some((r.get::<_, String>(0), ev))
        })
        .collect();
    let solvers = read_solvers(client, target, n)?;
    let leases = client
        .query(
            "SELECT holder, count(*), extract(epoch FROM min(lease_until) - now())::float8 FROM queens_block
             WHERE n = $1 AND lease IS NOT NULL AND lease_until > now() GROUP BY holder ORDER BY holder",
            &[&n],
        )
        .map_err(e(target, "reading leases"))?
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    let disputes = client
        .query(
            "SELECT entry, kept, other, host FROM queens_dispute WHERE n = $1 ORDER BY t",
            &[&n],
        )
        .map_err(e(target, "reading disputes"))?
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect();
    Ok(Status {
        summary,
        events,
        solvers,
        leases,
        disputes,
    })
}

fn missing(target: &Target, n: i32) -> StoreError {
    StoreError::Campaign {
        db: target.shown.clone(),
        what: format!("no campaign of N = {n} (`queens run {n} --campaign URL` creates one)"),
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
        // What the totals gain, per class: solved entries and summed counts.
        let mut dsolved = [0i64; 3];
        let mut dsums = [0i64; 3];
        let mut checks = CrossChecks::default();
        let mut disputes: Vec<(i64, i64, i64)> = Vec::new();
        let mut upd: Rows = Default::default();
        for r in &rows {
            let block: i32 = r.get(0);
            let len: i32 = r.get(1);
            let mut solved: i32 = r.get(2);
            let mut entries: Vec<u8> = r.get(3);
            let mut cycles: Option<Vec<u8>> = r.get(4);
            let first = block as u64 * BLOCK as u64;
            let sym = |entries: &[u8], off: usize| {
                Entry::decode(
                    self.size,
                    entries[off * ENTRY_BYTES..][..ENTRY_BYTES]
                        .try_into()
                        .expect("16 bytes"),
                )
                .map(|x| x.sym)
                .map_err(|x| StoreError::Campaign {
                    db: self.target.shown.clone(),
                    what: format!("entry {} is corrupted: {x}", first + off as u64),
                })
            };
            for &(off, w2, cyc) in self.results.get(&block).into_iter().flatten() {
                let stored = word2(&entries, off);
                let (old, new) = (Solution::from_word(stored), Solution::from_word(w2));
                if stored == 0 {
                    entries[off * ENTRY_BYTES + 8..][..8].copy_from_slice(&w2.to_be_bytes());
                    let slot = sym(&entries, off)?.slot();
                    dsolved[slot] += 1;
                    dsums[slot] += new.whole() as i64;
                    solved += 1;
                    if let Some(c) = cyc {
                        let cs = cycles.get_or_insert_with(|| vec![0; len as usize * 8]);
                        cs[off * 8..][..8].copy_from_slice(&c.max(1).to_le_bytes());
                    }
                } else if old.whole() == new.whole() {
                    checks.agreed += 1;
                } else {
                    checks.disputed += 1;
                    let index = first + off as u64;
                    tracing::error!(
                        index,
                        kept = old.whole(),
                        kept_solver = old.solver,
                        other = new.whole(),
                        other_solver = new.solver,
                        "another host solved this subproblem with a different count: the first is kept, the dispute recorded"
                    );
                    disputes.push((index as i64, stored as i64, w2 as i64));
                }
            }
            for &(b, off, w2) in &self.corrections {
                if b != block {
                    continue;
                }
                let stored = word2(&entries, off);
                let slot = sym(&entries, off)?.slot();
                if stored != 0 {
                    // The old count comes off; the entry stays solved unless withdrawn.
                    dsums[slot] -= Solution::from_word(stored).whole() as i64;
                    if w2 == 0 {
                        solved -= 1;
                        dsolved[slot] -= 1;
                    }
                } else if w2 != 0 {
                    solved += 1;
                    dsolved[slot] += 1;
                }
                if w2 != 0 {
                    dsums[slot] += Solution::from_word(w2).whole() as i64;
                }
                entries[off * ENTRY_BYTES + 8..][..8].copy_from_slice(&w2.to_be_bytes());
            }
            upd.push(block, solved, entries, cycles);
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
        let row = if dsolved.iter().chain(&dsums).all(|&d| d == 0) {
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
                &[&n, &&dsolved[..], &&dsums[..]],
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
        for (index, kept, other) in &disputes {
            tx.execute(
                "INSERT INTO queens_dispute (n, entry, kept, other, host) VALUES ($1, $2, $3, $4, $5)",
                &[&n, index, kept, other, &self.who],
            )
            .map_err(e("recording a dispute"))?;
        }
        tx.commit().map_err(e("committing results"))?;
        // Committed: only now is the buffer let go (a failed commit is simply redone).
        self.summary = summary_of(&row);
        self.checks.agreed += checks.agreed;
        self.checks.disputed += checks.disputed;
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
        self.results
            .entry(block)
            .or_default()
            .push((off, solution.word(), cycles));
        self.buffered.insert(index);
        Ok(())
    }

    fn correct(&mut self, index: u64, solution: Solution) -> Result<(), StoreError> {
        let (block, off) = block_of(index);
        self.corrections.push((block, off, solution.word()));
        Ok(())
    }

    fn retract(&mut self, index: u64) -> Result<(), StoreError> {
        // A correction to no solution: merged like the others, at the next commit.
        let (block, off) = block_of(index);
        self.corrections.push((block, off, 0));
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

/// Deletes the campaign of `size` and everything that belongs to it.
pub fn drop_campaign(
    client: &mut postgres::Client,
    target: &Target,
    size: BoardSize,
) -> Result<(), StoreError> {
    client
        .execute("DELETE FROM queens_campaign WHERE n = $1", &[&(size.n() as i32)])
        .map_err(db_err(target, "deleting the campaign"))?;
    Ok(())
}

/// Bytes the campaign tables take on disk (heap, TOAST and indexes of the blocks).
pub fn disk_bytes(client: &mut postgres::Client, target: &Target) -> Result<u64, StoreError> {
    let r = client
        .query_one("SELECT pg_total_relation_size('queens_block')", &[])
        .map_err(db_err(target, "measuring the tables"))?;
    Ok(r.get::<_, i64>(0) as u64)
}

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
    /// Reads the campaign of `size` through `client` (from [`connect`]).
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
