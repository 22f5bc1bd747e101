//! What `queens serve` shows of a campaign: progress and the expected end with its interval,
//! throughput over time per host and per board, the boards and hosts gone quiet, the
//! cross-checks, the running total and how much of it is confirmed. Built from what
//! `db stats` reads ([`Stats`]) and the progress samples the history keeps (every 10 s of a
//! run, with each board's count); drawn as one HTML page with its plots in SVG.

use crate::number::thousands;
use crate::store::history::{BoardSample, Event};
use crate::store::stats::Stats;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use svg::node::element::{Line, Polyline, Rectangle, Text};
use svg::Document;

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

/// Text for HTML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Seconds as a person reads them.
fn span(secs: f64) -> String {
    match secs {
        s if s < 120.0 => format!("{s:.0} s"),
        s if s < 7200.0 => format!("{:.0} min", s / 60.0),
        s if s < 172_800.0 => format!("{:.1} h", s / 3600.0),
        s => format!("{:.1} days", s / 86_400.0),
    }
}

/// A UTC date and time.
fn when(t: f64) -> String {
    time::OffsetDateTime::from_unix_timestamp(t as i64)
        .map(|d| {
            format!(
                "{}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
                d.year(),
                d.month() as u8,
                d.day(),
                d.hour(),
                d.minute(),
                d.second()
            )
        })
        .unwrap_or_else(|_| format!("{t:.0}"))
}

const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
];

/// A plot of `series` (rates over time) as SVG.
pub fn plot(title: &str, series: &[Series]) -> String {
    const W: f64 = 640.0;
    const H: f64 = 180.0;
    const LEFT: f64 = 70.0;
    const TOP: f64 = 24.0;
    let pts = series.iter().flat_map(|s| s.points.iter());
    let (t0, t1) = pts.clone().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
        (a.min(p.0), b.max(p.0))
    });
    let top = pts.map(|p| p.1).fold(0.0, f64::max).max(1.0) * 1.1;
    let legend = 16.0 * series.len() as f64;
    let mut doc = Document::new()
        .set("width", W + LEFT + 20.0)
        .set("height", H + TOP + 40.0 + legend)
        .set("font-family", "sans-serif")
        .set("font-size", 11)
        .add(Text::new(title).set("x", LEFT).set("y", 14));
    doc = doc.add(
        Rectangle::new()
            .set("x", LEFT)
            .set("y", TOP)
            .set("width", W)
            .set("height", H)
            .set("fill", "none")
            .set("stroke", "#444"),
    );
    if !t0.is_finite() || t1 <= t0 {
        return doc
            .add(
                Text::new("no samples yet")
                    .set("x", LEFT + W / 2.0)
                    .set("y", TOP + H / 2.0)
                    .set("text-anchor", "middle"),
            )
            .to_string();
    }
    let x = |t: f64| LEFT + (t - t0) / (t1 - t0) * W;
    let y = |v: f64| TOP + H - v / top * H;
    for k in 0..=4 {
        let v = top * k as f64 / 4.0;
        doc = doc
            .add(
                Line::new()
                    .set("x1", LEFT)
                    .set("x2", LEFT + W)
                    .set("y1", y(v))
                    .set("y2", y(v))
                    .set("stroke", "#eee"),
            )
            .add(
                Text::new(thousands(v.round() as u128))
                    .set("x", LEFT - 6.0)
                    .set("y", y(v) + 4.0)
                    .set("text-anchor", "end"),
            );
    }
    doc = doc
        .add(Text::new(when(t0)).set("x", LEFT).set("y", TOP + H + 14.0))
        .add(
            Text::new(when(t1))
                .set("x", LEFT + W)
                .set("y", TOP + H + 14.0)
                .set("text-anchor", "end"),
        );
    for (i, s) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let line: Vec<String> = s
            .points
            .iter()
            .map(|&(t, v)| format!("{:.1},{:.1}", x(t), y(v)))
            .collect();
        let ly = TOP + H + 32.0 + 16.0 * i as f64;
        doc = doc
            .add(
                Polyline::new()
                    .set("points", line.join(" "))
                    .set("fill", "none")
                    .set("stroke", colour)
                    .set("stroke-width", 1.5),
            )
            .add(
                Line::new()
                    .set("x1", LEFT)
                    .set("x2", LEFT + 20.0)
                    .set("y1", ly - 4.0)
                    .set("y2", ly - 4.0)
                    .set("stroke", colour)
                    .set("stroke-width", 3),
            )
            .add(Text::new(s.label.as_str()).set("x", LEFT + 26.0).set("y", ly));
    }
    doc.to_string()
}

impl Status {
    /// The page: refreshes itself every `refresh` seconds; `query` (e.g. `?token=…`) is
    /// kept in its links.
    pub fn html(&self, refresh: u32, query: &str) -> String {
        let mut h = String::new();
        let pct = 100.0 * self.solved as f64 / self.subproblems.max(1) as f64;
        let _ = write!(
            h,
            r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="{refresh}">
<title>Q({n}): {pct:.2}% — {name}</title>
<style>
body {{ font-family: sans-serif; margin: 1.5em; color: #222; max-width: 60em; }}
table {{ border-collapse: collapse; margin: 0.5em 0 1em; }}
td, th {{ border-bottom: 1px solid #ddd; padding: 0.2em 0.8em; text-align: right; }}
th {{ background: #f4f4f4; }} td.l, th.l {{ text-align: left; }}
.quiet {{ background: #fde0dc; }} .bar {{ background: #eee; height: 1.2em; width: 100%; }}
.bar div {{ background: #2c7fb8; height: 100%; }} .warn {{ color: #b30000; font-weight: bold; }}
</style></head><body>
<h1>Q({n}) — {name}</h1>
<div class="bar"><div style="width: {pct:.3}%"></div></div>
<p><span id="solved">{solved}</span> of <span id="subproblems">{subs}</span> subproblems solved
(<span id="percent">{pct:.2}</span>%), <span id="pending">{pending}</span> pending.</p>
"#,
            n = self.n,
            name = esc(&self.name),
            solved = thousands(self.solved as u128),
            subs = thousands(self.subproblems as u128),
            pending = thousands(self.pending as u128),
        );
        let total = thousands(self.total.parse::<u128>().unwrap_or(0));
        if self.complete {
            let _ = writeln!(
                h,
                r#"<p>Q({}) = <b id="total">{total}</b>: every subproblem solved.</p>"#,
                self.n
            );
        } else {
            let _ = writeln!(h, r#"<p>Running total: <b id="total">{total}</b>.</p>"#);
        }
        match self.eta {
            Some(e) => {
                let _ = writeln!(
                    h,
                    r#"<p id="eta">At <span id="rate">{}</span> subproblems a second (the last minute), the end is expected in <b>{}</b>, at {}; between {} and {} at the fastest and slowest of the last ten minutes.</p>"#,
                    thousands(self.rate.round() as u128),
                    span(e.seconds),
                    when(self.at + e.seconds),
                    span(e.low),
                    e.high.map_or("never (a pause)".into(), span),
                );
            }
            None if self.complete => {}
            None => {
                let _ = writeln!(h, r#"<p id="eta">No run is going on: no end to expect.</p>"#);
            }
        }
        // Cross-checks (a shared campaign).
        if let Some(one) = self.one_role {
            let _ = writeln!(
                h,
                r#"<h2>Cross-checks</h2><p><span id="confirmed">{}</span> counts confirmed by a host of another role, <span id="checks-pending">{}</span> waiting, {} unsettled; <span id="disputes">{}</span> disputes.{}{}</p>"#,
                thousands(self.confirmed as u128),
                thousands(self.checks_pending as u128),
                self.unsettled,
                self.disputes,
                if one {
                    r#" <span class="warn">Every host logs in as one role: no count is confirmed by another.</span>"#
                } else {
                    ""
                },
                if self.quarantined.is_empty() {
                    String::new()
                } else {
                    format!(
                        r#" <span class="warn" id="quarantined">Quarantined: {}.</span>"#,
                        esc(&self.quarantined.join(", "))
                    )
                }
            );
        }
        let _ = writeln!(h, r#"<h2>Boards</h2>"#);
        if self.boards.is_empty() {
            let _ = writeln!(h, "<p>No run is going on.</p>");
        } else {
            let _ = writeln!(
                h,
                r#"<table id="boards"><tr><th>solver</th><th class="l">link</th><th class="l">host</th><th>solved</th><th>per second</th><th class="l">last result</th><th class="l">state</th></tr>"#
            );
            for b in &self.boards {
                let _ = writeln!(
                    h,
                    r#"<tr class="{cls}" data-solver="{id}"><td>{id}</td><td class="l">{link}</td><td class="l">{host}</td><td>{solved}</td><td>{rate:.1}</td><td class="l">{last}</td><td class="l">{state}</td></tr>"#,
                    cls = if b.quiet { "quiet" } else { "" },
                    id = b.solver,
                    link = esc(&b.link),
                    host = esc(b.host.as_deref().unwrap_or("")),
                    solved = thousands(b.solved as u128),
                    rate = b.rate,
                    last = b
                        .last_result
                        .map_or("none yet".into(), |t| format!("{} ago", span(self.at - t))),
                    state = if b.quiet {
                        format!("quiet: nothing for over {}", span(b.quiet_after))
                    } else {
                        "working".into()
                    },
                );
            }
            let _ = writeln!(h, "</table>");
        }
        let _ = writeln!(
            h,
            r#"<h2>Hosts</h2><table id="hosts"><tr><th class="l">host</th><th class="l">last sample</th><th>per second</th><th class="l">state</th></tr>"#
        );
        for x in &self.hosts {
            let _ = writeln!(
                h,
                r#"<tr class="{}"><td class="l">{}</td><td class="l">{}</td><td>{:.1}</td><td class="l">{}</td></tr>"#,
                if x.quiet { "quiet" } else { "" },
                esc(x.host.as_deref().unwrap_or("this campaign's runs")),
                when(x.last_sample),
                x.rate,
                if x.running {
                    "running"
                } else if x.quiet {
                    "quiet: not running"
                } else {
                    "done"
                }
            );
        }
        let _ = writeln!(h, "</table>");
        let _ = writeln!(h, "<h2>Throughput</h2>");
        h += &plot("subproblems a second, per host", &self.host_series);
        h += "\n";
        h += &plot("subproblems a second, per board", &self.board_series);
        let _ = writeln!(
            h,
            r#"<p>As of {}; this page refreshes every {refresh} s. The same as JSON: <a href="/status.json{q}">status.json</a>.</p></body></html>"#,
            when(self.at),
            q = esc(query)
        );
        h
    }
}
