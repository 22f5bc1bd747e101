//! `db stats`: where a campaign stands, wherever it is kept, with the throughput of each
//! session its history records.

use super::file::{Access, FileStore, Watch};
use super::history::Event;
use super::pg_conn::Target;
use super::{pg, Location, Store, StoreError, Summary};
use queens_core::BoardSize;
use serde::Serialize;
use std::path::Path;

/// What `db stats` shows of a campaign.
pub struct Stats {
    /// The file or the database, as it is shown.
    pub name: String,
    pub size: BoardSize,
    pub summary: Summary,
    /// Oldest first.
    pub sessions: Vec<Session>,
    pub solvers: Vec<(u16, String)>,
    /// Live leases of a shared campaign, per host process.
    pub leases: Vec<pg::Lease>,
    /// Results of two hosts that differ, recorded by a shared campaign.
    pub disputes: Vec<pg::Dispute>,
    /// Each host role of a shared campaign: what it gave, what another host confirmed.
    pub hosts: Vec<pg::HostStanding>,
    /// Who can recompute a shared campaign's counts chosen for a check.
    pub checkers: Option<pg::Checkers>,
    /// A campaign file answered from its summary: where that stands.
    pub from_summary: Option<FromSummary>,
    /// Every entry checked and summed anew (`--recount`).
    pub recount: Option<Summary>,
    /// The history events, per host process of a shared campaign (None: a file's).
    pub histories: Vec<(Option<String>, Vec<Event>)>,
}

/// How far a campaign file's summary has been read against the file.
pub struct FromSummary {
    pub path: String,
    /// When a run's background pass (or a full check) last read every block.
    pub checked_at: Option<f64>,
    /// Entries of blocks written since the last sync, read for this answer.
    pub reread: u64,
}

/// A session of a run: when it began, how long it ran and what it solved.
#[derive(Debug, Clone, Serialize)]
pub struct Session {
    /// The host process, for a shared campaign.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    pub start: f64,
    pub seconds: f64,
    pub solved: u64,
    pub per_second: f64,
    pub links: Vec<String>,
}

impl Stats {
    /// Reads the stats of `campaign`; `size` chooses among a database's campaigns (see
    /// [`pg::which`]).
    pub fn read(
        campaign: &Location,
        size: Option<BoardSize>,
        recount: bool,
        watch: &Watch,
    ) -> Result<Self, StoreError> {
        match campaign {
            Location::File(file) => Self::of_file(file, recount, watch),
            Location::Postgres(db) => Self::of_database(&db.target()?, size),
        }
    }

    fn of_file(file: &Path, recount: bool, watch: &Watch) -> Result<Self, StoreError> {
        let store = FileStore::open_watched(file, None, Access::Read, watch)?;
        let kept = store.kept();
        let from_summary = (store.summary().unchecked > 0).then(|| FromSummary {
            path: super::file::summary::path_of(file).display().to_string(),
            checked_at: (kept.checked_at > 0.0).then_some(kept.checked_at),
            reread: store.summary().subproblems - store.summary().unchecked,
        });
        let recount = if recount {
            Some(store.recount(watch)?)
        } else {
            None
        };
        let events = store.history()?;
        Ok(Stats {
            from_summary,
            recount,
            name: file.display().to_string(),
            size: store.size(),
            summary: store.summary(),
            sessions: sessions(&events),
            histories: vec![(None, events)],
            solvers: store.solvers(),
            leases: Vec::new(),
            disputes: Vec::new(),
            hosts: Vec::new(),
            checkers: None,
        })
    }

    fn of_database(target: &Target, size: Option<BoardSize>) -> Result<Self, StoreError> {
        let mut client = pg::connect(target)?;
        let size = pg::which(&mut client, target, size)?;
        let st = pg::status(&mut client, target, size)?;
        let mut all = Vec::new();
        for h in &st.histories {
            all.extend(sessions(&h.events).into_iter().map(|mut s| {
                s.host = Some(h.host.clone());
                s
            }));
        }
        all.sort_by(|x, y| x.start.total_cmp(&y.start));
        Ok(Stats {
            name: target.shown.clone(),
            size,
            summary: st.summary,
            sessions: all,
            solvers: st.solvers,
            leases: st.leases,
            disputes: st.disputes,
            hosts: st.hosts,
            checkers: Some(st.checkers),
            from_summary: None,
            recount: None,
            histories: st
                .histories
                .into_iter()
                .map(|h| (Some(h.host), h.events))
                .collect(),
        })
    }
}

/// Sessions from the history: when each began, how long it ran and what it solved (a
/// session's first progress sample, written as it starts, is its base).
pub fn sessions(events: &[Event]) -> Vec<Session> {
    let mut out: Vec<Session> = Vec::new();
    let mut base = None;
    for e in events {
        match e {
            Event::Session { t, links, .. } => {
                out.push(Session {
                    host: None,
                    start: *t,
                    seconds: 0.0,
                    solved: 0,
                    per_second: 0.0,
                    links: links.clone(),
                });
                base = None;
            }
            Event::Progress { t, solved, .. } => {
                if let Some(s) = out.last_mut() {
                    let b = *base.get_or_insert(*solved);
                    s.seconds = t - s.start;
                    s.solved = solved.saturating_sub(b);
                    s.per_second = if s.seconds > 0.0 {
                        s.solved as f64 / s.seconds
                    } else {
                        0.0
                    };
                }
            }
            _ => {}
        }
    }
    out
}
