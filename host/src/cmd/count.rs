//! `queens count N`: Q(N) in software, per symmetry class.

use super::{classes_json, pool, thousands};
use crate::progress::with_bar;
use queens_core::count::{count, Tally};
use queens_core::{BoardSize, Enumerator, Symmetry};
use serde::Serialize;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Board size, 6..=32.
    n: BoardSize,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = super::parse_threads)]
    threads: Option<usize>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Report {
    n: u32,
    total: u128,
    preplacements: u64,
    classes: std::collections::BTreeMap<&'static str, super::ClassJson>,
    seconds: f64,
    threads: usize,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let size = a.n;
    let pool = pool(a.threads)?;
    let done = AtomicU64::new(0);
    let start = Instant::now();
    let tally: Tally = with_bar(
        "pre-placements",
        &done,
        || pool.install(|| Enumerator::new(size).census().total()),
        || pool.install(|| count(size, &done)),
    );
    let seconds = start.elapsed().as_secs_f64();
    let report = Report {
        n: size.n(),
        total: tally.total(),
        preplacements: tally.subproblems(),
        classes: classes_json(tally.preplacements, Some(tally.solutions)),
        seconds,
        threads: pool.current_num_threads(),
    };
    if a.json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    println!("Q({}) = {}", a.n, thousands(report.total));
    println!(
        "{:<8}{:>7}{:>16}{:>18}",
        "class", "weight", "pre-placements", "solutions"
    );
    for s in Symmetry::ALL {
        let i = s.slot();
        println!(
            "{:<8}{:>7}{:>16}{:>18}",
            s.name(),
            s.weight(),
            thousands(tally.preplacements[i] as u128),
            thousands(tally.solutions[i] as u128)
        );
    }
    println!("{:<15}{:>16}", "all", thousands(report.preplacements as u128));
    println!(
        "{seconds:.3} s on {} threads, {} pre-placements/s",
        report.threads,
        thousands((report.preplacements as f64 / seconds.max(1e-9)) as u128)
    );
    Ok(())
}
