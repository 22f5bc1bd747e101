//! `queens subproblems N`: the canonical pre-placements, as a census, a fresh campaign file
//! of 16-byte database entries, or one line each.

use super::{classes_json, pool, thousands};
use crate::progress::with_bar;
use queens_core::{word, BoardSize, Enumerator, Subproblem, Symmetry};
use queens_host::store::file::FileStore;
use queens_sim::sample::{spread_index, Sampler};
use serde::Serialize;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Board size, 6..=32.
    n: BoardSize,
    /// Only count the pre-placements per symmetry class.
    #[arg(long, conflicts_with = "out")]
    stats: bool,
    /// Print only S of them, at the canonical indices k * total / S (k = 0..S): a sample
    /// spread over the whole order, as `sim estimate` draws one.
    #[arg(long, value_name = "S", conflicts_with_all = ["stats", "out"])]
    spread: Option<u64>,
    /// Write a fresh, unsolved campaign file of 16-byte database entries.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Replace FILE if it exists (it may hold results).
    #[arg(long, requires = "out")]
    force: bool,
    /// JSON output: one object for --stats, one object per line otherwise.
    #[arg(long)]
    json: bool,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = super::parse_threads)]
    threads: Option<usize>,
}

#[derive(Serialize)]
struct StatsReport {
    n: u32,
    preplacements: u64,
    classes: std::collections::BTreeMap<&'static str, super::ClassJson>,
    seconds: f64,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let size = a.n;
    let pool = pool(a.threads)?;
    let e = Enumerator::new(size);
    if a.stats {
        let start = Instant::now();
        let c = pool.install(|| e.census());
        let seconds = start.elapsed().as_secs_f64();
        if a.json {
            let r = StatsReport {
                n: size.n(),
                preplacements: c.total(),
                classes: classes_json(c.count, None),
                seconds,
            };
            println!("{}", serde_json::to_string(&r)?);
        } else {
            println!(
                "{} canonical pre-placements of N = {}",
                thousands(c.total() as u128),
                a.n
            );
            for s in Symmetry::ALL {
                println!(
                    "{:<8} weight {}  {:>16}",
                    s.name(),
                    s.weight(),
                    thousands(c.get(s) as u128)
                );
            }
            println!("{seconds:.3} s");
        }
        return Ok(());
    }
    if let Some(path) = &a.out {
        return write_campaign(&pool, &e, path, a.force);
    }
    if let Some(s) = a.spread {
        return print_spread(&pool, size, s, a.json);
    }
    let mut index = 0u64;
    print_lines(size, a.json, |line| {
        e.for_each(|sp| {
            line(index, sp);
            index += 1;
        })
    })
}

/// The subproblems at the canonical indices k * total / s, counted per prefix first.
fn print_spread(pool: &rayon::ThreadPool, size: BoardSize, s: u64, json: bool) -> anyhow::Result<()> {
    let mut sampler = Sampler::new(size);
    let done = AtomicU64::new(0);
    let prefixes = sampler.prefix_count();
    let total = with_bar(
        "prefixes",
        &done,
        || prefixes,
        || pool.install(|| sampler.count(&done)),
    );
    let picked = pool.install(|| sampler.evenly(s, &AtomicU64::new(0)));
    let s = picked.len() as u64;
    print_lines(size, json, |line| {
        for (k, sp) in (0..).zip(picked) {
            line(spread_index(k, s, total), sp);
        }
    })
}

/// Writes a fresh campaign (the store's own format and rules) with a bar on long runs.
fn write_campaign(pool: &rayon::ThreadPool, e: &Enumerator, path: &Path, force: bool) -> anyhow::Result<()> {
    let watch = queens_host::store::file::Watch::default();
    let start = Instant::now();
    let written = crate::progress::watched(&watch, || {
        pool.install(|| FileStore::create(path, e.size(), force, &watch))
    })?;
    println!(
        "wrote {} entries ({} bytes) to {} in {:.1} s",
        thousands(written as u128),
        thousands(written as u128 * 16),
        path.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

#[derive(Serialize)]
struct Line {
    index: u64,
    coords: [u32; 8],
    class: Symmetry,
    wire: String,
}

/// One line per subproblem that `each` hands to its callback with its canonical index.
fn print_lines(
    size: BoardSize,
    json: bool,
    each: impl FnOnce(&mut dyn FnMut(u64, Subproblem)),
) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut result = Ok(());
    each(&mut |index, sp| {
        if result.is_err() {
            return;
        }
        let wire = word::encode_wire(&sp.pre).expect("canonical words fit");
        let hex = format!("{wire:0w$x}", w = 2 * word::wire_bytes(size));
        result = if json {
            let l = Line {
                index,
                coords: sp.pre.coords(),
                class: sp.sym,
                wire: hex,
            };
            serde_json::to_writer(&mut out, &l)
                .map_err(anyhow::Error::from)
                .and_then(|_| Ok(writeln!(out)?))
        } else {
            writeln!(out, "{index:>10} {} {:<6} {hex}", sp.pre, sp.sym.name()).map_err(Into::into)
        };
    });
    match result.and_then(|_| Ok(out.flush()?)) {
        // A closed pipe (`| head`) is a normal way to stop reading: end as any filter does.
        Err(err) if is_broken_pipe(&err) => crate::output::broken_pipe(),
        r => r,
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
    })
}
