//! The campaign store: the state of every subproblem of one Q(N) computation (pending, handed
//! out, solved with its count and solver), in the 16-byte database entries of Queens@TUD.
//!
//! [`Store`] is what the dispatcher needs from any store; [`file::FileStore`] keeps a local
//! file (the default); a shared database store can sit behind the same trait.
//! [`Location`] says where a campaign is kept; [`campaign::Campaign`] reads a campaign of
//! either kind; [`stats`] and [`verify`] are what `db stats` and `db verify` find in one.

pub mod campaign;
pub mod file;
pub mod history;
mod location;
pub mod pg;
pub mod pg_conn;
pub mod stats;
pub mod verify;

pub use location::Location;

use history::Event;
use queens_core::board::{MAX_N, MIN_N};
use queens_core::entry::{Solution, Stamp, ENTRY_BYTES};
use queens_core::{BoardSize, Entry, Enumerator, Subproblem, Tally};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// A file that belongs to a campaign file: its name with `suffix` appended.
pub fn beside(campaign: &std::path::Path, suffix: &str) -> PathBuf {
    let mut p = campaign.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// A new temporary file beside `path` (in its directory, so that it can be renamed onto it
/// once complete), created exclusively under a random name, `.<name>.<random>.partial`: never
/// a user's file, nor another process's. Deleted if dropped before it is persisted. Its mode
/// is what the umask leaves of rw-rw-rw-, as for any file the user makes.
pub fn temp_beside(path: &std::path::Path) -> std::io::Result<tempfile::NamedTempFile> {
    use std::os::unix::fs::PermissionsExt;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let name = path
        .file_name()
        .map_or("file".into(), |n| n.to_string_lossy().into_owned());
    tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".partial")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
}

/// Every entry of a fresh campaign in canonical order, handed to `sink` in chunks of whole
/// entries (prefixes are enumerated in parallel, chunks arrive in order); `done` counts the
/// entries. Returns the number of entries.
pub fn fresh_entries<E>(
    size: BoardSize,
    done: &AtomicU64,
    mut sink: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<u64, E> {
    let e = Enumerator::new(size);
    let mut written = 0u64;
    // A batch's entries are held until written: 32 prefixes are about 40 MB at N = 27 (512
    // held 670 MB there).
    for batch in e.prefixes().chunks(32) {
        let bufs: Vec<Vec<u8>> = batch
            .par_iter()
            .map(|&p| {
                let mut v = Vec::new();
                e.for_each_in(p, |sp| {
                    v.extend_from_slice(&Entry::fresh(sp.pre, sp.sym).encode())
                });
                v
            })
            .collect();
        for b in bufs {
            sink(&b)?;
            let entries = (b.len() / ENTRY_BYTES) as u64;
            written += entries;
            done.fetch_add(entries, Ordering::Relaxed);
        }
    }
    Ok(written)
}

/// What a long open or creation is doing, for a bar to show, and a flag that stops it.
#[derive(Default)]
pub struct Watch {
    phase: std::sync::Mutex<(String, u64)>,
    /// Work done in the current phase (entries).
    pub done: std::sync::atomic::AtomicU64,
    pub stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Watch {
    /// One stopped by `stop`.
    pub fn stopped_by(stop: std::sync::Arc<std::sync::atomic::AtomicBool>) -> Self {
        Self {
            stop,
            ..Self::default()
        }
    }

    /// A new phase of `total` entries.
    pub fn begin(&self, what: &str, total: u64) {
        *self.phase.lock().unwrap_or_else(|e| e.into_inner()) = (what.to_string(), total);
        self.done.store(0, std::sync::atomic::Ordering::Relaxed);
    }

    /// The phase now and its size.
    pub fn phase(&self) -> (String, u64) {
        self.phase.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// A subproblem handed out by the store, by its index in canonical order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim {
    pub index: u64,
    pub sub: Subproblem,
}

impl Claim {
    /// Entry `index` of a campaign of `size`, decoded and checked from its 16 bytes, and the
    /// claim of its subproblem: the one place a stored entry becomes work for a board.
    pub fn decode(
        size: BoardSize,
        index: u64,
        raw: &[u8; ENTRY_BYTES],
    ) -> Result<(Self, Entry), queens_core::ModelError> {
        let entry = Entry::decode(size, raw)?;
        let sub = Subproblem {
            pre: entry.pre,
            sym: entry.sym,
        };
        Ok((Self { index, sub }, entry))
    }
}

/// Where a campaign stands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Entries in the campaign.
    pub subproblems: u64,
    /// Solved entries per class and their summed counts.
    pub solved: Tally,
    /// All entries per class.
    pub census: [u64; 3],
    /// Entries whose counts are trusted from a campaign file's summary and not yet read
    /// again this session: no total that includes them is final.
    pub unchecked: u64,
}

impl Summary {
    pub fn pending(&self) -> u64 {
        self.subproblems - self.solved.subproblems()
    }

    pub fn complete(&self) -> bool {
        self.pending() == 0
    }

    /// Every entry solved and every count read from the campaign itself this session.
    pub fn final_total(&self) -> bool {
        self.complete() && self.unchecked == 0
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The I/O error is part of the message, not a source of its own: a report shows it once.
    #[error("{path}: {what}: {error}")]
    Io {
        path: PathBuf,
        what: &'static str,
        error: std::io::Error,
    },
    #[error("{path}: no such campaign file; `queens run N` makes one (q<N>.campaign, or the name --campaign gives), `queens db import` moves one in")]
    NoCampaign { path: PathBuf },
    #[error("{dir}: no such folder, so the campaign {path} cannot be made there; make the folder first (mkdir -p {dir}) or name a campaign in a folder that exists")]
    NoFolder { dir: PathBuf, path: PathBuf },
    #[error("{dir} is on a read-only file system, so the campaign {path} cannot be written there; name a campaign on a disk this machine can write")]
    ReadOnly { dir: PathBuf, path: PathBuf },
    #[error("{dir}: this user may not write in that folder, so the campaign {path} cannot be made there; name a campaign in a folder of your own, or ask for write permission")]
    NotWritable { dir: PathBuf, path: PathBuf },
    #[error("the disk that holds {path} ({disk}) is full: {what} failed with {free} free; free at least {need} there and run the same command again: every result recorded so far is kept in the campaign")]
    DiskFull {
        path: PathBuf,
        disk: PathBuf,
        what: &'static str,
        free: Bytes,
        need: Bytes,
    },
    #[error("{path} is in use by another queens process (it holds the campaign's lock)")]
    Busy { path: PathBuf },
    #[error("{path} exists (it may hold results); pass --force to replace it")]
    Exists { path: PathBuf },
    #[error("{path} is not a campaign file: its {bytes} bytes are not a whole number of 16-byte entries (`queens run N` makes a campaign)")]
    Length { path: PathBuf, bytes: u64 },
    #[error("{path}: {bytes} bytes, not the campaign's {expected}: the file of cycle counts beside a campaign is damaged; move it away (the counts it held are lost, the results are not) and run again")]
    CyclesLength {
        path: PathBuf,
        bytes: u64,
        expected: u64,
    },
    #[error(
        "{path} is not a campaign file: {entries} entries is the size of no campaign (N = {MIN_N}..={MAX_N} have other counts)"
    )]
    UnknownSize { path: PathBuf, entries: u64 },
    #[error("{path} is a campaign of N = {found} ({entries} entries), not of N = {expected}")]
    WrongN {
        path: PathBuf,
        found: u32,
        expected: u32,
        entries: u64,
    },
    #[error("{path}: entry {index} (byte {offset}) is corrupted: {reason}")]
    Corrupt {
        path: PathBuf,
        index: u64,
        offset: u64,
        reason: String,
    },
    #[error("{what} was stopped ({path} was left as it was before)")]
    Stopped { path: PathBuf, what: &'static str },
    #[error("{path}: a campaign of N = {n} needs {need}; the disk that holds it ({disk}) has {free} free: free some space there, or name a campaign on another disk")]
    Space {
        path: PathBuf,
        disk: PathBuf,
        n: u32,
        need: Bytes,
        free: Bytes,
    },
    #[error("{path}: nothing more is written to it after a damaged entry was found: {why}")]
    Broken { path: PathBuf, why: String },
    #[error("entry {index} is already solved (count {count}); it is never counted twice")]
    AlreadySolved { index: u64, count: u64 },
    #[error("entry {index} is outside the campaign ({len} entries)")]
    Index { index: u64, len: u64 },
    #[error("the campaign has more than 4095 solvers; their ids do not fit the entry")]
    Solvers,
    #[error(transparent)]
    Conn(#[from] pg_conn::ConnError),
    #[error(transparent)]
    Model(#[from] queens_core::ModelError),
    #[error("{db}: {what}: {source}")]
    Db {
        db: String,
        what: &'static str,
        source: postgres::Error,
    },
    #[error("{db}: {what}")]
    Campaign { db: String, what: String },
}

/// A size in bytes, shown as a person reads it ("1.5 GB (1,500,000,000 bytes)").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Bytes(pub u64);

impl std::fmt::Display for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let b = self.0;
        let grouped = crate::number::thousands(b as u128);
        match b {
            0..1_000 => write!(f, "{b} bytes"),
            _ => {
                let (v, unit) = [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")]
                    .into_iter()
                    .find(|&(d, _)| b as f64 >= d)
                    .map(|(d, u)| (b as f64 / d, u))
                    .expect("at least 1,000 bytes");
                write!(f, "{v:.1} {unit} ({grouped} bytes)")
            }
        }
    }
}

/// Where a file's disk is: the mount point of the file system that holds `path` (or the
/// folder it would be made in), for messages about its space.
pub fn disk_of(path: &std::path::Path) -> PathBuf {
    use std::os::unix::fs::MetadataExt;
    let mut at = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    while std::fs::metadata(&at).is_err() {
        match at.parent() {
            Some(p) => at = p.to_path_buf(),
            None => return path.to_path_buf(),
        }
    }
    let dev = std::fs::metadata(&at).map(|m| m.dev()).ok();
    while let Some(p) = at.parent() {
        if std::fs::metadata(p).map(|m| m.dev()).ok() != dev {
            break;
        }
        at = p.to_path_buf();
    }
    at
}

/// Bytes free to an unprivileged user on the file system that holds `path` (or would).
pub fn free_bytes(path: &std::path::Path) -> Option<u64> {
    let st = nix::sys::statvfs::statvfs(&disk_of(path)).ok()?;
    Some(st.blocks_available() as u64 * st.fragment_size() as u64)
}

impl StoreError {
    /// An I/O error on `path` while doing `what`: a full disk (or quota) named as such, with
    /// the disk, its free space and what it needs (`need` bytes, at least a block's worth).
    pub fn io(path: &std::path::Path, what: &'static str, error: std::io::Error, need: u64) -> Self {
        let full = [nix::errno::Errno::ENOSPC as i32, nix::errno::Errno::EDQUOT as i32];
        if error.raw_os_error().is_some_and(|c| full.contains(&c)) {
            return StoreError::DiskFull {
                path: path.to_owned(),
                disk: disk_of(path),
                what,
                free: Bytes(free_bytes(path).unwrap_or(0)),
                need: Bytes(need.max(1 << 20)),
            };
        }
        StoreError::Io {
            path: path.to_owned(),
            what,
            error,
        }
    }
}

/// Results a shared store found already solved by another host when it committed them,
/// and how much of the campaign's total hosts of another role have confirmed.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct CrossChecks {
    /// The other host's count was the same: nothing counted twice.
    pub agreed: u64,
    /// The counts differ: kept the first, recorded the dispute.
    pub disputed: u64,
    /// Counts of the campaign recomputed and confirmed by a host of another role.
    pub confirmed: u64,
    /// Counts chosen for such a recomputation that has not come yet.
    pub pending: u64,
    /// Who can recompute them, read as the report is made (a shared store; none when the
    /// database could not be asked).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub checkers: Option<pg::Checkers>,
}

/// What the dispatcher needs from a campaign store.
pub trait Store: Send {
    fn size(&self) -> BoardSize;

    fn summary(&self) -> Summary;

    /// Up to `max` unsolved subproblems not yet claimed in this session, in canonical order,
    /// each marked as handed out at `stamp`. Empty when every unsolved one has been claimed.
    fn claim(&mut self, max: usize, stamp: Stamp) -> Result<Vec<Claim>, StoreError>;

    /// Records the count of an unsolved entry; fails for a solved one.
    fn solve(&mut self, index: u64, solution: Solution, cycles: Option<u64>) -> Result<(), StoreError>;

    /// Replaces the count of a solved entry once a recomputation has settled a dispute.
    fn correct(&mut self, index: u64, solution: Solution) -> Result<(), StoreError>;

    /// Makes a solved entry unsolved again, its count withdrawn from the totals: the results
    /// of a board caught lying are computed again elsewhere.
    fn retract(&mut self, index: u64) -> Result<(), StoreError>;

    /// Withdraws every count `solver` gave in any session (a board caught lying): the
    /// entries are unsolved again and handed out anew; the totals lose them. The counts of
    /// this session were retracted one by one before; this finds the rest.
    fn withdraw_solver(&mut self, solver: u16, reason: &str) -> Result<(), StoreError>;

    /// Makes everything recorded so far durable.
    fn sync(&mut self) -> Result<(), StoreError>;

    /// Starts making what was recorded so far durable, without waiting for it where the store
    /// can (a shared store commits on a connection of its own while the caller goes on; the
    /// results stay with it until the database has them). `sync` waits for it all.
    fn sync_soon(&mut self) -> Result<(), StoreError> {
        self.sync()
    }

    /// The 12-bit solver id recorded with the counts of the board behind `link`.
    fn solver_id(&mut self, link: &str) -> Result<u16, StoreError>;

    /// Adds to the campaign's history (sessions, progress); never fatal.
    fn record(&mut self, _event: &Event) {}

    /// Whether unsolved subproblems that `claim` could not give now may come free later
    /// (leases of other hosts that may expire). Asked after `sync` once this session has
    /// run out of work.
    fn more_later(&mut self) -> Result<bool, StoreError> {
        Ok(false)
    }

    /// Waits until every count the totals hold has been read from the campaign itself this
    /// session (a file store's background check), so that a complete total is final.
    fn settle(&mut self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Results found solved by another host, and how much of the total hosts of another role
    /// confirmed and can still confirm (asked once, for the run's report).
    fn cross_checks(&mut self) -> CrossChecks {
        CrossChecks::default()
    }
    /// How the store keeps up, for metrics (asked often: nothing it has to ask a server).
    fn health(&self) -> StoreHealth {
        StoreHealth {
            online: true,
            ..StoreHealth::default()
        }
    }
}

/// How a store keeps up: results not yet durable, leases held, the server reachable.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StoreHealth {
    /// Results taken that the store has not yet made durable (a shared store's, waiting for
    /// a commit; a file's are in the file at once).
    pub uncommitted: u64,
    /// Blocks of a shared campaign leased now, and how long a lease lasts unrenewed.
    pub leases: u64,
    pub lease: Option<std::time::Duration>,
    /// The store answers (a shared campaign's database could be reached at the last try).
    pub online: bool,
    /// Results found to differ from another host's count for the same entry.
    pub disputed: u64,
}
