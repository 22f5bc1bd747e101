//! Running subproblems through an engine and comparing every count with software.

use crate::model::{run_subproblem, UnitRun};
use queens_core::enumerate::canonical;
use queens_core::UnitKind;
use queens_core::{completions, Blocking, BoardSize, Enumerator, Subproblem, Tally};
use rayon::prelude::*;

/// Something that runs subproblems the way the circuits do.
pub trait Engine: Sync {
    fn name(&self) -> &'static str;
    /// Solutions and unit cycles of each subproblem, in order.
    fn run(&self, size: BoardSize, subproblems: &[Subproblem]) -> Result<Vec<UnitRun>, String>;
    /// Whether this engine is the cycle model itself (its cycles are the reference the others
    /// are checked against).
    fn is_cycle_model(&self) -> bool {
        false
    }
    /// Clock cycles of the whole simulated board in the last run and the seconds it took,
    /// for engines that run one.
    fn board_cycles(&self) -> Option<(u64, f64)> {
        None
    }
    /// The cycles the cycle model gives each subproblem, which this engine's must equal.
    fn model_cycles(&self, _size: BoardSize, subproblems: &[Subproblem]) -> Result<Vec<u64>, String> {
        Ok(subproblems
            .par_iter()
            .map(|sp| run_subproblem(&sp.pre).cycles)
            .collect())
    }
}

/// The fast cycle model, in parallel on the rayon pool.
pub struct ModelEngine;

impl Engine for ModelEngine {
    fn name(&self) -> &'static str {
        "model"
    }

    fn is_cycle_model(&self) -> bool {
        true
    }

    fn run(&self, _size: BoardSize, subproblems: &[Subproblem]) -> Result<Vec<UnitRun>, String> {
        Ok(subproblems
            .par_iter()
            .with_max_len(256)
            .map(|sp| run_subproblem(&sp.pre))
            .collect())
    }
}

/// rust-hdl's own simulator on the circuits of `queens-hdl`, one unit per subproblem.
pub struct RtlEngine {
    pub arbiter: queens_hdl::ArbiterKind,
}

impl Engine for RtlEngine {
    fn name(&self) -> &'static str {
        "rtl"
    }

    fn run(&self, _size: BoardSize, subproblems: &[Subproblem]) -> Result<Vec<UnitRun>, String> {
        // One simulated unit per chunk: building and checking a unit costs more than a small run.
        Ok(subproblems
            .par_chunks(256)
            .flat_map_iter(|chunk| {
                let blocks: Vec<Blocking> =
                    chunk.iter().map(|sp| Blocking::new(&sp.pre).oriented()).collect();
                crate::rtl::run_many(&blocks, self.arbiter)
                    .into_iter()
                    .map(|r| UnitRun {
                        solutions: r.solutions,
                        cycles: r.cycles,
                    })
            })
            .collect())
    }
}

/// A subproblem whose count differs from the software counter.
#[derive(Debug, Clone)]
pub struct Mismatch {
    /// Position in the canonical order of the board.
    pub index: u64,
    pub sub: Subproblem,
    pub expected: u64,
    pub got: u64,
}

#[derive(Debug, Clone, Default)]
pub struct CheckReport {
    pub subproblems: u64,
    pub tally: Tally,
    pub cycles: u64,
    pub mismatches: Vec<Mismatch>,
    /// Total mismatches (the list keeps the first ones only).
    pub mismatch_count: u64,
    /// Subproblems whose unit cycles differ from the cycle model's (`expected` and `got` are
    /// cycles here); the first ones only.
    pub cycle_mismatches: Vec<Mismatch>,
    pub cycle_mismatch_count: u64,
    /// Per-subproblem results, in the order given.
    pub runs: Vec<UnitRun>,
}

/// How many mismatches a report lists.
pub const MISMATCHES_KEPT: usize = 10;

/// Which canonical subproblems a check runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    All,
    /// This many, at evenly spaced canonical indices (at least 1).
    Sample(u64),
    /// The one at this canonical index.
    Index(u64),
}

/// The selected subproblems with their canonical indices; `None` when an index is past the
/// last subproblem.
pub fn select(size: BoardSize, selection: Selection) -> Option<Vec<(u64, Subproblem)>> {
    let mut all = canonical(size).enumerate().map(|(i, s)| (i as u64, s));
    Some(match selection {
        Selection::All => all.collect(),
        Selection::Index(i) => vec![all.nth(i as usize)?],
        Selection::Sample(s) => {
            assert!(s > 0, "a sample of at least one subproblem");
            let total = Enumerator::new(size).census().total();
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

/// Runs `subproblems` (with their canonical indices) through `engine` and compares.
pub fn check(
    engine: &dyn Engine,
    size: BoardSize,
    subproblems: &[(u64, Subproblem)],
) -> Result<CheckReport, String> {
    let subs: Vec<Subproblem> = subproblems.iter().map(|p| p.1).collect();
    let runs = engine.run(size, &subs)?;
    if runs.len() != subs.len() {
        return Err(format!(
            "engine {} returned {} results for {} subproblems",
            engine.name(),
            runs.len(),
            subs.len()
        ));
    }
    let expected: Vec<u64> = subs.par_iter().map(|sp| completions(&sp.pre)).collect();
    // Every engine runs the unit the cycle model describes, cycle for cycle.
    let model_cycles: Vec<u64> = if engine.is_cycle_model() {
        runs.iter().map(|r| r.cycles).collect()
    } else {
        engine.model_cycles(size, &subs)?
    };
    let mut r = CheckReport {
        subproblems: subs.len() as u64,
        ..Default::default()
    };
    for (((&(index, sub), run), &want), &cycles) in
        subproblems.iter().zip(&runs).zip(&expected).zip(&model_cycles)
    {
        r.tally.add(sub.sym, run.solutions);
        r.cycles += run.cycles;
        let differs = |expected, got| {
            (expected != got).then_some(Mismatch {
                index,
                sub,
                expected,
                got,
            })
        };
        if let Some(m) = differs(cycles, run.cycles) {
            keep(&mut r.cycle_mismatches, &mut r.cycle_mismatch_count, m);
        }
        if let Some(m) = differs(want, run.solutions) {
            keep(&mut r.mismatches, &mut r.mismatch_count, m);
        }
    }
    r.runs = runs;
    Ok(r)
}

/// Counts a mismatch and keeps it among the first [`MISMATCHES_KEPT`].
fn keep(list: &mut Vec<Mismatch>, count: &mut u64, m: Mismatch) {
    *count += 1;
    if list.len() < MISMATCHES_KEPT {
        list.push(m);
    }
}

/// rust-hdl's simulator on the whole core: frames in as bytes, frame parser, front end,
/// `units` solver stages, framer, frames out as bytes. For boards up to
/// [`RTL_CORE_MAX_N`]: each size is a separate instantiation of the whole core, and
/// instantiating all 27 took most of this crate's compile time for sizes rust-hdl's
/// simulator would take hours a subproblem on (Verilator runs those).
pub struct RtlCoreEngine {
    pub arbiter: queens_hdl::ArbiterKind,
}

/// Solver stages in the simulated core (rust-hdl instantiates each one separately).
pub const RTL_CORE_UNITS: usize = 4;

/// The largest board [`RtlCoreEngine`] runs.
pub const RTL_CORE_MAX_N: u32 = 12;

impl Engine for RtlCoreEngine {
    fn name(&self) -> &'static str {
        "rtl"
    }

    fn run(&self, size: BoardSize, subproblems: &[Subproblem]) -> Result<Vec<UnitRun>, String> {
        let kind = self.arbiter;
        // A search that sends nothing for this long has stalled.
        let quiet = 1 << 24;
        // Per board size: its inner width M, M + 1, 2M - 1 and the wire word's width.
        macro_rules! sizes {
            ($($n:literal)*) => {
                match size.n() {
                    $($n => {
                        const M: usize = $n - 2 * queens_hdl::width::RINGS as usize;
                        const W: usize = queens_hdl::width::wire_word_width(M);
                        run_core::<M, { M + 1 }, { 2 * M - 1 }, W>(kind, size, subproblems, quiet)
                    })*
                    n => Err(format!(
                        "rust-hdl's simulator runs the whole core for N = 6 to \
                         {RTL_CORE_MAX_N}, not {n}: the verilator engine runs the core at any N"
                    )),
                }
            };
        }
        sizes!(6 7 8 9 10 11 12)
    }
}

fn run_core<const M: usize, const M1: usize, const D: usize, const W: usize>(
    kind: queens_hdl::ArbiterKind,
    size: BoardSize,
    subs: &[Subproblem],
    quiet: u64,
) -> Result<Vec<UnitRun>, String> {
    let mut core = queens_hdl::rtl::RtlCore::<M, M1, D, W, RTL_CORE_UNITS>::new(kind, true);
    let ident = core.ident();
    crate::wire::run_stepped(size, subs, RTL_CORE_UNITS + 4, quiet, ident, |rx| core.step(rx))
        .map_err(|e| e.to_string())
}

/// The emitted core compiled with Verilator: frames in as bytes, frame parser, array of
/// `units` stages, framer, frames out as bytes.
pub struct VerilatorEngine {
    pub arbiter: queens_hdl::ArbiterKind,
    pub units: usize,
    /// A core to run instead of the emitted one (Verilog text, top module `queens_core`).
    pub design: Option<String>,
    /// Write a waveform of the run here.
    pub vcd: Option<std::path::PathBuf>,
    /// Clock cycles the simulated board ran in the last `run`, and the seconds that took
    /// (build excluded; f64 bits).
    pub board_cycles: std::sync::atomic::AtomicU64,
    pub board_seconds: std::sync::atomic::AtomicU64,
}

impl VerilatorEngine {
    pub fn new(arbiter: queens_hdl::ArbiterKind, units: usize) -> Self {
        Self {
            arbiter,
            units,
            design: None,
            vcd: None,
            board_cycles: Default::default(),
            board_seconds: Default::default(),
        }
    }
}

impl Engine for VerilatorEngine {
    fn name(&self) -> &'static str {
        "verilator"
    }

    fn run(&self, size: BoardSize, subproblems: &[Subproblem]) -> Result<Vec<UnitRun>, String> {
        use crate::verilator::{Top, Verilated};
        let cfg = queens_hdl::emit::CoreConfig::new(
            size.n() as usize,
            self.units,
            UnitKind::Plain,
            self.arbiter,
            true,
        )
        .map_err(|e| e.to_string())?;
        let trace = self.vcd.is_some();
        let board = match &self.design {
            None => Verilated::build(cfg, Top::Core, trace),
            Some(v) => Verilated::build_design(cfg, "queens_core", v.clone(), vec![], trace),
        }
        .map_err(|e| e.to_string())?;
        let timeout = std::time::Duration::from_secs(600);
        let start = std::time::Instant::now();
        let (runs, cycles) = board
            .run(subproblems, self.units + 8, self.vcd.as_deref(), timeout)
            .map_err(|e| e.to_string())?;
        let relaxed = std::sync::atomic::Ordering::Relaxed;
        self.board_seconds
            .store(start.elapsed().as_secs_f64().to_bits(), relaxed);
        self.board_cycles.store(cycles, relaxed);
        Ok(runs)
    }

    fn board_cycles(&self) -> Option<(u64, f64)> {
        let relaxed = std::sync::atomic::Ordering::Relaxed;
        Some((
            self.board_cycles.load(relaxed),
            f64::from_bits(self.board_seconds.load(relaxed)),
        ))
    }
}
