//! A unit that walks south groups (issue 50) with its tally: the unit built with D = 2M + 1
//! ([`Unit`]) and a [`Tally`] that counts its solutions by place code and reads them out
//! after the walk. What a grouped stage will hold in place of today's unit and count (the
//! stage, the front end and the board are not built yet).

use crate::solver::arbiter::ArbiterKind;
use crate::solver::load_ports::LoadPorts;
use crate::solver::optional::Optional;
use crate::solver::tally::{ReadOut, Tally, TallyPipe, COUNT_BITS};
use crate::solver::unit::Unit;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct GroupedUnit<const M: usize, const M1: usize, const D: usize> {
    pub clock: Signal<In, Clock>,
    /// The unit's load ports and start (see [`LoadPorts`]; loads by `south_load_sequence`).
    pub load: LoadPorts<M>,
    /// Walking (the cycles a group is charged).
    pub busy: Signal<Out, Bit>,
    /// The tally's read-out (see [`ReadOut`]).
    pub read: ReadOut<COUNT_BITS>,
    unit: Unit<M, M1, D>,
    tally: Tally<M, COUNT_BITS>,
    /// Set after the walk's end, cleared by a start; the tally sees it a cycle later, when
    /// the last solution's word has been written (the walk ends a cycle after its last
    /// solution at the earliest). The registered tally ([`TallyPipe::Registered`]) writes it
    /// three cycles later: it sees `drain4`, present in that form only.
    drain: DFF<Bit>,
    drain2: DFF<Bit>,
    drain3: Optional<DFF<Bit>>,
    drain4: Optional<DFF<Bit>>,
    _pipe: TallyPipe,
}

impl<const M: usize, const M1: usize, const D: usize> GroupedUnit<M, M1, D> {
    pub fn new(kind: ArbiterKind) -> Self {
        assert_eq!(D, 2 * M + 1, "a grouped unit walks M + 2 lines");
        Self {
            clock: Default::default(),
            load: Default::default(),
            busy: Default::default(),
            read: Default::default(),
            unit: Unit::new(kind),
            tally: Tally::new(kind),
            drain: Default::default(),
            drain2: Default::default(),
            drain3: Default::default(),
            drain4: Default::default(),
            _pipe: TallyPipe::Direct,
        }
    }

    /// Builds the tally in form `pipe` (direct unless told; [`TallyPipe`]), before
    /// `connect_all`.
    pub fn set_pipe(&mut self, pipe: TallyPipe) {
        self._pipe = pipe;
        self.tally.set_pipe(pipe);
        self.drain3.set_present(pipe == TallyPipe::Registered);
        self.drain4.set_present(pipe == TallyPipe::Registered);
    }

    /// Keeps the tally in `memory` (block RAM unless told; [`crate::solver::bram::Memory`]).
    pub fn set_memory(&mut self, memory: crate::solver::bram::Memory) {
        self.tally.set_memory(memory);
    }
}

impl<const M: usize, const M1: usize, const D: usize> Logic for GroupedUnit<M, M1, D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, drain, drain2);
        for _registered in 0..self._pipe.registered_passes() {
            dff_setup!(self, clock, drain3, drain4);
        }
        self.unit.clock.next = self.clock.val();
        self.tally.clock.next = self.clock.val();
        LoadPorts::<M>::link(&mut self.load, &mut self.unit.load);
        self.busy.next = self.unit.busy.val();

        self.tally.sol.next = self.unit.sol.val();
        self.tally.prev.next = self.unit.sol_prev.val();
        self.tally.last.next = self.unit.sol_last.val();
        self.tally.held.next = self.unit.sol_held.val();
        self.tally.start.next = self.load.start.val();
        if self.unit.done.val() {
            self.drain.d.next = true;
        }
        self.drain2.d.next = self.drain.q.val();
        if self.load.start.val() {
            self.drain.d.next = false;
            self.drain2.d.next = false;
        }
        self.tally.drain.next = self.drain2.q.val();
        for _registered in 0..self._pipe.registered_passes() {
            self.drain3.d.next = self.drain2.q.val();
            self.drain4.d.next = self.drain3.q.val();
            if self.load.start.val() {
                self.drain3.d.next = false;
                self.drain4.d.next = false;
            }
            self.tally.drain.next = self.drain4.q.val();
        }
        ReadOut::<COUNT_BITS>::link(&mut self.read, &mut self.tally.read);
    }
}
