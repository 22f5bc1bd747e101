//! `queens board check`: a board on the bench, asked whether it is healthy.

use crate::cmd::board as board_size;
use anyhow::{bail, Context};
use queens_core::ident::Ident;
use queens_core::result::ResultRecord;
use queens_core::word;
use queens_host::bringup::{check, BoardReport, CheckOptions};
use queens_host::link::{LinkSpec, SimSettings};
use std::time::Duration;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Check a board before a campaign: what it says it is, a known-answer set checked count
    /// by count (and cycle by cycle), the units that answer and their clock, its rate against
    /// the prediction; names the likely cause and the next step of each failure. Exit status
    /// 0 only when every check passes. Guide: docs/bring-up.md.
    #[command(after_help = "Examples:\n  \
        queens board check serial:/dev/ttyUSB0@115200 --n 27\n  \
        queens board check serial:/dev/ttyUSB0@115200 --design build/design.json\n  \
        queens board check tcp:127.0.0.1:7027 --n 12 --json")]
    Check(CheckArgs),
}

#[derive(clap::Args)]
pub struct CheckArgs {
    /// The board: serial:PATH[@BAUD], pcie:PATH, tcp:HOST:PORT or sim[:UNITS].
    link: LinkSpec,
    /// The N the board was built for (default: the design's with --design, else 27).
    #[arg(long, value_parser = crate::cmd::parse_n)]
    n: Option<u32>,
    /// The design.json that `queens hdl emit` wrote with the bitstream's sources: the board
    /// must answer with that design's identity (N, units, clock, design hash).
    #[arg(long)]
    design: Option<std::path::PathBuf>,
    /// Units to keep busy when the board does not say how many it has.
    #[arg(long, default_value_t = 16, value_parser = crate::cmd::units())]
    units: usize,
    /// Seconds without an answer after which a subproblem is sent again, then given up
    /// (longer when the set's dearest subproblem takes longer).
    #[arg(long, default_value_t = 3.0)]
    quiet: f64,
    /// The report as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(cmd: Command) -> anyhow::Result<()> {
    match cmd {
        Command::Check(a) => run_check(a),
    }
}

/// The identity recorded in a design.json.
fn design_ident(path: &std::path::Path) -> anyhow::Result<Ident> {
    #[derive(serde::Deserialize)]
    struct Design {
        ident: Ident,
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let d: Design = serde_json::from_str(&text).with_context(|| {
        format!(
            "{}: no design identity in it (field `ident`; written by `queens hdl emit` since identification)",
            path.display()
        )
    })?;
    Ok(d.ident)
}

fn run_check(a: CheckArgs) -> anyhow::Result<()> {
    let expected = a.design.as_deref().map(design_ident).transpose()?;
    let n = match (a.n, expected) {
        (Some(n), _) => n,
        (None, Some(e)) => e.n,
        (None, None) => 27,
    };
    let size = board_size(n)?;
    if !(0.1..=86_400.0).contains(&a.quiet) {
        bail!("--quiet {}: expected 0.1 to 86400 seconds", a.quiet);
    }
    let sim = SimSettings {
        size,
        units: a.units,
        with_cycles: true,
        clock_hz: None,
        faults: Default::default(),
        seed: 1,
    };
    let conn = a.link.open(&sim)?;
    // A serial line carries ten bits a byte: one result frame's time, and the frames a second
    // it carries (a subproblem's frame out and its result back share the time both ways).
    let (frame_time, link_rate) = match &a.link {
        LinkSpec::Serial { baud, .. } => {
            let result = (ResultRecord::payload_len(size, true) + 2) as f64;
            let request = (word::wire_bytes(size) + 2) as f64;
            let bytes_per_second = *baud as f64 / 10.0;
            (
                Some(Duration::from_secs_f64(result / bytes_per_second)),
                Some(bytes_per_second / result.max(request)),
            )
        }
        _ => (None, None),
    };
    let o = CheckOptions {
        size,
        units_hint: a.units,
        ident_wait: Duration::from_millis(500),
        quiet: Duration::from_secs_f64(a.quiet),
        frame_time,
        link_rate,
        expected,
    };
    eprintln!("checking the board on {} for N = {n} ...", a.link);
    let r = check(conn, &o);
    if a.json {
        println!("{}", serde_json::to_string(&r)?);
    } else {
        print_report(&a.link, &r);
    }
    if !r.passed {
        bail!(
            "the board on {} failed {} of its checks (above)",
            a.link,
            r.failures.len()
        );
    }
    Ok(())
}

fn print_report(link: &LinkSpec, r: &BoardReport) {
    println!("board on {link}, N = {}", r.n);
    match &r.ident {
        Some(i) => println!(
            "  identity:      built for N = {}, {} units, {}, design {:08x}, {}",
            i.n,
            i.units,
            match i.clock_hz {
                0 => "no clock (a model that answers as fast as it runs)".to_string(),
                hz => format!("{:.3} MHz", hz as f64 / 1e6),
            },
            i.design_hash,
            if i.with_cycles {
                "cycle counters"
            } else {
                "no cycle counters"
            }
        ),
        None => {
            println!("  identity:      no answer (a Queens@TUD board, or one that knows no identification)")
        }
    }
    println!(
        "  known answers: {} of {} answered, {} wrong counts, {} wrong cycle counts{}",
        r.known_answered,
        r.known_sent,
        r.wrong_counts.len(),
        r.wrong_cycles.len(),
        match r.with_cycles {
            Some(true) => "",
            Some(false) => " (the board reports no cycles)",
            None => "",
        }
    );
    println!(
        "  link:          {} bad CRC, {} bytes outside frames, {} sent again, {} unanswered",
        r.bad_crc, r.skipped_bytes, r.resent, r.unanswered
    );
    let units = r.units.map_or("?".to_string(), |u| u.to_string());
    let clock = r
        .clock_hz
        .map_or("?".to_string(), |c| format!("{:.3} MHz", c / 1e6));
    println!("  units:         {units} ({})", r.units_source);
    println!("  clock:         {clock} ({})", r.clock_source);
    match (r.predicted_rate, r.limit) {
        (Some(p), Some(l)) => println!(
            "  rate:          {:.1} subproblems/s over the known-answer set; predicted {:.1} (bound by the {l})",
            r.rate, p
        ),
        _ => println!("  rate:          {:.1} subproblems/s over the known-answer set", r.rate),
    }
    for w in r.wrong_counts.iter().take(10) {
        println!(
            "  WRONG subproblem #{} {}: the board counted {}, software counts {}",
            w.index, w.preplacement, w.got, w.expected
        );
    }
    if r.passed {
        println!(
            "PASS: ready for `queens run {} --link {link}` ({:.1} s)",
            r.n, r.seconds
        );
        return;
    }
    println!("FAIL:");
    for f in &r.failures {
        println!(
            "  - {}\n    likely cause: {}\n    next: {}",
            f.what, f.cause, f.next
        );
    }
}
