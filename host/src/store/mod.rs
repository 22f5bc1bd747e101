//! The campaign store: the state of every subproblem of one Q(N) computation (pending, handed
//! out, solved with its count and solver), in the 16-byte database entries of Queens@TUD.
//!
//! [`Store`] is what the dispatcher needs from any store; [`file::FileStore`] keeps a local
//! file (the default); a shared database store can sit behind the same trait.

pub mod file;
pub mod history;

use queens_core::entry::{Solution, Stamp};
use queens_core::{BoardSize, Entry, Subproblem, Tally};
use std::path::PathBuf;

/// A file that belongs to a campaign file: its name with `suffix` appended.
pub fn beside(campaign: &std::path::Path, suffix: &str) -> PathBuf {
    let mut p = campaign.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// A subproblem handed out by the store, by its index in canonical order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Claim {
    pub index: u64,
    pub sub: Subproblem,
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
}

impl Summary {
    pub fn pending(&self) -> u64 {
        self.subproblems - self.solved.subproblems()
    }

    pub fn complete(&self) -> bool {
        self.pending() == 0
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {what}: {source}")]
    Io {
        path: PathBuf,
        what: &'static str,
        source: std::io::Error,
    },
    #[error("{path} is in use by another queens process (it holds the campaign's lock)")]
    Busy { path: PathBuf },
    #[error("{path} exists (it may hold results); pass --force to replace it")]
    Exists { path: PathBuf },
    #[error("{path}: {bytes} bytes is not a whole number of 16-byte entries")]
    Length { path: PathBuf, bytes: u64 },
    #[error("{path}: {entries} entries is the size of no campaign (N = 6..=32 have other counts)")]
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
    #[error("entry {index} is already solved (count {count}); it is never counted twice")]
    AlreadySolved { index: u64, count: u64 },
    #[error("entry {index} is outside the campaign ({len} entries)")]
    Index { index: u64, len: u64 },
    #[error("the campaign has more than 4095 solvers; their ids do not fit the entry")]
    Solvers,
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

    fn entry(&self, index: u64) -> Result<Entry, StoreError>;

    /// Makes everything recorded so far durable.
    fn sync(&mut self) -> Result<(), StoreError>;

    /// The 12-bit solver id recorded with the counts of the board behind `link`.
    fn solver_id(&mut self, link: &str) -> Result<u16, StoreError>;
}
