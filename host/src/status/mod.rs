//! What `queens serve` shows of a campaign: progress and the expected end with its interval,
//! throughput over time per host and per board, the boards and hosts gone quiet, the
//! cross-checks, the running total and how much of it is confirmed. Built from what
//! `db stats` reads ([`Stats`]) and the progress samples the history keeps (every 10 s of a
//! run, with each board's count); drawn as one HTML page with its plots in SVG.

use crate::store::history::{BoardSample, Event};
use crate::store::stats::Stats;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

mod page;
pub use page::plot;

/// A run samples its progress every 10 s; one whose last sample is older than this is not
/// running (a sample or two may be late on a loaded machine).
pub const LIVE_SECONDS: f64 = 35.0;
/// The rates "now" are taken over the samples of the last minute, the expected end's
/// interval over those of the last ten.
const RECENT: f64 = 60.0;
const WINDOW: f64 = 600.0;
/// Points a plot's line keeps at most (samples are averaged into this many time bins).
const POINTS: usize = 400;

/// One board of a running session.
#[derive(Debug, Clone, Serialize)]
pub struct BoardRow {
    pub solver: u16,
    pub link: String,
    /// The host process (a shared campaign's) or None.
    pub host: Option<String>,
    /// Solved by this board in its session.
    pub solved: u64,
    /// Per second over the last minute.
    pub rate: f64,
    /// Unix time of the sample that first showed its current count (None: nothing yet).
    pub last_result: Option<f64>,
    /// Silent for longer than its rate leads one to expect (or than `--quiet`).
    pub quiet: bool,
    /// The silence after which it counts as quiet, in seconds.
    pub quiet_after: f64,
}

/// One host process (a file's single host is None).
#[derive(Debug, Clone, Serialize)]
pub struct HostRow {
    pub host: Option<String>,
    pub last_sample: f64,
    pub rate: f64,
    pub running: bool,
    /// Not running while the campaign is not done.
    pub quiet: bool,
}

/// When the campaign should end: seconds from now at the recent rate, and at the slowest and
/// fastest of the last ten minutes' sample intervals.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Eta {
    pub seconds: f64,
    pub low: f64,
    pub high: Option<f64>,
}

/// A line of a plot: its label and its points (Unix time, value).
#[derive(Debug, Clone, Serialize)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// Everything the page shows.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    pub name: String,
    pub n: u32,
    pub at: f64,
    pub subproblems: u64,
    pub solved: u64,
    pub pending: u64,
    pub complete: bool,
    pub total: String,
    /// A shared campaign's counts confirmed by a host of another role, and those waiting.
    pub confirmed: u64,
    pub checks_pending: u64,
    pub unsettled: u64,
    pub quarantined: Vec<String>,
    pub disputes: usize,
    pub one_role: Option<bool>,
    /// Subproblems a second over the last minute, every running host.
    pub rate: f64,
    pub eta: Option<Eta>,
    pub running: bool,
    pub hosts: Vec<HostRow>,
    pub boards: Vec<BoardRow>,
    pub host_series: Vec<Series>,
    pub board_series: Vec<Series>,
}

/// A session's samples: time, the campaign's solved count, each board's.
struct Session {
    host: Option<String>,
    samples: Vec<(f64, u64, Vec<BoardSample>)>,
}

fn sessions(histories: &[(Option<String>, Vec<Event>)]) -> Vec<Session> {
    let mut out = Vec::new();
    for (host, events) in histories {
        for e in events {
            match e {
                Event::Session { .. } => out.push(Session {
                    host: host.clone(),
                    samples: Vec::new(),
                }),
                Event::Progress { t, solved, boards } => {
                    if let Some(s) = out.last_mut().filter(|s| &s.host == host) {
                        s.samples.push((*t, *solved, boards.clone()));
                    }
                }
                _ => {}
            }
        }
    }
    out.retain(|s| !s.samples.is_empty());
    out
}

/// A board's counts in a session, from its start: a session's first sample, taken before
/// its links opened, counts every board at 0.
fn board_counts(x: &Session, id: u16) -> Vec<(f64, u64)> {
    let mut v: Vec<(f64, u64)> = x
        .samples
        .iter()
        .filter_map(|(t, _, bs)| bs.iter().find(|b| b.solver == id).map(|b| (*t, b.solved)))
        .collect();
    if let Some(&(t0, _, ref bs)) = x.samples.first() {
        if bs.iter().all(|b| b.solver != id) {
            v.insert(0, (t0, 0));
        }
    }
    v
}

/// The rate over the samples since `since` (the last sample before it included).
fn rate_since(samples: &[(f64, u64)], since: f64) -> f64 {
    let Some(&(t1, v1)) = samples.last() else {
        return 0.0;
    };
    let start = samples.iter().rposition(|&(t, _)| t <= since).unwrap_or(0);
    let (t0, v0) = samples[start];
    if t1 > t0 {
        v1.saturating_sub(v0) as f64 / (t1 - t0)
    } else {
        0.0
    }
}

/// Rates between consecutive samples, averaged into at most [`POINTS`] time bins.
fn rate_points(samples: &[(f64, u64)]) -> Vec<(f64, f64)> {
    let mut pts: Vec<(f64, f64)> = samples
        .windows(2)
        .filter(|w| w[1].0 > w[0].0)
        .map(|w| (w[1].0, w[1].1.saturating_sub(w[0].1) as f64 / (w[1].0 - w[0].0)))
        .collect();
    if pts.len() > POINTS {
        let (a, b) = (pts[0].0, pts[pts.len() - 1].0);
        let width = (b - a) / POINTS as f64;
        let mut bins: BTreeMap<usize, (f64, f64, u32)> = BTreeMap::new();
        for (t, r) in pts {
            let k = (((t - a) / width) as usize).min(POINTS - 1);
            let e = bins.entry(k).or_default();
            *e = (e.0 + t, e.1 + r, e.2 + 1);
        }
        pts = bins
            .into_values()
            .map(|(t, r, n)| (t / n as f64, r / n as f64))
            .collect();
    }
    pts
}

impl Status {
    /// The status of the campaign `stats` describes, at Unix time `now`. `quiet`: the
    /// silence after which a board counts as quiet (None: ten times its usual gap between
    /// results, at least two minutes; ten minutes for a board with no result yet).
    pub fn of(stats: &Stats, now: f64, quiet: Option<f64>) -> Status {
        let s = &stats.summary;
        let names: HashMap<u16, &str> = stats.solvers.iter().map(|(id, l)| (*id, l.as_str())).collect();
        let all = sessions(&stats.histories);
        // Per host, its last session.
        let mut last: BTreeMap<Option<String>, usize> = BTreeMap::new();
        for (i, x) in all.iter().enumerate() {
            last.insert(x.host.clone(), i);
        }
        let complete = s.complete();
        let mut hosts = Vec::new();
        let mut boards = Vec::new();
        let (mut rate, mut low, mut high) = (0.0, 0.0, 0.0);
        for (host, &i) in &last {
            let x = &all[i];
            let campaign: Vec<(f64, u64)> = x.samples.iter().map(|(t, v, _)| (*t, *v)).collect();
            let t_last = campaign.last().map_or(0.0, |p| p.0);
            let running = !complete && now - t_last <= LIVE_SECONDS;
            let r = if running {
                rate_since(&campaign, t_last - RECENT)
            } else {
                0.0
            };
            hosts.push(HostRow {
                host: host.clone(),
                last_sample: t_last,
                rate: r,
                running,
                quiet: !complete && !running,
            });
            if !running {
                continue;
            }
            rate += r;
            let recent: Vec<f64> = rate_points(&campaign)
                .into_iter()
                .filter(|&(t, _)| t >= t_last - WINDOW)
                .map(|p| p.1)
                .collect();
            low += recent.iter().copied().fold(f64::INFINITY, f64::min).min(r);
            high += recent.iter().copied().fold(0.0, f64::max).max(r);
            // The boards of the running session.
            let ids: Vec<u16> = x
                .samples
                .last()
                .map_or(Vec::new(), |l| l.2.iter().map(|b| b.solver).collect());
            for id in ids {
                let counts = board_counts(x, id);
                let &(_, solved) = counts.last().expect("in the last sample");
                // The first sample that showed the current count.
                let since = counts.iter().find(|&&(_, v)| v == solved).map(|p| p.0);
                let last_result = (solved > 0).then_some(since).flatten();
                let start = counts.first().map_or(now, |p| p.0);
                let usual = match last_result {
                    Some(t) if t > start => solved as f64 / (t - start),
                    _ => 0.0,
                };
                // No result yet: the first ones take minutes at a large N.
                let quiet_after = quiet.unwrap_or(if usual > 0.0 {
                    (10.0 / usual).max(120.0)
                } else {
                    600.0
                });
                boards.push(BoardRow {
                    solver: id,
                    link: names.get(&id).unwrap_or(&"?").to_string(),
                    host: host.clone(),
                    solved,
                    rate: rate_since(&counts, t_last - RECENT),
                    last_result,
                    quiet: now - last_result.unwrap_or(start) > quiet_after,
                    quiet_after,
                });
            }
        }
        let pending = s.pending() as f64;
        let eta = (rate > 0.0 && !complete).then(|| Eta {
            seconds: pending / rate,
            low: pending / high.max(rate),
            high: (low > 0.0).then(|| pending / low),
        });
        // Plots: every session of every host, rates between samples.
        let mut host_series: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        let mut board_series: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        for x in &all {
            let who = x.host.clone().unwrap_or_else(|| "this host".into());
            let campaign: Vec<(f64, u64)> = x.samples.iter().map(|(t, v, _)| (*t, *v)).collect();
            host_series
                .entry(who.clone())
                .or_default()
                .extend(rate_points(&campaign));
            let ids: std::collections::BTreeSet<u16> = x
                .samples
                .iter()
                .flat_map(|(_, _, bs)| bs.iter().map(|b| b.solver))
                .collect();
            for id in ids {
                let counts = board_counts(x, id);
                let label = format!("solver {id} ({})", names.get(&id).unwrap_or(&"?"));
                board_series
                    .entry(label)
                    .or_default()
                    .extend(rate_points(&counts));
            }
        }
        let series = |m: BTreeMap<String, Vec<(f64, f64)>>| {
            m.into_iter()
                .map(|(label, points)| Series { label, points })
                .collect()
        };
        let checks = |f: fn(&crate::store::pg::HostStanding) -> u64| stats.hosts.iter().map(f).sum();
        Status {
            name: stats.name.clone(),
            n: stats.size.n(),
            at: now,
            subproblems: s.subproblems,
            solved: s.solved.subproblems(),
            pending: s.pending(),
            complete,
            total: s.solved.total().to_string(),
            confirmed: checks(|h| h.checks_agreed),
            checks_pending: checks(|h| h.checks_pending),
            unsettled: checks(|h| h.checks_unsettled),
            quarantined: stats
                .hosts
                .iter()
                .filter(|h| h.quarantined.is_some())
                .map(|h| h.role.clone())
                .collect(),
            disputes: stats.disputes.len(),
            one_role: stats.checkers.as_ref().map(|c| c.one_role),
            rate,
            eta,
            running: hosts.iter().any(|h| h.running),
            hosts,
            boards,
            host_series: series(host_series),
            board_series: series(board_series),
        }
    }
}
