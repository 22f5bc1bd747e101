//! What differs between the two kinds of unit in the circuits, in one place: each kind's
//! Verilog of a bare unit, a stage and a front end, the width of its upstream slot's record
//! and the board sizes its circuits are built for. Emission, fits and routing take a
//! [`Circuits`] from [`of`] and never ask which kind they have.

use crate::solver::bram::Memory;
use crate::solver::tally::TallyPipe;
use crate::ArbiterKind;
use queens_core::ident::Ident;
use queens_core::UnitKind;
use rust_hdl::prelude::*;

/// A kind's circuits. The Verilog comes with rust-hdl's top module name `top`.
pub trait Circuits: Sync {
    /// The bare unit for inner width m (a grouped unit with its tally, in form `pipe`; a
    /// plain unit ignores it).
    fn unit(&self, m: usize, arbiter: ArbiterKind, pipe: TallyPipe) -> String;
    /// One stage: the unit, its record, its place on the chains; its tally in `memory` and
    /// in form `pipe`, for a kind with one ([`Circuits::has_tally`]; a plain stage has no
    /// RAM and ignores both).
    fn stage(&self, m: usize, arbiter: ArbiterKind, memory: Memory, pipe: TallyPipe) -> String;
    /// Whether its stage keeps a tally in a RAM of its own (which may be UltraRAM).
    fn has_tally(&self) -> bool;
    /// The front end of a core of board size n and `units` units, answering an
    /// identification request with `ident`.
    fn front(&self, n: usize, units: usize, with_cycles: bool, ident: &Ident) -> String;
    /// Bits of the record its upstream slot carries beside the valid bit and id.
    fn slot_bits(&self) -> usize;
    /// Whether its circuits are built for board size n, and those sizes as a person reads
    /// them.
    fn built(&self, n: usize) -> bool;
    fn built_sizes(&self) -> String;
    /// What its routed designs' top modules are prefixed with (`queens_<prefix>stage`).
    fn top_prefix(&self) -> &'static str;
}

/// The circuits of `unit` units.
pub fn of(unit: UnitKind) -> &'static dyn Circuits {
    match unit {
        UnitKind::Plain => &Plain,
        UnitKind::Grouped => &Grouped,
    }
}

struct Plain;
struct Grouped;

impl Circuits for Plain {
    fn unit(&self, m: usize, arbiter: ArbiterKind, _pipe: TallyPipe) -> String {
        crate::with_width!(m, |M, M1, D| {
            let mut u = crate::solver::unit::Unit::<M, M1, D>::new(arbiter);
            u.connect_all();
            generate_verilog(&u)
        })
    }

    fn stage(&self, m: usize, arbiter: ArbiterKind, _memory: Memory, _pipe: TallyPipe) -> String {
        crate::with_width!(m, |M, M1, D| {
            let mut st = crate::solver::stage::Stage::<M, M1, D>::new(arbiter);
            st.connect_all();
            generate_verilog(&st)
        })
    }

    fn front(&self, n: usize, units: usize, with_cycles: bool, ident: &Ident) -> String {
        crate::with_board_widths!(n, |M, M1, D, W| {
            let mut f = crate::front::Front::<M, M1, D, W>::new(units, with_cycles, ident);
            f.connect_all();
            generate_verilog(&f)
        })
    }

    fn has_tally(&self) -> bool {
        false
    }

    fn slot_bits(&self) -> usize {
        crate::solver::stage::SLOT_BITS
    }

    fn built(&self, n: usize) -> bool {
        u32::try_from(n).is_ok_and(|n| queens_core::BoardSize::new(n).is_ok())
    }

    fn built_sizes(&self) -> String {
        format!("{}..={}", queens_core::MIN_N, queens_core::MAX_N)
    }

    fn top_prefix(&self) -> &'static str {
        ""
    }
}

impl Circuits for Grouped {
    fn unit(&self, m: usize, arbiter: ArbiterKind, pipe: TallyPipe) -> String {
        crate::with_grouped_width!(m, |M, M1, D| {
            let mut u = crate::solver::grouped::GroupedUnit::<M, M1, D>::new(arbiter);
            u.set_pipe(pipe);
            u.connect_all();
            generate_verilog(&u)
        })
    }

    fn stage(&self, m: usize, arbiter: ArbiterKind, memory: Memory, pipe: TallyPipe) -> String {
        crate::with_grouped_width!(m, |M, M1, D| {
            let mut st = crate::solver::grouped_stage::GroupedStage::<M, M1, D>::new(arbiter);
            st.set_memory(memory);
            st.set_pipe(pipe);
            st.connect_all();
            generate_verilog(&st)
        })
    }

    fn front(&self, n: usize, units: usize, _with_cycles: bool, ident: &Ident) -> String {
        crate::with_grouped_width!(n - 4, |M, M1, D| {
            const W: usize = crate::width::wire_word_width(M);
            let room = crate::front::grouped::GroupFront::<M, M1, D, W>::room(units);
            let mut f = crate::front::grouped::GroupFront::<M, M1, D, W>::new(units, ident, room);
            f.connect_all();
            generate_verilog(&f)
        })
    }

    fn has_tally(&self) -> bool {
        true
    }

    fn slot_bits(&self) -> usize {
        crate::solver::grouped_stage::SLOT_BITS
    }

    fn built(&self, n: usize) -> bool {
        crate::width::GROUPED_N.iter().any(|&g| g as usize == n)
    }

    fn built_sizes(&self) -> String {
        "8 to 11, 27 and 28".to_string()
    }

    fn top_prefix(&self) -> &'static str {
        "grouped_"
    }
}

/// A kind of unit that cannot be built as asked.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum KindError {
    #[error(
        "{unit} units at N = {n}: their circuits are built for N = {built} (plain units' for every N)",
        built = of(*unit).built_sizes()
    )]
    NotBuilt { unit: UnitKind, n: usize },
    #[error("{0} units leave out no cycle counter: a group's end record always carries its walk's cycles")]
    Cycles(UnitKind),
}

/// The kind of a circuit for board size `n`: the one named, checked (built for `n`; results
/// without the cycle counter only where the kind can leave it out), or, with none named,
/// grouped units wherever their circuits are built and plain units elsewhere (and where
/// results leave out the cycle counter). With the kind, a line that says why a default is
/// not grouped units, when it is not.
pub fn choose(
    named: Option<UnitKind>,
    n: usize,
    with_cycles: bool,
) -> Result<(UnitKind, Option<String>), KindError> {
    let (unit, note) = match named {
        Some(unit) => (unit, None),
        None if !with_cycles => (
            UnitKind::Plain,
            Some("results without cycle counters: plain units".to_string()),
        ),
        None if of(UnitKind::Grouped).built(n) => (UnitKind::Grouped, None),
        None => (
            UnitKind::Plain,
            Some(format!(
                "N = {n}: grouped circuits are built for N = {}; plain units",
                of(UnitKind::Grouped).built_sizes()
            )),
        ),
    };
    if !of(unit).built(n) {
        return Err(KindError::NotBuilt { unit, n });
    }
    if !with_cycles && !unit.cycles_optional() {
        return Err(KindError::Cycles(unit));
    }
    Ok((unit, note))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_grouped_where_built_and_says_where_it_is_not() {
        assert_eq!(choose(None, 27, true).unwrap(), (UnitKind::Grouped, None));
        let (unit, note) = choose(None, 14, true).unwrap();
        assert_eq!(unit, UnitKind::Plain);
        assert!(note.unwrap().contains("N = 14"));
        assert_eq!(choose(None, 27, false).unwrap().0, UnitKind::Plain);
        assert_eq!(
            choose(Some(UnitKind::Plain), 14, false).unwrap(),
            (UnitKind::Plain, None)
        );
        let e = choose(Some(UnitKind::Grouped), 12, true).unwrap_err();
        assert_eq!(
            e.to_string(),
            "grouped units at N = 12: their circuits are built for N = 8 to 11, 27 and 28 (plain units' for every N)"
        );
        assert!(choose(Some(UnitKind::Grouped), 27, false).is_err());
    }
}
