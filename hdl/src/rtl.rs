//! Driving a unit in rust-hdl's own simulator, stepped by hand (the testbench thread of
//! `Simulation` would cost a thread rendezvous per cycle).

use crate::solver::arbiter::ArbiterKind;
use crate::solver::grouped::GroupedUnit;
use crate::solver::grouped_stage::{BODY_BITS, SOUTH_BITS};
use crate::solver::load::{load_sequence, south_load_sequence, BeatKind, Load};
use crate::solver::stage::{COUNT_BITS, CYCLE_BITS, SLOT_COUNT_AT, SLOT_M13_AT, SLOT_M15_AT};
use crate::solver::unit::Unit;
use queens_core::group::{Body, GroupRecord};
use queens_core::south::SouthWalk;
use queens_core::Blocking;
use rust_hdl::prelude::*;

/// Drives `loads` into the load ports of `$rtl.uut` (a bare unit or a grouped one: the same
/// ports), a clock each, then starts it with one more.
macro_rules! load_and_start {
    ($rtl:expr, $loads:expr) => {{
        for (load, data) in $loads {
            $rtl.uut.load.rows.next = load == Load::Rows;
            $rtl.uut.load.cols.next = load == Load::Cols;
            $rtl.uut.load.shift.next = load == Load::Diag;
            $rtl.uut.load.data.next = data.to_bits();
            $rtl.clock();
        }
        $rtl.uut.load.rows.next = false;
        $rtl.uut.load.cols.next = false;
        $rtl.uut.load.shift.next = false;
        $rtl.uut.load.start.next = true;
        $rtl.clock();
        $rtl.uut.load.start.next = false;
    }};
}

/// Drives `$beat` (id, kind, data), or no beat, into the downstream port of `$rtl.uut`.
macro_rules! drive_beat {
    ($rtl:expr, $beat:expr) => {{
        match $beat {
            Some((id, kind, data)) => {
                $rtl.uut.dn.valid.next = true;
                $rtl.uut.dn.id.next = (id as u64).to_bits();
                $rtl.uut.dn.kind.next = kind;
                $rtl.uut.dn.data.next = data.to_bits();
            }
            None => $rtl.uut.dn.valid.next = false,
        }
    }};
}

/// Solutions and search cycles of one subproblem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RtlRun {
    pub solutions: u64,
    pub cycles: u64,
}

/// One unit under simulation.
pub struct RtlUnit<const M: usize, const M1: usize, const D: usize> {
    uut: Unit<M, M1, D>,
}

impl<const M: usize, const M1: usize, const D: usize> RtlUnit<M, M1, D> {
    pub fn new(kind: ArbiterKind) -> Self {
        let mut uut = Unit::<M, M1, D>::new(kind);
        uut.connect_all();
        check_all(&uut).expect("the unit's connections check");
        Self { uut }
    }

    /// One clock cycle: settle the inputs just set (clock low), then a rising and a falling edge.
    fn clock(&mut self) {
        for level in [false, true, false] {
            self.uut.clock.next = Clock { clk: level };
            assert!(simulate(&mut self.uut, 200), "the unit did not settle");
        }
    }

    /// Loads the ring's blocking of `b` (2M + 1 cycles), then runs the search to its end.
    pub fn run(&mut self, b: &Blocking) -> RtlRun {
        assert_eq!(b.m as usize, M);
        load_and_start!(self, load_sequence(b));
        let mut r = RtlRun::default();
        loop {
            let busy = self.uut.busy.val();
            self.clock();
            if busy {
                r.cycles += 1;
            }
            if self.uut.sol.val() {
                r.solutions += 1;
            }
            if self.uut.done.val() {
                return r;
            }
            assert!(r.cycles < 1 << 40, "the unit never finished");
        }
    }
}

/// A unit that walks south groups, with its tally, under simulation.
pub struct RtlGroupedUnit<const M: usize, const M1: usize, const D: usize> {
    uut: GroupedUnit<M, M1, D>,
}

impl<const M: usize, const M1: usize, const D: usize> RtlGroupedUnit<M, M1, D> {
    pub fn new(kind: ArbiterKind) -> Self {
        let mut uut = GroupedUnit::<M, M1, D>::new(kind);
        uut.connect_all();
        check_all(&uut).expect("the grouped unit's connections check");
        Self { uut }
    }

    fn clock(&mut self) {
        for level in [false, true, false] {
            self.uut.clock.next = Clock { clk: level };
            assert!(simulate(&mut self.uut, 300), "the grouped unit did not settle");
        }
    }

    /// Loads and walks the group of `w`, takes every record its tally offers, and returns
    /// them as a board would send them for the group word `wire`: a wrap record per wrap, a
    /// record per place code, then the end record with the walk's cycles (the read-out's are
    /// not counted).
    pub fn run(&mut self, w: &SouthWalk, wire: u64) -> Vec<GroupRecord> {
        assert_eq!(
            (w.m as usize, w.l as usize + M - 1),
            (M, D),
            "a unit built for this walk"
        );
        self.uut.read.take.next = true;
        self.uut.read.wrap_take.next = true;
        load_and_start!(self, south_load_sequence(w));
        let (mut cycles, mut out) = (0u64, Vec::new());
        while !self.uut.read.drained.val() {
            if self.uut.busy.val() {
                cycles += 1;
            }
            if self.uut.read.wrap.val() {
                let south = self.uut.read.wrap_at.val().index() as u32;
                out.push(GroupRecord {
                    wire,
                    body: Body::Wrap { south },
                });
            }
            if self.uut.read.offer.val() {
                out.push(GroupRecord {
                    wire,
                    body: Body::South {
                        south: self.uut.read.code.val().index() as u32,
                        count: self.uut.read.count.val().to_u64(),
                    },
                });
            }
            self.clock();
            assert!(cycles < 1 << 40, "the grouped unit never finished");
        }
        let read = &self.uut.read;
        out.push(GroupRecord {
            wire,
            body: Body::End {
                mod13: read.m13.val().index() as u8,
                mod15: read.m15.val().index() as u8,
                wrap_lost: read.wrap_lost.val(),
                records: read.records.val().index() as u32,
                cycles: cycles & ((1 << queens_core::result::CYCLE_BITS) - 1),
            },
        });
        out
    }
}

/// One subproblem's result as a stage reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StageResult {
    /// Solutions modulo 2^44, and the two residues of the true count.
    pub count: u64,
    pub mod13: u8,
    pub mod15: u8,
    pub cycles: u64,
    /// Which unit ran it.
    pub unit: usize,
}

/// K stages in series under simulation, fed and drained by this driver (it plays the
/// distributor, with a free list of unit ids, and the collector).
pub struct RtlChain<const M: usize, const M1: usize, const D: usize, const K: usize> {
    uut: crate::solver::chain::Chain<M, M1, D, K>,
}

impl<const M: usize, const M1: usize, const D: usize, const K: usize> RtlChain<M, M1, D, K> {
    pub fn new(kind: ArbiterKind) -> Self {
        let mut uut = crate::solver::chain::Chain::<M, M1, D, K>::new(kind);
        uut.connect_all();
        check_all(&uut).expect("the chain's connections check");
        Self { uut }
    }

    fn clock(&mut self) {
        for level in [false, true, false] {
            self.uut.clock.next = Clock { clk: level };
            assert!(simulate(&mut self.uut, 400), "the chain did not settle");
        }
    }

    /// Runs every subproblem; results come back in the order given.
    pub fn run_all(&mut self, subs: &[Blocking]) -> Vec<StageResult> {
        let mut out = vec![None; subs.len()];
        let mut feed = Feeder::new(K);
        let mut idle_cycles = 0u64;
        while feed.done < subs.len() {
            let beat = feed.beat(subs.len(), |i| crate::solver::load::beats(&subs[i]));
            drive_beat!(self, beat);
            self.clock();
            if self.uut.up.valid.val() {
                let id = self.uut.up.id.val().index();
                let data = self.uut.up.data.val();
                out[feed.finished(id)] = Some(StageResult {
                    count: data.get_bits::<COUNT_BITS>(SLOT_COUNT_AT).to_u64(),
                    mod13: data.get_bits::<4>(SLOT_M13_AT).index() as u8,
                    mod15: data.get_bits::<4>(SLOT_M15_AT).index() as u8,
                    cycles: data.get_bits::<CYCLE_BITS>(0).to_u64(),
                    unit: id,
                });
                idle_cycles = 0;
            } else {
                idle_cycles += 1;
                assert!(idle_cycles < 1 << 32, "no result for too long");
            }
        }
        out.into_iter()
            .map(|r| r.expect("every subproblem has a result"))
            .collect()
    }
}

/// A driver's distributor: a free list of unit ids, the job each unit holds, and the beats
/// of the dispatch under way.
struct Feeder {
    free: std::collections::VecDeque<usize>,
    running: Vec<Option<usize>>,
    beats: std::collections::VecDeque<(usize, BeatKind, u64)>,
    next: usize,
    done: usize,
}

impl Feeder {
    fn new(units: usize) -> Self {
        Feeder {
            free: (0..units).collect(),
            running: vec![None; units],
            beats: Default::default(),
            next: 0,
            done: 0,
        }
    }

    /// The beat to drive this cycle (id, kind, data): the next of the dispatch under way,
    /// or the first of job `next`'s (`beats_of`) if one of `jobs` waits and a unit is free.
    fn beat(
        &mut self,
        jobs: usize,
        beats_of: impl Fn(usize) -> Vec<(BeatKind, u64)>,
    ) -> Option<(usize, BeatKind, u64)> {
        if self.beats.is_empty() && self.next < jobs {
            if let Some(id) = self.free.pop_front() {
                self.running[id] = Some(self.next);
                self.beats
                    .extend(beats_of(self.next).into_iter().map(|(k, d)| (id, k, d)));
                self.next += 1;
            }
        }
        self.beats.pop_front()
    }

    /// The job unit `id` held, which it has finished: the unit is free again.
    fn finished(&mut self, id: usize) -> usize {
        let job = self.running[id]
            .take()
            .expect("a result from a unit that was given work");
        self.free.push_back(id);
        self.done += 1;
        job
    }

    /// The job unit `id` holds.
    fn job(&self, id: usize) -> usize {
        self.running[id].expect("a record from a unit that was given work")
    }
}

/// K grouped stages in series under simulation, fed and drained as [`RtlChain`] is.
pub struct RtlGroupedChain<const M: usize, const M1: usize, const D: usize, const K: usize> {
    uut: crate::solver::chain::GroupedChain<M, M1, D, K>,
}

impl<const M: usize, const M1: usize, const D: usize, const K: usize> RtlGroupedChain<M, M1, D, K> {
    pub fn new(kind: ArbiterKind) -> Self {
        let mut uut = crate::solver::chain::GroupedChain::<M, M1, D, K>::new(kind);
        uut.connect_all();
        check_all(&uut).expect("the grouped chain's connections check");
        Self { uut }
    }

    fn clock(&mut self) {
        for level in [false, true, false] {
            self.uut.clock.next = Clock { clk: level };
            assert!(simulate(&mut self.uut, 400), "the grouped chain did not settle");
        }
    }

    /// Walks every group; each group's records (for the group word 0), in the order given,
    /// with the unit that walked it.
    pub fn run_all(&mut self, walks: &[SouthWalk]) -> Vec<(Vec<GroupRecord>, usize)> {
        let size = queens_core::BoardSize::new(M as u32 + 4).expect("a board size");
        let mut out = vec![(Vec::new(), 0); walks.len()];
        let mut feed = Feeder::new(K);
        let mut idle_cycles = 0u64;
        while feed.done < walks.len() {
            let beat = feed.beat(walks.len(), |i| crate::solver::load::south_beats(&walks[i]));
            drive_beat!(self, beat);
            self.clock();
            if self.uut.up.valid.val() {
                let id = self.uut.up.id.val().index();
                let data = self.uut.up.data.val();
                let south = data.get_bits::<SOUTH_BITS>(BODY_BITS).index() as u32;
                let body = data.get_bits::<64>(0).to_u64() as u128
                    | (data.get_bits::<{ BODY_BITS - 64 }>(64).to_u64() as u128) << 64;
                let body = Body::read(size, south, body).expect("a record the codec reads");
                let job = match body {
                    Body::End { .. } => feed.finished(id),
                    Body::South { .. } | Body::Wrap { .. } => feed.job(id),
                };
                out[job].0.push(GroupRecord { wire: 0, body });
                out[job].1 = id;
                idle_cycles = 0;
            } else {
                idle_cycles += 1;
                assert!(idle_cycles < 1 << 32, "no record for too long");
            }
        }
        out
    }
}

/// `step`: one clock cycle of a core's byte streams (both core drivers).
macro_rules! core_step {
    () => {
        /// One clock cycle with `rx` offered on the receive stream: whether the core took
        /// it, and the byte sent, if any (the transmit stream is always ready).
        pub fn step(&mut self, rx: Option<u8>) -> (bool, Option<u8>) {
            self.step_ready(rx, true)
        }

        /// As [`step`](Self::step), the transmit stream ready or not.
        pub fn step_ready(&mut self, rx: Option<u8>, tx_ready: bool) -> (bool, Option<u8>) {
            self.uut.link.rx_valid.next = rx.is_some();
            self.uut.link.rx_data.next = (rx.unwrap_or(0) as u64).to_bits();
            self.uut.link.tx_ready.next = tx_ready;
            self.uut.clock.next = Clock { clk: false };
            assert!(simulate(&mut self.uut, 400), "the core did not settle");
            let tx =
                (tx_ready && self.uut.link.tx_valid.val()).then(|| self.uut.link.tx_data.val().index() as u8);
            let taken = rx.is_some() && self.uut.link.rx_ready.val();
            for level in [true, false] {
                self.uut.clock.next = Clock { clk: level };
                assert!(simulate(&mut self.uut, 400), "the core did not settle");
            }
            (taken, tx)
        }

        /// Nothing queued, running or being sent.
        pub fn idle(&self) -> bool {
            self.uut.idle.val()
        }
    };
}

/// The whole core (front end and K stages) under simulation, driven a byte per cycle.
pub struct RtlCore<const M: usize, const M1: usize, const D: usize, const W: usize, const K: usize> {
    uut: crate::sim_core::Core<M, M1, D, W, K>,
    ident: queens_core::ident::Ident,
}

impl<const M: usize, const M1: usize, const D: usize, const W: usize, const K: usize>
    RtlCore<M, M1, D, W, K>
{
    pub fn new(kind: ArbiterKind, with_cycles: bool) -> Self {
        let ident = crate::emit::CoreConfig::new(M + 4, K, queens_core::UnitKind::Plain, kind, with_cycles)
            .expect("a core of a valid width")
            .ident();
        let mut uut = crate::sim_core::Core::new(kind, with_cycles, &ident);
        uut.connect_all();
        check_all(&uut).expect("the core's connections check");
        Self { uut, ident }
    }

    /// What the core answers an identification request with.
    pub fn ident(&self) -> queens_core::ident::Ident {
        self.ident
    }

    core_step!();
}

/// The whole core of grouped stages (issue 50) under simulation, driven as [`RtlCore`] is.
pub struct RtlGroupedCore<const M: usize, const M1: usize, const D: usize, const W: usize, const K: usize> {
    uut: crate::sim_core::GroupedCore<M, M1, D, W, K>,
}

impl<const M: usize, const M1: usize, const D: usize, const W: usize, const K: usize>
    RtlGroupedCore<M, M1, D, W, K>
{
    /// `room`: records the front end queues before it holds the chain (see
    /// `front::grouped::GroupFront::new`); `None` for all it can.
    pub fn new(kind: ArbiterKind, ident: &queens_core::ident::Ident, room: Option<usize>) -> Self {
        let room = room.unwrap_or(crate::front::grouped::GroupFront::<M, M1, D, W>::room(K));
        let mut uut = crate::sim_core::GroupedCore::new(kind, ident, room);
        uut.connect_all();
        check_all(&uut).expect("the grouped core's connections check");
        Self { uut }
    }

    core_step!();
}
