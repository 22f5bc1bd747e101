//! `queens sim cycles`: the unit-cycle benchmark of `queens_sim::cycles`, as a table or JSON.

use crate::cmd::{pool, thousands};
use queens_core::UnitKind;
use queens_sim::cycles::{self, CycleSet, Pick, SetSpec};
use serde::Serialize;
use std::sync::atomic::AtomicU64;

#[derive(clap::Args)]
pub struct CyclesArgs {
    /// Only the sets of this N (repeatable): 12, 13, 17, 20, 23, 27, 28.
    #[arg(long = "n", value_name = "N")]
    only: Vec<u32>,
    /// Seed of the random probes (N = 27 and 28).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// (Our unit; a grouped unit's pre-placement costs its share of its group's walk.)
    #[command(flatten)]
    unit: crate::cmd::UnitArg,
    #[arg(long, value_parser = crate::cmd::parse_threads)]
    threads: Option<usize>,
    #[arg(long)]
    json: bool,
}

pub(super) fn run(a: CyclesArgs) -> anyhow::Result<()> {
    let all = cycles::sets();
    let known: Vec<u32> = all.iter().map(|s| s.n).collect();
    if let Some(n) = a.only.iter().find(|n| !known.contains(n)) {
        anyhow::bail!("--n {n}: the benchmark has no set of N = {n} (its sets: N = {known:?})");
    }
    let sets: Vec<SetSpec> = all
        .into_iter()
        .filter(|s| a.only.is_empty() || a.only.contains(&s.n))
        .collect();
    let pool = pool(a.threads)?;
    let unit = a.unit.model(true)?;
    let mut measured = Vec::new();
    for spec in &sets {
        let done = AtomicU64::new(0);
        let what = format!("N = {}, {}", spec.n, label(spec.pick));
        let len = match spec.pick {
            Pick::First(k) => k as u64,
            Pick::Spread(k) => k,
            Pick::All => 0,
        };
        let m = crate::progress::with_bar(
            &what,
            &done,
            || len,
            || pool.install(|| spec.measure(a.seed, unit, &done)),
        );
        if !a.json {
            print_row(&m, measured.is_empty());
        }
        measured.push(m);
    }
    if a.json {
        #[derive(Serialize)]
        struct Json<'a> {
            seed: u64,
            unit_kind: UnitKind,
            /// What each ratio's low..high is.
            interval: &'static str,
            sets: &'a [CycleSet],
        }
        let interval = "95% over all of N: ratio ± 1.96 standard errors (delta method); \
                        none for a set that is not a spread sample";
        let j = Json {
            seed: a.seed,
            unit_kind: unit,
            interval,
            sets: &measured,
        };
        println!("{}", serde_json::to_string(&j)?);
    }
    Ok(())
}

/// "all", "first 1,337", "2,000 spread".
fn label(pick: Pick) -> String {
    match pick {
        Pick::All => "all".into(),
        Pick::First(k) => format!("first {}", thousands(k as u128)),
        Pick::Spread(k) => format!("{} spread", thousands(k as u128)),
    }
}

/// Mean cycles as a count, or with four figures once too long to read as one.
fn mean(c: f64) -> String {
    if c < 1e7 {
        format!("{c:.1}")
    } else {
        format!("{c:.4e}")
    }
}

fn print_row(m: &CycleSet, first: bool) {
    if first {
        match m.unit {
            UnitKind::Grouped => println!("mean unit cycles per subproblem: ours a grouped unit (each pre-placement its share of its group's walk), Queens@TUD's unit, the plain unit left to right"),
            UnitKind::Plain => println!("mean unit cycles per subproblem: ours a plain unit as the array runs it, Queens@TUD's unit, ours left to right"),
        }
        println!(
            "{:>2}  {:<13} {:>11} {:>15}  {:<10} {:>11} {:>11}  {:<22} {}",
            "N",
            "set",
            "subproblems",
            "of",
            "method",
            "ours",
            "Queens@TUD",
            "ours / Queens@TUD",
            "ours / left to right"
        );
    }
    let method = match m.method {
        "probes" => format!("{} probes", m.probes_per_subproblem),
        other => other.to_string(),
    };
    println!(
        "{:>2}  {:<13} {:>11} {:>15}  {:<10} {:>11} {:>11}  {:<22} {}",
        m.n,
        label(m.set),
        thousands(m.subproblems as u128),
        thousands(m.of as u128),
        method,
        mean(m.mean.ours),
        mean(m.mean.tud),
        m.vs_tud.text(),
        m.vs_columns.text()
    );
}
