//! `queens db stats`: what a campaign holds, per class and per session, and in a shared
//! campaign each host's standing in the cross-checks.

use crate::cmd::{classes_json, thousands};
use queens_core::{BoardSize, Symmetry};
use queens_host::store::stats::{Session, Stats};
use queens_host::store::{pg, Location};
use serde::Serialize;

#[derive(clap::Args)]
pub struct StatsArgs {
    /// A campaign file, or a shared campaign's database (postgres://…).
    campaign: Location,
    /// Which campaign of the database, when it holds several.
    #[arg(long)]
    n: Option<BoardSize>,
    /// Check every entry of a campaign file against the canonical order and sum it anew,
    /// instead of answering from its summary; both are shown, and any difference named.
    #[arg(long)]
    recount: bool,
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct StatsJson {
    n: u32,
    subproblems: u64,
    solved: u64,
    pending: u64,
    complete: bool,
    total: u128,
    classes: std::collections::BTreeMap<&'static str, crate::cmd::ClassJson>,
    solved_per_class: std::collections::BTreeMap<&'static str, u64>,
    sessions: Vec<Session>,
    leases: Vec<pg::Lease>,
    disputes: Vec<pg::Dispute>,
    hosts: Vec<pg::HostStanding>,
    cross_checked: CrossJson,
    /// A campaign file answered from its summary: when every block was last read against
    /// the file (Unix seconds), and the entries read for this answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    from_summary: Option<SummaryJson>,
    /// `--recount`: every entry checked and summed anew.
    #[serde(skip_serializing_if = "Option::is_none")]
    recount: Option<RecountJson>,
}

#[derive(Serialize)]
struct SummaryJson {
    checked_at: Option<f64>,
    reread: u64,
}

#[derive(Serialize)]
struct RecountJson {
    solved: u64,
    total: u128,
    agrees: bool,
}

/// How much of a shared campaign's total another host recomputed.
#[derive(Serialize)]
struct CrossJson {
    /// Counts confirmed by a host of another role.
    agreed: u64,
    /// Counts chosen for a recomputation that has not come yet.
    pending: u64,
    /// Three hosts, three counts.
    unsettled: u64,
    /// Roles quarantined, outvoted by two others.
    quarantined: Vec<String>,
    /// Who can recompute the chosen counts (a shared campaign): `one_role` when no host
    /// checks another's counts, `unconfirmable` the chosen counts no role can recompute.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    checkers: Option<pg::Checkers>,
}

fn cross(hosts: &[pg::HostStanding], checkers: &Option<pg::Checkers>) -> CrossJson {
    CrossJson {
        checkers: checkers.clone(),
        agreed: hosts.iter().map(|h| h.checks_agreed).sum(),
        pending: hosts.iter().map(|h| h.checks_pending).sum(),
        unsettled: hosts.iter().map(|h| h.checks_unsettled).sum(),
        quarantined: hosts
            .iter()
            .filter(|h| h.quarantined.is_some())
            .map(|h| h.role.clone())
            .collect(),
    }
}

pub(super) fn stats(a: StatsArgs) -> anyhow::Result<()> {
    let watch = queens_host::store::file::Watch::default();
    let v = crate::progress::watched(&watch, || Stats::read(&a.campaign, a.n, a.recount, &watch))?;
    let s = v.summary;
    if a.json {
        let j = StatsJson {
            n: v.size.n(),
            subproblems: s.subproblems,
            solved: s.solved.subproblems(),
            pending: s.pending(),
            complete: s.complete(),
            total: s.solved.total(),
            classes: classes_json(s.census, Some(s.solved.solutions)),
            solved_per_class: Symmetry::ALL
                .iter()
                .map(|c| (c.name(), s.solved.preplacements[c.slot()]))
                .collect(),
            sessions: v.sessions,
            cross_checked: cross(&v.hosts, &v.checkers),
            from_summary: v.from_summary.as_ref().map(|f| SummaryJson {
                checked_at: f.checked_at,
                reread: f.reread,
            }),
            recount: v.recount.as_ref().map(|r| RecountJson {
                solved: r.solved.subproblems(),
                total: r.solved.total(),
                agrees: r.solved == s.solved,
            }),
            leases: v.leases,
            disputes: v.disputes,
            hosts: v.hosts,
        };
        println!("{}", serde_json::to_string(&j)?);
        return Ok(());
    }
    println!(
        "{}: campaign of N = {}, {} subproblems",
        v.name,
        v.size,
        thousands(s.subproblems as u128)
    );
    println!(
        "solved {} ({:.2}%), pending {}",
        thousands(s.solved.subproblems() as u128),
        100.0 * s.solved.subproblems() as f64 / s.subproblems as f64,
        thousands(s.pending() as u128)
    );
    if let Some(f) = &v.from_summary {
        println!(
            "answered from {}: every block last read against the file {}{}",
            f.path,
            f.checked_at
                .map_or("never (a run's background pass does it)".into(), |t| format!(
                    "at {}",
                    when(t)
                )),
            if f.reread > 0 {
                format!(
                    "; {} entries written since the last sync read now",
                    thousands(f.reread as u128)
                )
            } else {
                String::new()
            }
        );
    }
    if let Some(r) = &v.recount {
        if r.solved == s.solved {
            println!("recounted: every entry checked, the same figures as the summary's");
        } else {
            println!(
                "RECOUNT DIFFERS: every entry checked: {} solved, total {}; the summary says {} solved, total {} (the next run makes the summary anew)",
                thousands(r.solved.subproblems() as u128),
                thousands(r.solved.total()),
                thousands(s.solved.subproblems() as u128),
                thousands(s.solved.total())
            );
        }
    }
    let x = cross(&v.hosts, &v.checkers);
    let unconfirmable = v.checkers.as_ref().map_or(0, |c| c.unconfirmable);
    if s.complete() {
        println!(
            "{}",
            crate::cmd::cross::total_line(v.size.n(), s.solved.total(), x.pending, unconfirmable)
        );
    } else {
        println!("running total {}", thousands(s.solved.total()));
    }
    match &v.checkers {
        Some(c) if c.one_role => {
            println!("{}", crate::cmd::cross::one_role_why(c));
            if let Location::Postgres(db) = &a.campaign {
                for l in crate::cmd::cross::one_role_fix(c, &db.target()?, v.size) {
                    println!("{l}");
                }
            }
        }
        _ if !v.hosts.is_empty() => println!(
            "cross-checked: {} of {} solved counts recomputed and confirmed by a host of another role ({:.2}%), {} waiting{}, {} unsettled",
            thousands(x.agreed as u128),
            thousands(s.solved.subproblems() as u128),
            100.0 * x.agreed as f64 / s.solved.subproblems().max(1) as f64,
            thousands(x.pending as u128),
            if unconfirmable > 0 {
                format!(
                    " ({} of them for a host role this campaign does not have: a count two roles dispute waits for a third)",
                    thousands(unconfirmable as u128)
                )
            } else {
                String::new()
            },
            x.unsettled
        ),
        _ => {}
    }
    for c in Symmetry::ALL {
        let i = c.slot();
        println!(
            "{:<8} weight {}  {:>15} of {:>15} solved, {:>20} solutions",
            c.name(),
            c.weight(),
            thousands(s.solved.preplacements[i] as u128),
            thousands(s.census[i] as u128),
            thousands(s.solved.solutions[i] as u128)
        );
    }
    for (k, x) in v.sessions.iter().enumerate() {
        println!(
            "session {}: {} solved in {:.1} s ({:.0}/s) on {}{}",
            k + 1,
            thousands(x.solved as u128),
            x.seconds,
            x.per_second,
            x.links.join(", "),
            x.host.as_ref().map_or(String::new(), |h| format!(" ({h})"))
        );
    }
    for (id, link) in &v.solvers {
        println!("solver {id:>4}: {link}");
    }
    for l in &v.leases {
        println!(
            "lease: {} holds {} block(s), renewal due within {:.0} s",
            l.holder, l.blocks, l.expires_in
        );
    }
    let one_role = v.checkers.as_ref().is_some_and(|c| c.one_role);
    for h in &v.hosts {
        if one_role && h.quarantined.is_none() {
            println!(
                "host {}: gave {}, checked by no host of another role",
                h.role,
                thousands(h.given as u128)
            );
            continue;
        }
        println!(
            "host {}: gave {}, of them {} confirmed by another host, {} waiting, {} unsettled; confirmed {} of others'{}",
            h.role,
            thousands(h.given as u128),
            thousands(h.checks_agreed as u128),
            thousands(h.checks_pending as u128),
            h.checks_unsettled,
            thousands(h.confirmed_others as u128),
            match &h.quarantined {
                Some(why) => format!("; QUARANTINED, every count it gave withdrawn: {why}"),
                None => String::new(),
            }
        );
    }
    for d in &v.disputes {
        println!(
            "DISPUTE entry {}: kept {} (solver {}), {} returned {} (solver {})",
            d.entry, d.kept, d.kept_solver, d.host, d.other, d.other_solver
        );
    }
    Ok(())
}

/// A Unix time as a UTC date and time.
fn when(t: f64) -> String {
    time::OffsetDateTime::from_unix_timestamp(t as i64)
        .map(|d| {
            format!(
                "{:04}-{:02}-{:02} {:02}:{:02} UTC",
                d.year(),
                d.month() as u8,
                d.day(),
                d.hour(),
                d.minute()
            )
        })
        .unwrap_or_else(|_| format!("{t}"))
}
