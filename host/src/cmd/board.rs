//! `queens board check`: a board on the bench, asked whether it is healthy.

use anyhow::{bail, Context};
use queens_core::ident::Ident;
use queens_core::result::ResultRecord;
use queens_core::word;
use queens_core::BoardSize;
use queens_host::bringup::{check_saying, BoardReport, Bound, CheckOptions};
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
    /// The N the board was built for (default: the design's with --design, else the N the
    /// board says it is built for, else 27).
    #[arg(long)]
    n: Option<BoardSize>,
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
    let size = match (a.n, &a.design, expected) {
        (Some(size), _, _) => size,
        (None, Some(path), Some(e)) => {
            BoardSize::new(e.n).with_context(|| format!("{}: field ident.n", path.display()))?
        }
        _ => BoardSize::new(27).expect("27 is a board size"),
    };
    if !(0.1..=86_400.0).contains(&a.quiet) {
        bail!("--quiet {}: expected 0.1 to 86400 seconds", a.quiet);
    }
    let sim = SimSettings {
        size,
        units: a.units,
        with_cycles: true,
        unit: queens_core::UnitKind::Plain,
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
        board_n: a.n.is_none() && a.design.is_none(),
    };
    if o.board_n {
        eprintln!(
            "checking the board on {} for the N it says it is built for ({size} if it says none; --n N to ask for one) ...",
            a.link
        );
    } else {
        eprintln!("checking the board on {} for N = {size} ...", a.link);
    }
    let r = check_saying(conn, &o, &mut |s| eprintln!("{s}"));
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
    let unit = r.unit.as_ref();
    match &r.ident {
        Some(i) => println!(
            "  identity:      built for N = {}, {} {} units, {}, design {:08x}, {}",
            i.n,
            i.units,
            i.unit,
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
        None => match unit.and_then(|u| u.unit.map(|name| (name, u))) {
            Some(("Queens@TUD", u)) => println!(
                "  identity:      no answer; its cycle counts are those of Queens@TUD's unit ({} of {} checked): a Queens@TUD board",
                u.match_tud, u.tud_checked
            ),
            Some((_, u)) => println!(
                "  identity:      no answer; its cycle counts are this project's unit's ({} of {}): a board of ours built before identification",
                u.match_ours, u.cycles_checked
            ),
            None if r.with_cycles == Some(false) => println!(
                "  identity:      no answer and no cycle counters: a Queens@TUD board without them, or a board of ours built before identification"
            ),
            None => println!(
                "  identity:      no answer, and cycle counts of neither unit model: a board of another design"
            ),
        },
    }
    let cycles = match (r.with_cycles, &r.ident) {
        (Some(false), _) => " (the board reports no cycles)".to_string(),
        (_, Some(_)) => format!(", {} wrong cycle counts", r.wrong_cycles.len()),
        (Some(true), None) => match unit {
            Some(u) => format!(
                "; cycle counts not judged (the board does not say its unit): {} of {} equal this project's model",
                u.match_ours, u.cycles_checked
            ),
            None => String::new(),
        },
        (None, None) => String::new(),
    };
    println!(
        "  known answers: {} of {} answered, {} wrong counts{cycles}",
        r.known_answered,
        r.known_sent,
        r.wrong_counts.len(),
    );
    let f = &r.frames;
    println!(
        "  frames:        identification {} sent, {} answered; known answers {} sent, {} answered, {} lost, {} sent again; probes {} sent, {} answered, {} lost{}",
        f.identification.sent,
        f.identification.answered,
        f.known_answers.sent,
        f.known_answers.answered,
        f.known_answers.lost,
        f.known_answers.resent,
        f.probes.sent,
        f.probes.answered,
        f.probes.lost,
        if r.ident.is_none() && f.probes.lost > 0 {
            " (copies beyond what the board holds: it has no flow control)"
        } else {
            ""
        }
    );
    println!(
        "  link:          {} bad CRC, {} bytes outside frames, {} unanswered",
        r.bad_crc, r.skipped_bytes, r.unanswered
    );
    let units = r.units.map_or("?".to_string(), |u| u.to_string());
    let clock = r
        .clock_hz
        .map_or("?".to_string(), |c| format!("{:.3} MHz", c / 1e6));
    println!("  units:         {units} ({})", r.units_source);
    println!("  clock:         {clock} ({})", r.clock_source);
    if let Some(b) = r.bound {
        let probes: Vec<String> = r
            .probes
            .iter()
            .map(|p| format!("#{} of {} cycles: {:.1}/s", p.index, p.cycles, p.rate))
            .collect();
        let bound = match (b, r.cycles_per_second, r.cycles_per_second_at_least) {
            (Bound::Units, Some(p), _) => {
                format!("the units and their clock ({:.3} M cycles/s in all)", p / 1e6)
            }
            (_, _, Some(p)) => format!(
                "{} (the units run at least {:.3} M cycles/s in all)",
                b.text(),
                p / 1e6
            ),
            _ => b.text().to_string(),
        };
        println!("  pace:          bound by {bound}; probes {}", probes.join(", "));
    }
    match (r.predicted_rate, r.limit) {
        (Some(p), Some(l)) => println!(
            "  rate:          {:.1} subproblems/s over the known-answer set; predicted {:.1} (bound by {l})",
            r.rate, p
        ),
        _ => println!(
            "  rate:          {:.1} subproblems/s over the known-answer set",
            r.rate
        ),
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
