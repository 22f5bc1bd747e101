//! The status as one HTML page, its plots drawn in SVG on the server (nothing is fetched
//! from elsewhere: the page works offline).

use super::{Series, Status};
use crate::number::thousands;
use std::fmt::Write as _;
use svg::node::element::{Line, Polyline, Rectangle, Text};
use svg::Document;

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
