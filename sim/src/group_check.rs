//! Engines that answer group requests (issue 50), held to the grouped walk's model: each
//! answers every group of a board with the records a board of grouped units sends
//! (`queens_core::group`). [`Grouped`] makes one an [`Engine`] of the usual check: each
//! member of a group gets its count from the answer and its share of the walk's cycles, so
//! `crate::check` compares every pre-placement's count with software and its cycles with the
//! grouped model's.

use crate::check::Engine;
use crate::grouped::run_south_group;
use crate::model::UnitRun;
use queens_core::board::PairTable;
use queens_core::group::{self, GroupRecord};
use queens_core::UnitKind;
use queens_core::{BoardSize, Preplacement, Subproblem};
use std::collections::HashMap;

/// Something that answers group requests the way a board of grouped units does.
pub trait GroupEngine: Sync {
    fn name(&self) -> &'static str;
    /// The records each group is answered with (any member names its group), in order.
    fn run_groups(&self, size: BoardSize, members: &[Preplacement]) -> Result<Vec<Vec<GroupRecord>>, String>;
    /// Whether this is the grouped walk's model itself.
    fn is_cycle_model(&self) -> bool {
        false
    }
    /// As [`Engine::board_cycles`].
    fn board_cycles(&self) -> Option<(u64, f64)> {
        None
    }
}

/// A group engine as an [`Engine`]: the subproblems given (in canonical order) are walked a
/// group at a time, consecutive ones that share west, north and east; each member's run is
/// its count in the answer and its share of the walk's cycles (`group::cycle_shares`, over
/// the members given: a sample's groups are shared among fewer).
pub struct Grouped<E>(pub E);

impl<E: GroupEngine> Engine for Grouped<E> {
    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn is_cycle_model(&self) -> bool {
        self.0.is_cycle_model()
    }

    fn run(&self, size: BoardSize, subproblems: &[Subproblem]) -> Result<Vec<UnitRun>, String> {
        member_runs(&self.0, size, subproblems)
    }

    fn board_cycles(&self) -> Option<(u64, f64)> {
        self.0.board_cycles()
    }

    fn model_cycles(&self, size: BoardSize, subproblems: &[Subproblem]) -> Result<Vec<u64>, String> {
        Ok(member_runs(&GroupModel, size, subproblems)?
            .into_iter()
            .map(|r| r.cycles)
            .collect())
    }
}

/// Each subproblem's run when `engine` walks the groups they form.
fn member_runs(
    engine: &dyn GroupEngine,
    size: BoardSize,
    subs: &[Subproblem],
) -> Result<Vec<UnitRun>, String> {
    let table = PairTable::new(size);
    let sides: Vec<[u32; 4]> = subs.iter().map(|sp| sp.pre.side_indices(&table)).collect();
    // Runs of consecutive subproblems with the same three sides.
    let mut starts = vec![0];
    starts.extend((1..subs.len()).filter(|&i| sides[i][..3] != sides[i - 1][..3]));
    let firsts: Vec<Preplacement> = starts.iter().map(|&i| subs[i].pre).collect();
    let answers = engine.run_groups(size, &firsts)?;
    let mut out = Vec::with_capacity(subs.len());
    for (g, (&start, records)) in starts.iter().zip(&answers).enumerate() {
        let end = starts.get(g + 1).copied().unwrap_or(subs.len());
        let first = &firsts[g];
        let wire = group::group_wire(first).map_err(|e| e.to_string())?;
        let mut answer = group::Answer::new(wire);
        let mut walked = None;
        for r in records {
            walked = answer
                .push(r)
                .map_err(|e| format!("{}: the group of {first}: {e}", engine.name()))?;
        }
        let walked =
            walked.ok_or_else(|| format!("{}: the group of {first}: no end record", engine.name()))?;
        // The members present (a sample may hold part of a group) share the walk, as a
        // host that was given only those members shares it.
        let results = group::member_results(&table, &subs[start..end], &walked);
        if let Some(code) = results.unknown_place {
            return Err(format!(
                "{}: the group of {first}: a record of place code {code}, which names no south side of the group",
                engine.name()
            ));
        }
        out.extend((results.each.into_iter()).map(|(solutions, cycles)| UnitRun { solutions, cycles }));
    }
    Ok(out)
}

/// The grouped walk's model (`crate::grouped`).
pub struct GroupModel;

impl GroupEngine for GroupModel {
    fn name(&self) -> &'static str {
        "grouped model"
    }

    fn is_cycle_model(&self) -> bool {
        true
    }

    fn run_groups(
        &self,
        _size: BoardSize,
        members: &[Preplacement],
    ) -> Result<Vec<Vec<GroupRecord>>, String> {
        use rayon::prelude::*;
        members
            .par_iter()
            .map(|p| {
                let wire = group::group_wire(p).map_err(|e| e.to_string())?;
                Ok(run_south_group(p).records(wire))
            })
            .collect()
    }
}

/// The group requests of `members`, one frame each, back to back.
pub fn requests(members: &[Preplacement]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for p in members {
        out.extend(group::request(p).map_err(|e| e.to_string())?);
    }
    Ok(out)
}

/// A board's answer bytes as records, gathered per group in the order of `members`: every
/// byte must belong to a whole record frame of a group asked for.
pub fn answers(
    size: BoardSize,
    members: &[Preplacement],
    bytes: &[u8],
) -> Result<Vec<Vec<GroupRecord>>, String> {
    let flen = GroupRecord::payload_len(size) + 2;
    if bytes.len() % flen != 0 {
        return Err(format!(
            "{} bytes are no whole number of {flen}-byte records",
            bytes.len()
        ));
    }
    let mut at = HashMap::new();
    for (i, p) in members.iter().enumerate() {
        at.insert(group::group_wire(p).map_err(|e| e.to_string())?, i);
    }
    let mut out = vec![Vec::new(); members.len()];
    for frame in bytes.chunks(flen) {
        let r = GroupRecord::decode(size, frame).map_err(|e| format!("a record frame {frame:02x?}: {e}"))?;
        let &i = at
            .get(&r.wire)
            .ok_or_else(|| format!("a record of group {:#x}, which was not asked for", r.wire))?;
        out[i].push(r);
    }
    Ok(out)
}

/// Asks a compiled board (Verilator) for every group of `members`, at most `window` of them
/// outstanding (a UART board drops a request it has no room for), and reads its answers.
pub fn ask_board(
    board: &crate::verilator::Verilated,
    size: BoardSize,
    members: &[Preplacement],
    window: usize,
    quiet: std::time::Duration,
) -> Result<(Vec<Vec<GroupRecord>>, u64), String> {
    let frames: Vec<Vec<u8>> = members
        .iter()
        .map(|p| group::request(p).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let flen = GroupRecord::payload_len(size) + 2;
    // Frames read so far and the end records among them: each frame is decoded once.
    let (mut sent, mut read, mut answered) = (0, 0, 0);
    let (bytes, cycles) = board
        .converse(quiet, |out| {
            let whole = out.len() / flen * flen;
            answered += ends(size, &out[read..whole]);
            read = whole;
            let mut send = Vec::new();
            while sent < frames.len() && sent - answered < window {
                send.extend(&frames[sent]);
                sent += 1;
            }
            (send, answered >= members.len())
        })
        .map_err(|e| e.to_string())?;
    Ok((answers(size, members, &bytes)?, cycles))
}

/// End records among the whole record frames at the start of `bytes` (records being whole
/// frames back to back, as a board sends them).
fn ends(size: BoardSize, bytes: &[u8]) -> usize {
    let flen = GroupRecord::payload_len(size) + 2;
    bytes
        .chunks_exact(flen)
        .filter(
            |f| matches!(GroupRecord::decode(size, f), Ok(r) if matches!(r.body, group::Body::End { .. })),
        )
        .count()
}

/// rust-hdl's simulator on the whole core of grouped stages (`queens_hdl::rtl::RtlGroupedCore`),
/// two units, N = 8 to 11.
pub struct RtlGroupCore {
    pub arbiter: queens_hdl::ArbiterKind,
}

/// Grouped stages in the simulated core.
const RTL_UNITS: usize = 2;

impl GroupEngine for RtlGroupCore {
    fn name(&self) -> &'static str {
        "grouped rtl"
    }

    fn run_groups(&self, size: BoardSize, members: &[Preplacement]) -> Result<Vec<Vec<GroupRecord>>, String> {
        let input = requests(members)?;
        // Each size is an instantiation of the whole core: N = 8 to 11 only (Verilator runs
        // the larger ones).
        macro_rules! sizes {
            ($($m:literal)*) => {
                match size.inner() {
                    $($m => {
                        const M: usize = $m;
                        const W: usize = queens_hdl::width::wire_word_width(M);
                        run_core::<M, { M + 1 }, { 2 * M + 1 }, W>(self.arbiter, &input)?
                    })*
                    _ => return Err(format!(
                        "rust-hdl's simulator runs the grouped core for N = 8 to 11, not {}: \
                         the verilator engine runs it at N = 27 and 28",
                        size.n()
                    )),
                }
            };
        }
        let bytes = sizes!(4 5 6 7);
        answers(size, members, &bytes)
    }
}

/// The bytes a simulated grouped core of [`RTL_UNITS`] stages sends for `input`, sent whole.
fn run_core<const M: usize, const M1: usize, const D: usize, const W: usize>(
    arbiter: queens_hdl::ArbiterKind,
    input: &[u8],
) -> Result<Vec<u8>, String> {
    let ident = queens_hdl::emit::CoreConfig::new(M + 4, RTL_UNITS, UnitKind::Grouped, arbiter, true)
        .map_err(|e| e.to_string())?
        .ident();
    let mut core = queens_hdl::rtl::RtlGroupedCore::<M, M1, D, W, RTL_UNITS>::new(arbiter, &ident, None);
    let (mut input, mut out, mut quiet) = (input, Vec::new(), 0u64);
    while !(input.is_empty() && core.idle()) {
        let (taken, tx) = core.step(input.first().copied());
        if taken {
            input = &input[1..];
        }
        quiet = if tx.is_some() { 0 } else { quiet + 1 };
        out.extend(tx);
        if quiet > 1 << 26 {
            return Err("the grouped core sent nothing for 2^26 cycles".to_string());
        }
    }
    Ok(out)
}

/// The emitted core of grouped stages (`queens_hdl::emit::grouped_core_verilog`) compiled
/// with Verilator, `units` stages, their tally in form `pipe`.
pub struct VerilatorGroupCore {
    pub arbiter: queens_hdl::ArbiterKind,
    pub units: usize,
    pub pipe: queens_hdl::solver::tally::TallyPipe,
}

impl GroupEngine for VerilatorGroupCore {
    fn name(&self) -> &'static str {
        match self.pipe {
            queens_hdl::solver::tally::TallyPipe::Direct => "grouped verilator",
            queens_hdl::solver::tally::TallyPipe::Registered => "grouped verilator, registered tally",
        }
    }

    fn run_groups(&self, size: BoardSize, members: &[Preplacement]) -> Result<Vec<Vec<GroupRecord>>, String> {
        let cfg = queens_hdl::emit::CoreConfig::new(
            size.n() as usize,
            self.units,
            UnitKind::Grouped,
            self.arbiter,
            true,
        )
        .map_err(|e| e.to_string())?
        .with_pipe(self.pipe);
        let board = crate::verilator::Verilated::build(cfg, crate::verilator::Top::Core, false)
            .map_err(|e| e.to_string())?;
        let quiet = std::time::Duration::from_secs(600);
        Ok(ask_board(&board, size, members, self.units + 8, quiet)?.0)
    }
}
