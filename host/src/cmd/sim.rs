//! `queens sim`: the circuits in simulation.

use super::{board, grouped, pool};
use anyhow::bail;
use queens_core::enumerate::canonical;
use queens_core::{BoardSize, Subproblem};
use queens_hdl::ArbiterKind;
use queens_sim::{check, CheckReport, Engine, ModelEngine, RtlEngine};
use serde::Serialize;
use std::time::Instant;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Run canonical pre-placements through a simulated circuit and compare every count with
    /// the software counter; exits non-zero on any mismatch.
    Check(CheckArgs),
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum EngineName {
    /// The fast cycle model (machine words, all cores).
    Model,
    /// rust-hdl's own simulator on the unit circuit of `queens-hdl`.
    Rtl,
}

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Board size, 6..=32.
    n: u32,
    #[arg(long, value_enum, default_value = "model")]
    engine: EngineName,
    /// Only S subproblems, spread evenly over the canonical order.
    #[arg(long, value_name = "S")]
    sample: Option<u64>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct MismatchJson {
    index: u64,
    preplacement: String,
    expected: u64,
    got: u64,
}

#[derive(Serialize)]
struct Report {
    n: u32,
    engine: &'static str,
    subproblems: u64,
    total: u128,
    mismatches: u64,
    first_mismatches: Vec<MismatchJson>,
    cycles: u64,
    seconds: f64,
}

pub fn run(cmd: Command) -> anyhow::Result<()> {
    match cmd {
        Command::Check(a) => run_check(a),
    }
}

/// Every subproblem, or `sample` of them at evenly spaced canonical indices.
fn select(size: BoardSize, sample: Option<u64>) -> anyhow::Result<Vec<(u64, Subproblem)>> {
    let all = canonical(size).enumerate().map(|(i, s)| (i as u64, s));
    Ok(match sample {
        None => all.collect(),
        Some(0) => bail!("--sample must be at least 1"),
        Some(s) => {
            let total = queens_core::Enumerator::new(size).census().total();
            let s = s.min(total);
            let mut want = (0..s).map(|k| k * total / s).peekable();
            all.filter(|(i, _)| {
                if want.peek() == Some(i) {
                    want.next();
                    true
                } else {
                    false
                }
            })
            .collect()
        }
    })
}

fn run_check(a: CheckArgs) -> anyhow::Result<()> {
    let size = board(a.n)?;
    let pool = pool(a.threads)?;
    let engine: Box<dyn Engine> = match a.engine {
        EngineName::Model => Box::new(ModelEngine),
        EngineName::Rtl => Box::new(RtlEngine {
            arbiter: ArbiterKind::Carry4,
        }),
    };
    let start = Instant::now();
    let subs = select(size, a.sample)?;
    let r: CheckReport = pool
        .install(|| check(engine.as_ref(), size, &subs))
        .map_err(anyhow::Error::msg)?;
    let seconds = start.elapsed().as_secs_f64();
    let report = Report {
        n: a.n,
        engine: engine.name(),
        subproblems: r.subproblems,
        total: r.tally.total(),
        mismatches: r.mismatch_count,
        first_mismatches: r
            .mismatches
            .iter()
            .map(|m| MismatchJson {
                index: m.index,
                preplacement: m.sub.pre.to_string(),
                expected: m.expected,
                got: m.got,
            })
            .collect(),
        cycles: r.cycles,
        seconds,
    };
    if a.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        let what = if a.sample.is_some() {
            "weighted sum over the sample".to_string()
        } else {
            format!("Q({})", a.n)
        };
        println!(
            "{} engine, N = {}: {} subproblems, {what} = {}, {} unit cycles, {:.3} s",
            report.engine,
            a.n,
            grouped(report.subproblems as u128),
            grouped(report.total),
            grouped(report.cycles as u128),
            seconds
        );
        for m in &report.first_mismatches {
            println!(
                "MISMATCH subproblem #{} {}: circuit counted {}, software counts {}",
                m.index, m.preplacement, m.got, m.expected
            );
        }
    }
    if report.mismatches > 0 {
        bail!(
            "{} of {} subproblems disagree with the software counter",
            report.mismatches,
            report.subproblems
        );
    }
    Ok(())
}
