//! What `queens run` prints when it ends: Q(N) or the running total, the cross-checks of a
//! shared campaign, each link's figures, and how to resume a run that was stopped.

use super::Args;
use crate::cmd::{cross, thousands};
use queens_host::run::RunReport;
use queens_host::store::pg::Checkers;
use queens_host::store::pg_conn::Target;

/// Seconds as a person reads them.
pub(super) fn human(secs: f64) -> String {
    match secs {
        s if s < 120.0 => format!("{s:.1} s"),
        s if s < 7200.0 => format!("{:.1} min", s / 60.0),
        s => format!("{:.1} h", s / 3600.0),
    }
}

/// The report; a shared campaign's (its database, and who can confirm its counts) says how
/// much of its total hosts of another role confirmed, and plainly when none can. A finished
/// shared campaign whose total no host of another role can confirm ends with
/// [`cross::UNCONFIRMED_STATUS`] unless `--accept-unconfirmed`.
pub(super) fn finish(
    a: &Args,
    report: &RunReport,
    shared: Option<(&Target, &Checkers)>,
) -> anyhow::Result<()> {
    if a.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print(report, shared.map(|s| s.1));
    }
    if let Some((target, c)) = shared {
        // How to set roles up: with the report, and with any status it ends in.
        let stranded = report.complete && c.unconfirmable > 0 && !a.accept_unconfirmed;
        if (c.one_role && !a.json) || stranded {
            if a.json && c.one_role {
                eprintln!("{}", cross::one_role_why(c));
            }
            for l in cross::one_role_fix(c, target, a.n) {
                eprintln!("{l}");
            }
        }
        if stranded && !report.interrupted {
            eprintln!(
                "exit status {}: Q({}) = {} can be confirmed by no host of another role ({} counts chosen for a check wait for a role this campaign does not have); --accept-unconfirmed finishes such a campaign on purpose, with status 0",
                cross::UNCONFIRMED_STATUS,
                report.n,
                thousands(report.total),
                thousands(c.unconfirmable as u128)
            );
            std::process::exit(cross::UNCONFIRMED_STATUS);
        }
    }
    if report.interrupted {
        eprintln!(
            "stopped: {} subproblems that were on the boards are unsolved in the campaign and go out again; to resume: {}",
            thousands(report.in_flight as u128),
            resume_command()
        );
        std::process::exit(130);
    }
    Ok(())
}

/// The command line of this run, as it can be typed again.
fn resume_command() -> String {
    std::iter::once("queens".to_string())
        .chain(std::env::args().skip(1).map(|x| {
            if x.is_empty() || x.contains(|c: char| c.is_whitespace() || "'\"$`\\".contains(c)) {
                format!("'{}'", x.replace('\'', "'\\''"))
            } else {
                x
            }
        }))
        .collect::<Vec<_>>()
        .join(" ")
}

fn print(r: &RunReport, shared: Option<&Checkers>) {
    let x = &r.cross_checked;
    let unconfirmable = shared.map_or(0, |c| c.unconfirmable);
    if r.complete && r.unchecked > 0 {
        println!(
            "Q({}) = {} once the {} entries trusted from the campaign's summary have been read again (the next run does)",
            r.n,
            thousands(r.total),
            thousands(r.unchecked as u128)
        );
    } else if r.complete {
        // Final only once no count chosen for another host's recomputation waits.
        println!("{}", cross::total_line(r.n, r.total, x.pending, unconfirmable));
    } else {
        println!(
            "running total for N = {}: {} ({} of {} subproblems solved)",
            r.n,
            thousands(r.total),
            thousands((r.solved_before + r.counters.solved) as u128),
            thousands(r.subproblems as u128)
        );
    }
    match shared {
        Some(c) if c.one_role => println!("{}", cross::one_role_why(c)),
        Some(c) => println!(
            "cross-checked: {} of the campaign's {} counts recomputed and confirmed by a host of another role ({:.2}%), {} waiting{}",
            thousands(x.confirmed as u128),
            thousands(r.subproblems as u128),
            100.0 * x.confirmed as f64 / r.subproblems.max(1) as f64,
            thousands(x.pending as u128),
            if c.unconfirmable > 0 {
                format!(
                    ", {} of them for a host role this campaign does not have (a count two roles dispute waits for a third)",
                    thousands(c.unconfirmable as u128)
                )
            } else {
                String::new()
            }
        ),
        None => {}
    }
    let c = &r.counters;
    if x.agreed + x.disputed > 0 {
        println!(
            "{} results arrived for subproblems another host had solved: {} agreed (not counted again), {} disputed (see the log)",
            x.agreed + x.disputed,
            x.agreed,
            x.disputed
        );
    }
    println!(
        "{} subproblems solved in this run in {:.2} s; {} sent again, {} frames rejected, {} duplicates, {} conflicts, {} unknown results",
        thousands(c.solved as u128),
        r.seconds,
        c.reissued,
        c.rejected_frames,
        c.duplicates,
        c.conflicts,
        c.unknown
    );
    for l in &r.links {
        println!(
            "  {:<28} solver {:>4}, {} units: {} solved, {} verified by a second source, {} sent again, {} rejected{}",
            l.link,
            l.solver,
            l.unit_kind,
            thousands(l.counters.solved as u128),
            thousands(l.counters.verified as u128),
            l.counters.reissued,
            l.counters.rejected_frames,
            match &l.dropped {
                Some(why) => format!("; dropped, {} counts withdrawn: {why}", l.counters.withdrawn),
                None => String::new(),
            }
        );
    }
}
