//! The tally of a unit that walks south groups (issue 50): a counter per place code of the
//! walk's last two queens (`queens_core::south`), in a block RAM, and its read-out after the
//! walk, one record per place code with a solution.
//!
//! While the walk runs, a solution's place code addresses the RAM in the cycle the unit
//! strobes `sol`; two cycles later the word read (the south side's count mod 2^W; W = 36 in a
//! unit, two 18-bit wide block RAMs) is written back one more. A word that wraps (the
//! increment's carry out) is offered as a wrap of its code (`wrap`, `wrap_at`) until taken; a
//! second wrap while one waits sets `wrap_lost`. The walk's solutions are counted mod 13 and
//! mod 15 beside the RAM. The end record carries both (`queens_core::group`), and the host
//! adds the wraps back and checks the counts' sum against the residues. Two solutions in consecutive cycles
//! never share a code (between them B moves the queen of the line before the last); two
//! cycles apart they can, and the later takes the earlier's written word. After the walk
//! (`drain`, raised at least two cycles after the last solution's write),
//! a sequencer visits every code a solution can have (each line's place 0..M-1 or HELD),
//! offers the nonzero words and clears every word it visits: the RAM is all zeros again for
//! the next group.
//!
//! That is the direct form ([`TallyPipe::Direct`]). In the registered form
//! ([`TallyPipe::Registered`]) every port of the RAM is driven straight from a flip-flop
//! (`raddr_r`, and `wrote`, `wrote_at`, `wrote_word` for the write) and its read data goes
//! straight into one (`rdata_r`), each of which the placer can put beside the block: the RAM
//! sits in a fixed column, often far from the unit's logic, and that distance took most of
//! the longest path (docs/measurements/ecp5-routing.md). A solution strobed in cycle t then
//! has its place code in the read address register in t+1, and the RAM reads it at the end
//! of t+1; its word comes out in t+2, is in `rdata_r` in t+3, in `word_r` in t+4, where it is
//! incremented, in the write port's registers in t+5, and written at the end of t+5. A
//! solution of the same code d cycles later reads at the end of t+d+1: from d = 5 on it reads
//! the written word; for d = 2, 3 or 4 it takes the earlier's word from the write port's
//! registers or from their copies one or two cycles behind (`fwd`, the nearest first).
//! `drain` rises in t+5 or later for the last solution's t (the grouped unit delays it two
//! cycles more than in the direct form), and the drain takes four cycles to a word where the
//! direct form takes two, and moves to the next code a cycle after its record is taken
//! (`stepping`): the walk's cycles are the same in both forms, the read-out ends later. The registered form's registers and logic are left out of the direct
//! form's Verilog altogether ([`crate::solver::optional`]): its Verilog is the direct tally's
//! as it was before the form existed.

use crate::solver::arbiter::ArbiterKind;
use crate::solver::bram::{BlockRam, Memory};
use crate::solver::increment::Increment;
use crate::solver::optional::Optional;
use crate::solver::residues::Residues;
use queens_core::south::{HELD, PLACE_BITS};
use rust_hdl::prelude::*;

/// Bits of a place code.
pub const CODE_BITS: usize = 2 * PLACE_BITS as usize;
/// Bits of a unit's tally word: a south side's count mod 2^36 (a tally of W bits wraps at
/// 2^W; narrower ones are built to test the wraps).
pub const COUNT_BITS: usize = queens_core::group::TALLY_BITS as usize;
/// Bits of a drain's record count (the end record's field).
pub const RECORD_BITS: usize = queens_core::group::RECORDS_BITS as usize;

/// How the tally's RAM meets its logic (a parameter of the circuit; a board file chooses it,
/// `[build] tally`, by [`TallyPipe::name`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TallyPipe {
    /// The RAM's ports from the tally's logic and its read data into it; a solution's word is
    /// written two cycles after its strobe, and one of the same code two cycles later takes
    /// it forwarded.
    #[default]
    Direct,
    /// Every RAM port from a register and its read data into one: the word is written five
    /// cycles after the strobe, forwarded to solutions of its code two, three and four cycles
    /// later; more flip-flops and LUTs, a shorter longest path.
    Registered,
}

impl TallyPipe {
    /// As a board file names it.
    pub fn name(self) -> &'static str {
        match self {
            TallyPipe::Direct => "direct",
            TallyPipe::Registered => "registered",
        }
    }

    /// Passes of the loop that holds the registered form's logic in a kernel: one in that
    /// form, none in the direct one (see [`crate::solver::optional`]).
    pub fn registered_passes(self) -> usize {
        usize::from(self == TallyPipe::Registered)
    }
}

impl std::str::FromStr for TallyPipe {
    type Err = String;

    /// By its name; the error says what there is.
    fn from_str(s: &str) -> Result<Self, String> {
        [TallyPipe::Direct, TallyPipe::Registered]
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| format!("{s:?} is not a form of the tally: direct or registered"))
    }
}

impl std::fmt::Display for TallyPipe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The tally's read-out, one record a cycle at most: the record offered (its place code and
/// count) is taken in the cycle `take` is high; `drained`: every word has been visited,
/// `records` were offered and taken. A wrap of code `wrap_at` is offered (`wrap`) during the
/// walk or after, and taken in the cycle `wrap_take` is high (a stage takes it before any
/// record). The walk's solutions mod 13 and mod 15 and whether a wrap was lost stand from
/// the walk's end to the next start.
#[derive(LogicInterface, Default)]
pub struct ReadOut<const W: usize> {
    pub take: Signal<In, Bit>,
    pub offer: Signal<Out, Bit>,
    pub code: Signal<Out, Bits<CODE_BITS>>,
    pub count: Signal<Out, Bits<W>>,
    pub drained: Signal<Out, Bit>,
    pub records: Signal<Out, Bits<RECORD_BITS>>,
    pub wrap: Signal<Out, Bit>,
    pub wrap_at: Signal<Out, Bits<CODE_BITS>>,
    pub wrap_take: Signal<In, Bit>,
    pub m13: Signal<Out, Bits<4>>,
    pub m15: Signal<Out, Bits<4>>,
    pub wrap_lost: Signal<Out, Bit>,
}

#[derive(LogicBlock)]
pub struct Tally<const M: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    /// The unit's solution strobe and the queens it holds with it (`Unit::sol_prev` ...).
    pub sol: Signal<In, Bit>,
    pub prev: Signal<In, Bits<M>>,
    pub last: Signal<In, Bits<M>>,
    pub held: Signal<In, Bit>,
    /// Read out (high from after the walk's last solution until the next walk starts: from
    /// three cycles after its strobe at the earliest in the direct form, five in the
    /// registered form).
    pub drain: Signal<In, Bit>,
    /// A new walk starts: its residues and wraps from none.
    pub start: Signal<In, Bit>,
    /// The read-out (see [`ReadOut`]).
    pub read: ReadOut<W>,

    ram: BlockRam<W>,
    incr: Increment<W>,
    /// A solution's read, a cycle and two behind it (the second writes), the word out of the
    /// RAM, and the last write with its forwarding.
    inc: DFF<Bit>,
    inc_at: DFF<Bits<CODE_BITS>>,
    inc2: DFF<Bit>,
    inc2_at: DFF<Bits<CODE_BITS>>,
    word_r: DFF<Bits<W>>,
    wrote: DFF<Bit>,
    wrote_at: DFF<Bits<CODE_BITS>>,
    wrote_word: DFF<Bits<W>>,
    fwd: DFF<Bit>,
    fwd_word: DFF<Bits<W>>,
    /// The drain: the code visited, whether its word is out of the RAM (`ready`), in
    /// `word_r` (`fetched`) and in `out_word` (`latched`), the record offered, the end.
    seq: DFF<Bits<CODE_BITS>>,
    ready: DFF<Bit>,
    /// The registered form's registers (present in that form only). The RAM's read address:
    /// the solution's code, or the drain's.
    raddr_r: Optional<DFF<Bits<CODE_BITS>>>,
    /// A solution three and four cycles behind its strobe (the fourth increments), and the
    /// word out of the RAM.
    inc3: Optional<DFF<Bit>>,
    inc3_at: Optional<DFF<Bits<CODE_BITS>>>,
    inc4: Optional<DFF<Bit>>,
    inc4_at: Optional<DFF<Bits<CODE_BITS>>>,
    rdata_r: Optional<DFF<Bits<W>>>,
    /// The write port (`wrote` ...) one and two cycles later: written that long ago.
    wrote2: Optional<DFF<Bit>>,
    wrote2_at: Optional<DFF<Bits<CODE_BITS>>>,
    wrote2_word: Optional<DFF<Bits<W>>>,
    wrote3_word: Optional<DFF<Bits<W>>>,
    /// The solution in `inc2` has the code of the one in `inc4` (two cycles ahead: `near`),
    /// of the write in the port (three: `mid`) or of the one before it (four: `far`);
    /// compared a cycle before `fwd` is set, so that the forwarding choice stands straight
    /// behind registers.
    near: Optional<DFF<Bit>>,
    mid: Optional<DFF<Bit>>,
    far: Optional<DFF<Bit>>,
    /// The drain: its code in the read address (`asked`), its word in `rdata_r` (`caught`).
    asked: Optional<DFF<Bit>>,
    caught: Optional<DFF<Bit>>,
    /// The drain moves to the next code this cycle: a record taken (or a zero word passed)
    /// a cycle ago. A record is taken in the cycle its slot upstream is found empty, and
    /// that slot's valid comes from the next stage across the chain's routing: it stands
    /// before this flip-flop only, not before the next code's logic as in the direct form.
    stepping: Optional<DFF<Bit>>,
    fetched: DFF<Bit>,
    latched: DFF<Bit>,
    offered: DFF<Bit>,
    done: DFF<Bit>,
    nrec: DFF<Bits<RECORD_BITS>>,
    out_word: DFF<Bits<W>>,
    /// `out_word` is not zero (tested as it is latched, so that its wide OR stands before a
    /// register, not before the step to the next code).
    out_nz: DFF<Bit>,
    /// The drain clears the word in the RAM next cycle (decided a cycle ahead, so that the
    /// drain's states do not stand before the increment's carry chain and the RAM's write).
    clear_r: DFF<Bit>,
    /// The walk's solutions mod 13 and mod 15; a solution's write carried out of its word,
    /// and the word's code (registered, so that the carry chain's end feeds a flip-flop
    /// only); the wrap offered, its code, and a wrap lost.
    residues: Residues,
    carried: DFF<Bit>,
    carried_at: DFF<Bits<CODE_BITS>>,
    wrap: DFF<Bit>,
    wrap_at: DFF<Bits<CODE_BITS>>,
    lost: DFF<Bit>,

    place_prev: Signal<Local, Bits<PLACE_BITS_U>>,
    place_last: Signal<Local, Bits<PLACE_BITS_U>>,
    at: Signal<Local, Bits<CODE_BITS>>,
    clear: Signal<Local, Bit>,
    /// A solution's word is written this cycle (the carry then counts), at this code.
    writing: Signal<Local, Bit>,
    writing_at: Signal<Local, Bits<CODE_BITS>>,
    bumped: Signal<Local, Bits<W>>,
    /// The drain's next code: each place runs 0..M-1, then HELD, then wraps.
    seq_lo: Signal<Local, Bits<PLACE_BITS_U>>,
    seq_hi: Signal<Local, Bits<PLACE_BITS_U>>,
    next_lo: Signal<Local, Bits<PLACE_BITS_U>>,
    next_hi: Signal<Local, Bits<PLACE_BITS_U>>,
    next_seq: Signal<Local, Bits<CODE_BITS>>,
    step: Signal<Local, Bit>,

    /// Bit k of a place: the positions whose index has bit k set.
    enc: [Constant<Bits<M>>; PLACE_BITS_U],
    /// Bit k of a place, alone.
    bit: [Constant<Bits<PLACE_BITS_U>>; PLACE_BITS_U],
    held_place: Constant<Bits<PLACE_BITS_U>>,
    last_place: Constant<Bits<PLACE_BITS_U>>,
    last_code: Constant<Bits<CODE_BITS>>,
    place_bits: Constant<Bits<8>>,
    _pipe: TallyPipe,
}

const PLACE_BITS_U: usize = PLACE_BITS as usize;

impl<const M: usize, const W: usize> Tally<M, W> {
    /// `kind`: the carry chain's form, as the unit's arbiters (the increment's CCU2C cells
    /// on the ECP5).
    pub fn new(kind: ArbiterKind) -> Self {
        assert!(M < HELD as usize);
        let mask = |k: usize| (0..M).filter(|i| i >> k & 1 == 1).fold(0u64, |m, i| m | 1 << i);
        Self {
            clock: Default::default(),
            sol: Default::default(),
            prev: Default::default(),
            last: Default::default(),
            held: Default::default(),
            drain: Default::default(),
            start: Default::default(),
            read: Default::default(),
            ram: Default::default(),
            incr: Increment::new(kind),
            inc: Default::default(),
            inc_at: Default::default(),
            inc2: Default::default(),
            inc2_at: Default::default(),
            word_r: Default::default(),
            wrote: Default::default(),
            wrote_at: Default::default(),
            wrote_word: Default::default(),
            fwd: Default::default(),
            fwd_word: Default::default(),
            seq: Default::default(),
            ready: Default::default(),
            raddr_r: Default::default(),
            inc3: Default::default(),
            inc3_at: Default::default(),
            inc4: Default::default(),
            inc4_at: Default::default(),
            rdata_r: Default::default(),
            wrote2: Default::default(),
            wrote2_at: Default::default(),
            wrote2_word: Default::default(),
            wrote3_word: Default::default(),
            near: Default::default(),
            mid: Default::default(),
            far: Default::default(),
            asked: Default::default(),
            caught: Default::default(),
            stepping: Default::default(),
            fetched: Default::default(),
            latched: Default::default(),
            offered: Default::default(),
            done: Default::default(),
            nrec: Default::default(),
            out_word: Default::default(),
            out_nz: Default::default(),
            clear_r: Default::default(),
            residues: Default::default(),
            carried: Default::default(),
            carried_at: Default::default(),
            wrap: Default::default(),
            wrap_at: Default::default(),
            lost: Default::default(),
            place_prev: Default::default(),
            place_last: Default::default(),
            at: Default::default(),
            clear: Default::default(),
            writing: Default::default(),
            writing_at: Default::default(),
            bumped: Default::default(),
            seq_lo: Default::default(),
            seq_hi: Default::default(),
            next_lo: Default::default(),
            next_hi: Default::default(),
            next_seq: Default::default(),
            step: Default::default(),
            enc: std::array::from_fn(|k| Constant::new(mask(k).to_bits())),
            bit: std::array::from_fn(|k| Constant::new((1u64 << k).to_bits())),
            held_place: Constant::new((HELD as u64).to_bits()),
            last_place: Constant::new(((M - 1) as u64).to_bits()),
            last_code: Constant::new(((HELD << PLACE_BITS | HELD) as u64).to_bits()),
            place_bits: Constant::new(PLACE_BITS.to_bits()),
            _pipe: TallyPipe::Direct,
        }
    }

    /// Builds the tally in form `pipe` (direct unless told; [`TallyPipe`]), before
    /// `connect_all`.
    pub fn set_pipe(&mut self, pipe: TallyPipe) {
        self._pipe = pipe;
        let on = pipe == TallyPipe::Registered;
        let bits = [
            &mut self.inc3,
            &mut self.inc4,
            &mut self.wrote2,
            &mut self.near,
            &mut self.mid,
        ];
        for r in bits.into_iter().chain([
            &mut self.far,
            &mut self.asked,
            &mut self.caught,
            &mut self.stepping,
        ]) {
            r.set_present(on);
        }
        for r in [
            &mut self.raddr_r,
            &mut self.inc3_at,
            &mut self.inc4_at,
            &mut self.wrote2_at,
        ] {
            r.set_present(on);
        }
        for r in [&mut self.rdata_r, &mut self.wrote2_word, &mut self.wrote3_word] {
            r.set_present(on);
        }
    }

    /// The form it is built in.
    pub fn pipe(&self) -> TallyPipe {
        self._pipe
    }

    /// Keeps the counters in `memory` (block RAM unless told; [`Memory`]).
    pub fn set_memory(&mut self, memory: Memory) {
        self.ram.set_memory(memory);
    }
}

impl<const M: usize, const W: usize> Logic for Tally<M, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, inc, inc_at, inc2, inc2_at, word_r, wrote, wrote_at, wrote_word, fwd, fwd_word, seq,
            ready, fetched, latched, offered, done, nrec, out_word, out_nz, clear_r, carried, carried_at,
            wrap, wrap_at, lost
        );
        for _registered in 0..self._pipe.registered_passes() {
            dff_setup!(
                self,
                clock,
                raddr_r,
                inc3,
                inc3_at,
                inc4,
                inc4_at,
                rdata_r,
                wrote2,
                wrote2_at,
                wrote2_word,
                wrote3_word,
                near,
                mid,
                far,
                asked,
                caught,
                stepping
            );
        }
        self.ram.clock.next = self.clock.val();

        // The place code of the solution the unit holds: one-hot to binary per line.
        self.place_prev.next = 0.into();
        self.place_last.next = 0.into();
        for k in 0..PLACE_BITS_U {
            if (self.prev.val() & self.enc[k].val()).any() {
                self.place_prev.next = self.place_prev.val() | self.bit[k].val();
            }
            if (self.last.val() & self.enc[k].val()).any() {
                self.place_last.next = self.place_last.val() | self.bit[k].val();
            }
        }
        if !self.prev.val().any() {
            self.place_prev.next = self.held_place.val();
        }
        if self.held.val() {
            self.place_last.next = self.held_place.val();
        }
        self.at.next = (bit_cast::<CODE_BITS, PLACE_BITS_U>(self.place_prev.val()) << self.place_bits.val())
            | bit_cast::<CODE_BITS, PLACE_BITS_U>(self.place_last.val());

        // The drain clears the word it has just taken out (see below): in the cycle after
        // `ready`, when the word is in `word_r` (the drain's states follow one another one
        // at a time).
        self.clear_r.d.next = self.drain.val() & !self.done.q.val() & self.ready.q.val();
        for _registered in 0..self._pipe.registered_passes() {
            // Registered: when the word is in `word_r`, after `caught`.
            self.clear_r.d.next = self.drain.val() & !self.done.q.val() & self.caught.q.val();
        }
        self.clear.next = self.clear_r.q.val() & self.drain.val();

        // The word read (or forwarded), one more; zero where the drain clears it. The choice
        // and the clear sit in the carry chain, whose carry out is a wrap.
        self.incr.word.next = self.word_r.q.val();
        self.incr.fwd_word.next = self.fwd_word.q.val();
        self.incr.fwd.next = self.fwd.q.val();
        self.incr.clr.next = self.clear.val();
        self.bumped.next = self.incr.sum.val();

        // The walk's residues count its solutions as they are read (`inc`); a carry counts
        // when a solution's word is written (`writing`: `inc2` here, `inc4` registered). A
        // start clears both: its walk's solutions come later.
        self.residues.clock.next = self.clock.val();
        self.residues.inc.next = self.inc.q.val();
        self.residues.clear.next = self.start.val();
        self.writing.next = self.inc2.q.val();
        self.writing_at.next = self.inc2_at.q.val();
        for _registered in 0..self._pipe.registered_passes() {
            self.writing.next = self.inc4.q.val();
            self.writing_at.next = self.inc4_at.q.val();
        }
        self.carried.d.next = self.writing.val() & self.incr.carry.val();
        self.carried_at.d.next = self.writing_at.val();
        // A wrap waits until taken; one more meanwhile is lost (a code wraps again only 2^W
        // of its solutions later, so only two codes wrapping a few cycles apart lose one).
        if self.read.wrap_take.val() {
            self.wrap.d.next = false;
        }
        if self.carried.q.val() {
            if self.wrap.q.val() & !self.read.wrap_take.val() {
                self.lost.d.next = true;
            } else {
                self.wrap.d.next = true;
                self.wrap_at.d.next = self.carried_at.q.val();
            }
        }
        if self.start.val() {
            self.wrap.d.next = false;
            self.lost.d.next = false;
        }

        // The walk: read at the solution; a cycle later the word comes out of the RAM into
        // `word_r`; a cycle after that it is written back one more. A solution two cycles
        // after another of the same code reads its word in the cycle that word is written
        // (never one cycle after: B moves the queen of the line before the last between
        // them): it takes the written value instead (`fwd`, `fwd_word`).
        self.inc.d.next = self.sol.val() & !self.drain.val();
        self.inc_at.d.next = self.at.val();
        self.inc2.d.next = self.inc.q.val();
        self.inc2_at.d.next = self.inc_at.q.val();
        self.word_r.d.next = self.ram.rdata.val();
        self.wrote.d.next = self.inc2.q.val();
        self.wrote_at.d.next = self.inc2_at.q.val();
        self.wrote_word.d.next = self.bumped.val();
        self.fwd.d.next =
            self.inc.q.val() & self.wrote.q.val() & (self.inc_at.q.val() == self.wrote_at.q.val());
        self.fwd_word.d.next = self.wrote_word.q.val();
        if self.clear.val() {
            self.ram.we.next = true;
            self.ram.waddr.next = self.seq.q.val();
        } else {
            self.ram.we.next = self.inc2.q.val();
            self.ram.waddr.next = self.inc2_at.q.val();
        }
        self.ram.wdata.next = self.bumped.val();
        self.ram.raddr.next = self.at.val();
        for _registered in 0..self._pipe.registered_passes() {
            // Registered (timing in the module's docs): the code into the read address, the
            // word out of the RAM into `rdata_r`, then `word_r`, one more into the write
            // port. A solution two, three or four cycles after another of its code reads
            // before that one's write: it takes the word from the write port or from its
            // copies one or two cycles behind. Two matches at once are two and four cycles
            // ahead (three and two or four would share a code a cycle apart): the nearer,
            // written later, wins. A clear in the port matches as a write would (`mid`,
            // `far`); `near` sees solutions only, which no clear meets (the drain starts after
            // the last and clears from its fifth cycle on).
            self.inc3.d.next = self.inc2.q.val();
            self.inc3_at.d.next = self.inc2_at.q.val();
            self.inc4.d.next = self.inc3.q.val();
            self.inc4_at.d.next = self.inc3_at.q.val();
            self.rdata_r.d.next = self.ram.rdata.val();
            self.word_r.d.next = self.rdata_r.q.val();
            self.near.d.next =
                self.inc2.q.val() & self.inc4.q.val() & (self.inc2_at.q.val() == self.inc4_at.q.val());
            self.mid.d.next =
                self.inc2.q.val() & self.wrote.q.val() & (self.inc2_at.q.val() == self.wrote_at.q.val());
            self.far.d.next =
                self.inc2.q.val() & self.wrote2.q.val() & (self.inc2_at.q.val() == self.wrote2_at.q.val());
            self.fwd.d.next = self.near.q.val() | self.mid.q.val() | self.far.q.val();
            if self.near.q.val() {
                self.fwd_word.d.next = self.wrote_word.q.val();
            } else if self.mid.q.val() {
                self.fwd_word.d.next = self.wrote2_word.q.val();
            } else {
                self.fwd_word.d.next = self.wrote3_word.q.val();
            }
            if self.clear.val() {
                self.wrote.d.next = true;
                self.wrote_at.d.next = self.seq.q.val();
            } else {
                self.wrote.d.next = self.inc4.q.val();
                self.wrote_at.d.next = self.inc4_at.q.val();
            }
            self.wrote2.d.next = self.wrote.q.val();
            self.wrote2_at.d.next = self.wrote_at.q.val();
            self.wrote2_word.d.next = self.wrote_word.q.val();
            self.wrote3_word.d.next = self.wrote2_word.q.val();
            self.ram.we.next = self.wrote.q.val();
            self.ram.waddr.next = self.wrote_at.q.val();
            self.ram.wdata.next = self.wrote_word.q.val();
            self.raddr_r.d.next = self.at.val();
        }

        // The drain's next code.
        self.seq_lo.next = self.seq.q.val().get_bits::<PLACE_BITS_U>(0);
        self.seq_hi.next = self
            .seq
            .q
            .val()
            .get_bits::<PLACE_BITS_U>(self.place_bits.val().index());
        self.next_hi.next = self.seq_hi.val();
        if self.seq_lo.val() == self.held_place.val() {
            self.next_lo.next = 0.into();
            if self.seq_hi.val() == self.last_place.val() {
                self.next_hi.next = self.held_place.val();
            } else {
                self.next_hi.next = self.seq_hi.val() + 1;
            }
        } else if self.seq_lo.val() == self.last_place.val() {
            self.next_lo.next = self.held_place.val();
        } else {
            self.next_lo.next = self.seq_lo.val() + 1;
        }
        self.next_seq.next = (bit_cast::<CODE_BITS, PLACE_BITS_U>(self.next_hi.val())
            << self.place_bits.val())
            | bit_cast::<CODE_BITS, PLACE_BITS_U>(self.next_lo.val());

        // The drain, a code at a time: read its word (two cycles), take it out of the RAM and
        // clear it there, then offer it if nonzero (a register's test, not the RAM's output),
        // and move on once it is taken (or at once if zero).
        self.step.next = false;
        if !self.drain.val() {
            self.seq.d.next = 0.into();
            self.ready.d.next = false;
            self.fetched.d.next = false;
            self.latched.d.next = false;
            self.offered.d.next = false;
            self.done.d.next = false;
            self.nrec.d.next = 0.into();
        } else if !self.done.q.val() {
            self.ram.raddr.next = self.seq.q.val();
            if self.offered.q.val() {
                if self.read.take.val() {
                    self.offered.d.next = false;
                    self.step.next = true;
                }
            } else if self.latched.q.val() {
                self.latched.d.next = false;
                if self.out_nz.q.val() {
                    self.offered.d.next = true;
                    self.nrec.d.next = self.nrec.q.val() + 1;
                } else {
                    self.step.next = true;
                }
            } else if self.fetched.q.val() {
                self.fetched.d.next = false;
                self.latched.d.next = true;
                self.out_word.d.next = self.word_r.q.val();
                self.out_nz.d.next = self.word_r.q.val().any();
            } else if self.ready.q.val() {
                self.ready.d.next = false;
                self.fetched.d.next = true;
            } else {
                self.ready.d.next = true;
            }
        }
        for _registered in 0..self._pipe.registered_passes() {
            // Registered: the drain's code into the read address register, and two more
            // steps to its word, `asked` before `ready` and `caught` after it (one of them,
            // or none before the first, at a time).
            if self.drain.val() & !self.done.q.val() {
                self.raddr_r.d.next = self.seq.q.val();
            }
            self.ram.raddr.next = self.raddr_r.q.val();
            if !self.drain.val() {
                self.asked.d.next = false;
                self.caught.d.next = false;
            } else if !self.done.q.val()
                & !self.offered.q.val()
                & !self.latched.q.val()
                & !self.fetched.q.val()
            {
                self.asked.d.next =
                    !self.asked.q.val() & !self.ready.q.val() & !self.caught.q.val() & !self.stepping.q.val();
                self.ready.d.next = self.asked.q.val();
                self.caught.d.next = self.ready.q.val();
                self.fetched.d.next = self.caught.q.val();
            }
        }
        if self.step.val() {
            self.seq.d.next = self.next_seq.val();
            self.done.d.next = self.seq.q.val() == self.last_code.val();
        }
        for _registered in 0..self._pipe.registered_passes() {
            // Registered: the step a cycle later, from `stepping` (no new read is asked for
            // meanwhile, above).
            self.stepping.d.next = self.step.val() & self.drain.val();
            if self.drain.val() {
                self.seq.d.next = self.seq.q.val();
                self.done.d.next = self.done.q.val();
                if self.stepping.q.val() {
                    self.seq.d.next = self.next_seq.val();
                    self.done.d.next = self.seq.q.val() == self.last_code.val();
                }
            }
        }

        self.read.offer.next = self.offered.q.val();
        // `seq` moves on only once the record offered is taken: it is the record's code.
        self.read.code.next = self.seq.q.val();
        self.read.count.next = self.out_word.q.val();
        self.read.wrap.next = self.wrap.q.val();
        self.read.wrap_at.next = self.wrap_at.q.val();
        self.read.m13.next = self.residues.m13.val();
        self.read.m15.next = self.residues.m15.val();
        self.read.wrap_lost.next = self.lost.q.val();
        // Low from the cycle a new walk's start takes `drain` away.
        self.read.drained.next = self.done.q.val() & self.drain.val();
        self.read.records.next = self.nrec.q.val();
    }
}
