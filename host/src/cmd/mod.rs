pub mod board;
pub mod count;
pub mod cross;
pub mod db;
mod fresh;
pub mod hdl;
mod metrics;
pub mod pg_bench;
mod record;
pub mod run;
pub mod serve;
pub mod sim;
pub mod subproblems;
pub mod transfer;

use clap::builder::RangedU64ValueParser;
use queens_core::{BoardSize, Symmetry};
use queens_host::store::file::campaign_at;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The stack of every thread that builds circuits: they are instantiated for every supported
/// width in one function, and unoptimised builds give each instantiation its own stack slot,
/// more than a default stack holds.
pub const CIRCUIT_STACK: usize = 1 << 30;

/// A rayon pool of `threads` threads (all cores when `None`), with [`CIRCUIT_STACK`]s.
pub fn pool(threads: Option<usize>) -> anyhow::Result<rayon::ThreadPool> {
    let mut b = rayon::ThreadPoolBuilder::new().stack_size(CIRCUIT_STACK);
    if let Some(t) = threads {
        check_threads(t).map_err(|e| anyhow::anyhow!("--threads {t}: {e}"))?;
        b = b.num_threads(t);
    }
    Ok(b.build()?)
}

// Value parsers of the numeric options: every number a user types is checked against a range
// that makes sense before anything runs, and a bad one is named with its option by clap. A
// board size is a `queens_core::BoardSize`, read by its own `FromStr`.

/// Solver units of one board: an array holds 1 to 4,096 (12-bit unit ids).
pub const MAX_UNITS: u64 = queens_hdl::solver::load::MAX_UNITS as u64;

/// `--solvers`: 1..=4096 units.
pub fn units() -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::new().range(1..=MAX_UNITS)
}

/// Threads per core worth running: the work is CPU-bound, more only costs memory.
const THREADS_PER_CORE: usize = 4;

fn check_threads(t: usize) -> Result<usize, String> {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let max = (cores * THREADS_PER_CORE).max(8);
    match t {
        0 => Err("expected at least 1 thread".into()),
        t if t > max => Err(format!(
            "at most {max} threads on this machine ({THREADS_PER_CORE} per core, {cores} cores)"
        )),
        t => Ok(t),
    }
}

/// `--threads`: 1 up to a few per core of this machine.
pub fn parse_threads(s: &str) -> Result<usize, String> {
    check_threads(
        s.trim()
            .parse()
            .map_err(|_| "expected a whole number of threads".to_string())?,
    )
}

/// The longest wait in seconds any option takes: about 11.6 days (a `Duration` holds far
/// more, but nothing here needs longer).
pub const MAX_SECONDS: f64 = 1e6;

/// A number of seconds in `min..=MAX_SECONDS` (`min` itself excluded when `open`).
fn seconds(s: &str, min: f64, open: bool) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if (x > min || (!open && x == min)) && x <= MAX_SECONDS => Ok(x),
        _ if open => Err(format!(
            "expected seconds, more than {min} and at most {MAX_SECONDS}"
        )),
        _ => Err(format!("expected seconds, {min} to {MAX_SECONDS}")),
    }
}

/// `--timeout`: positive seconds.
pub fn parse_timeout(s: &str) -> Result<f64, String> {
    seconds(s, 0.0, true)
}

/// `--lease`: at least 2 seconds (leases are renewed every second).
pub fn parse_lease(s: &str) -> Result<f64, String> {
    seconds(s, 2.0, false).map_err(|e| e + " (leases are renewed every second)")
}

/// Writes an output file (a plot, Verilog) whole: to a temporary file beside it, renamed
/// over it once complete (over the file a symbolic link names, the link kept). A device or a
/// pipe (`/dev/stdout`) is written in place, never replaced. Refused when `path` holds a
/// campaign: no other output ever replaces one. `option` names where the path came from.
pub fn write_output(option: &str, path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use anyhow::Context;
    use std::io::Write;
    if let Some(s) = campaign_at(path) {
        anyhow::bail!(
            "{option} {}: that file is a campaign of N = {} and is not overwritten by other output; choose another name",
            path.display(),
            s.n()
        );
    }
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return std::fs::write(path, bytes)
            .with_context(|| format!("{option} {}: writing it", path.display()));
    }
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut tmp = queens_host::store::temp_beside(&path)
        .with_context(|| format!("{option} {}: creating a temporary file beside it", path.display()))?;
    tmp.write_all(bytes)
        .with_context(|| format!("writing {}", tmp.path().display()))?;
    tmp.persist(&path)
        .map_err(|e| e.error)
        .with_context(|| format!("{option} {}: writing it", path.display()))?;
    Ok(())
}

/// Whether two paths name the same existing file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// Per-class figures as the JSON reports print them: keyed by class name.
#[derive(Serialize)]
pub struct ClassJson {
    pub preplacements: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solutions: Option<u64>,
    pub weight: u64,
}

pub fn classes_json(pre: [u64; 3], sol: Option<[u64; 3]>) -> BTreeMap<&'static str, ClassJson> {
    Symmetry::ALL
        .iter()
        .map(|s| {
            let i = s.slot();
            (
                s.name(),
                ClassJson {
                    preplacements: pre[i],
                    solutions: sol.map(|v| v[i]),
                    weight: s.weight(),
                },
            )
        })
        .collect()
}

pub use queens_host::number::thousands;

/// `--unit`: the kind of solver unit, chosen once per command.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct UnitArg {
    /// The solver unit: grouped (one walk counts every pre-placement that shares a west,
    /// north and east side) or plain (Queens@TUD's walk, a pre-placement each). Default:
    /// grouped wherever its circuit is built (N = 8 to 11, 27 and 28), plain elsewhere.
    #[arg(long, value_name = "KIND")]
    pub unit: Option<queens_core::UnitKind>,
}

impl UnitArg {
    /// The kind of a circuit for board size `n`: the one named, which must be built for `n`
    /// (with the cycle counter, where `with_cycles` is false, only if it can leave it out);
    /// or the default, said on stderr where it falls back to plain units.
    pub fn circuit(self, size: BoardSize, with_cycles: bool) -> anyhow::Result<queens_core::UnitKind> {
        let (unit, note) = queens_hdl::kind::choose(self.unit, size.n() as usize, with_cycles)
            .map_err(|e| anyhow::anyhow!("--unit: {e}"))?;
        if let Some(note) = note {
            eprintln!("{note} (--unit chooses)");
        }
        Ok(unit)
    }

    /// As [`circuit`](Self::circuit) for board `b`: with none named, the unit its board file
    /// names, where that is built for `size` as asked.
    pub fn on_board(
        self,
        b: &queens_hdl::board::Board,
        size: BoardSize,
        with_cycles: bool,
    ) -> anyhow::Result<queens_core::UnitKind> {
        let preferred = b.defaults.unit.filter(|_| self.unit.is_none());
        match preferred.map(|u| queens_hdl::kind::choose(Some(u), size.n() as usize, with_cycles)) {
            Some(Ok((unit, _))) => Ok(unit),
            _ => self.circuit(size, with_cycles),
        }
    }

    /// The kind of a modelled unit (the cycle model and the simulated board, at every N): the
    /// one named, or grouped (plain where results leave out the cycle counter).
    pub fn model(self, with_cycles: bool) -> anyhow::Result<queens_core::UnitKind> {
        let unit = self.unit.unwrap_or(match with_cycles {
            true => queens_core::UnitKind::Grouped,
            false => queens_core::UnitKind::Plain,
        });
        anyhow::ensure!(
            with_cycles || unit.cycles_optional(),
            "--unit {unit} with --no-cycles: a group's end record always carries its walk's cycles; \
             leave out --no-cycles or choose --unit plain"
        );
        Ok(unit)
    }
}
