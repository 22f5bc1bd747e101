//! The campaign's history beside its entries (`<campaign>.history`, one JSON object per line):
//! sessions, the links behind each solver id, and progress samples for throughput figures.
//! The entry file stays byte-compatible with Queens@TUD databases; this file is ours.

use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The campaign file beside this history was written by this program (fresh, exported,
    /// or adopted when first run: see `FileStore::open`). From here on every solver id in its
    /// entries is named by a `Solver` event of this history, so an entry naming another one
    /// is damaged. `stamped`: every solved entry was handed out first (its stamp is set).
    /// A Queens@TUD database, or a campaign written before this event existed, has none.
    Created { t: f64, n: u32, stamped: bool },
    /// A `queens run` began.
    Session { t: f64, n: u32, links: Vec<String> },
    /// A solver id was given to the board behind a link.
    Solver { t: f64, id: u16, link: String },
    /// Solved entries at time `t`, periodically and at the end of a session: the campaign's
    /// count when the session began plus what the session solved; and what each board of
    /// the session solved in it so far, by solver id (absent in older histories).
    Progress {
        t: f64,
        solved: u64,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        boards: Vec<BoardSample>,
    },
    /// Every entry is solved: Q(N) in decimal (it outgrows 64 bits at N = 29).
    Finished { t: f64, total: String },
    /// The board behind a link was caught giving wrong counts: its link was dropped and its
    /// counts of that session withdrawn.
    Quarantined {
        t: f64,
        link: String,
        solver: u16,
        reason: String,
    },
}

/// What one board of a session had solved in it at a progress sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardSample {
    pub solver: u16,
    pub solved: u64,
}

impl Event {
    pub fn time(&self) -> f64 {
        match self {
            Event::Created { t, .. }
            | Event::Session { t, .. }
            | Event::Solver { t, .. }
            | Event::Progress { t, .. }
            | Event::Finished { t, .. }
            | Event::Quarantined { t, .. } => *t,
        }
    }
}

pub fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// The history file that belongs to a campaign file.
pub fn path_of(campaign: &Path) -> PathBuf {
    super::beside(campaign, ".history")
}

/// Reads the events; a line cut short by a crash, or one this version does not know, is
/// skipped (the history is informative, the entries are the record).
pub fn read(path: &Path) -> std::io::Result<Vec<Event>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

/// Appends events, one line each.
pub struct History {
    file: std::fs::File,
}

impl History {
    pub fn append_to(path: &Path) -> std::io::Result<Self> {
        let file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Self { file })
    }

    pub fn record(&mut self, e: &Event) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(e).map_err(std::io::Error::other)?;
        line.push(b'\n');
        self.file.write_all(&line)
    }

    /// Makes the events written so far durable.
    pub fn sync(&mut self) -> std::io::Result<()> {
        self.file.sync_data()
    }
}

/// Writes a whole new history at `path`, replacing any other: through a temporary file of
/// its own (created exclusively beside it) renamed over it once complete and synced.
pub fn write_new(path: &Path, events: &[Event]) -> std::io::Result<()> {
    let tmp = super::temp_beside(path)?;
    for e in events {
        let mut line = serde_json::to_vec(e).map_err(std::io::Error::other)?;
        line.push(b'\n');
        tmp.as_file().write_all(&line)?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
