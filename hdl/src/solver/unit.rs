//! The solver unit: exhaustive backtracking over the inner columns of one pre-placement,
//! one step per clock. Its cycle-by-cycle behaviour is specified (and modelled for speed) in
//! `queens_sim::model`; in short, every cycle two arbiters look at two columns:
//! A searches the active column c from its bottom row, B searches column c-1 from just above
//! its queen, and the unit advances (A found a row), moves the queen of c-1 (B found one),
//! takes the uncle step (see `unc`), or retreats. A row found by A in the last column is a
//! solution.
//!
//! State, with M inner rows and D = 2M - 1 diagonals per direction:
//! - `qtop`: the queen of column c-1 (one-hot, 0 for a column the ring fills), kept out of
//!   the blocking registers so that B can move it without touching them;
//! - `bh`, `bd`, `bu`: rows and both diagonal directions of the ring's queens and of the
//!   queens left of c-1, loaded before a start (a queen the walk lifts is never on a line of
//!   the ring, so the ring's lines stay). The diagonal registers rotate by one position per
//!   column, so column c always reads bits 0..M-1 and column c-1 a neighbouring slice
//!   (wiring, no multiplexer); they are loaded through the same rotation, a bit of each per
//!   cycle, so that loading costs their logic no input;
//! - `cols`: the columns the ring fills, loaded before a start;
//! - `unc`: the held uncle, the row B found for the queen of c-2 in the advance into c (valid
//!   in `unc_v` until the walk steps back). Where A and B find nothing it moves that queen
//!   with the step back a retreat takes anyway: the blocking registers see a retreat, and
//!   only the queen of c-1 it leaves and the exhausted flag differ. Kept from B's grant
//!   rather than searched again, it costs no third carry chain;
//! - the stack of the queens left of c-1, in a LUT-RAM indexed by column: pushed on advance,
//!   read back on retreat (a RAM instead of the reference design's two-way shift register of
//!   M x M flip-flops, which cost it about 500 LUTs per unit).
//!
//! The ring's blocking thus sits in the registers the walk already reads; no table of open
//! rows per column is kept or fetched.
//!
//! The same circuit walks a south group (`queens_core::south`, issue 50) when built with
//! D = 2M + 1: L = D - M + 1 = M + 2 lines of M positions. The filled-line register then has
//! two more bits, loaded from bits 2 and 3 of the diagonal beats, and the unit keeps the last
//! two lines' queens of each solution for the tally (`sol_prev`, `sol_last`, `sol_held`).
//! Built square (D = 2M - 1) none of that is there: its registers are constants that
//! synthesis removes.

use crate::solver::advance::Advance;
use crate::solver::arbiter::{Arbiter, ArbiterKind, Entry};
use crate::solver::enable::Enable;
use crate::solver::keep::{Keep, KeepBits};
use crate::solver::lutram::LutRam;
use rust_hdl::prelude::*;

/// A solver unit for M positions a line (M1 = M + 1): D = 2M - 1 walks today's M lines of a
/// pre-placement, D = 2M + 1 the M + 2 lines of a south group.
#[derive(LogicBlock)]
pub struct Unit<const M: usize, const M1: usize, const D: usize> {
    pub clock: Signal<In, Clock>,
    /// Begin a search (the ring's blocking must be loaded: see [`load_sequence`](crate::solver::load::load_sequence)).
    pub start: Signal<In, Bit>,
    /// Load ports, used while the unit is idle: `load_data` is the ring's rows
    /// (`load_rows`) or its filled columns (`load_cols`); `shift` rotates one bit of each
    /// diagonal register in, falling from `load_data` bit 0 and rising from bit 1.
    pub load_rows: Signal<In, Bit>,
    pub load_cols: Signal<In, Bit>,
    pub shift: Signal<In, Bit>,
    pub load_data: Signal<In, Bits<M>>,
    /// Searching (one cycle per step while high).
    pub busy: Signal<Out, Bit>,
    /// Registered strobe: the previous step found a solution.
    pub sol: Signal<Out, Bit>,
    /// Registered strobe: the previous step ended the search.
    pub done: Signal<Out, Bit>,
    /// A south group's walk: with `sol`, the solution's queens of the last line but one (0 if
    /// the group fixes that line) and of the last line (one-hot; not a queen if `sol_held`:
    /// the group fixes the last line). Zero in a unit built square.
    pub sol_prev: Signal<Out, Bits<M>>,
    pub sol_last: Signal<Out, Bits<M>>,
    pub sol_held: Signal<Out, Bit>,

    c: DFF<Bits<5>>,
    /// c + 1, c - 1 and c - 2, kept beside c so that no adder follows a decision.
    cp1: DFF<Bits<5>>,
    cm1: DFF<Bits<5>>,
    cm2: DFF<Bits<5>>,
    /// Column c is one the ring fills.
    filled: DFF<Bit>,
    exh: DFF<Bit>,
    /// Searching: high in every step, from the cycle after a start to the last step.
    act: DFF<Bit>,
    /// The same for the stage (`busy`: its cycle counter's enable), from a start until
    /// `done_r`: as one register with `act`, that flip-flop sat among the counter's loads,
    /// far from its next value's logic after the chains.
    run: DFF<Bit>,
    /// The unit may advance: searching, not exhausted, not at the last column. `act` and
    /// `go` are registers whose next values, one per outcome of the step, are kept early and
    /// picked by the advance and B's carry out (see `keep_go_adv`), so that every clock enable
    /// starts from registers: as logic they were the arrays' longest paths (five LUTs before
    /// the enables' multiplexer).
    go: DFF<Bit>,
    qtop: DFF<Bits<M>>,
    qvalid: DFF<Bit>,
    bh: DFF<Bits<M>>,
    bd: DFF<Bits<D>>,
    bu: DFF<Bits<D>>,
    cols: DFF<Bits<M>>,
    unc: DFF<Bits<M>>,
    unc_v: DFF<Bit>,
    sol_r: DFF<Bit>,
    done_r: DFF<Bit>,
    stack: LutRam<M1>,
    arb_a: Arbiter<M, M1>,
    arb_b: Arbiter<M, M1>,
    /// The advance, one copy per group of registers it steers: the rows, each diagonal
    /// direction, and the walk's position with the rest (see [`Advance`]).
    adv_rows: Advance,
    adv_falling: Advance,
    adv_rising: Advance,
    adv_walk: Advance,
    /// The copy for the search's own flags: `exh`, `done_r`, `act`, `go`.
    adv_ctl: Advance,
    /// B found a row: a late decision, kept as a wire of its own.
    keep_b: Keep,
    /// Column tests, kept apart from the decisions they feed.
    keep_at0: Keep,
    keep_at1: Keep,
    keep_last: Keep,
    /// Column c+1 is the last.
    keep_last1: Keep,
    /// Whether column c+1 is filled: a multiplexer of `cols`, kept ahead of the advance.
    keep_fill: Keep,
    /// Clock enables of the blocking registers, one copy per group: the rows, each diagonal
    /// direction (see [`Enable`]).
    en_rows: Enable,
    en_falling: Enable,
    en_rising: Enable,
    /// Their values for each outcome of the two carry chains, known at the start of the
    /// cycle: B finds no row (`_bnone`); B finds one and A finds one (`_arow`) or not
    /// (`_anone`).
    keep_diag_bnone: Keep,
    keep_diag_arow: Keep,
    keep_diag_anone: Keep,
    keep_rows_bnone: Keep,
    keep_rows_arow: Keep,
    keep_rows_anone: Keep,
    /// The clock enable of the walk's position (c, its neighbours, `filled`, `qvalid`): it
    /// holds only while B moves the queen of c-1. Written out the same way: its value where
    /// A finds a row or not (B finding none enables it).
    keep_walk: Keep,
    keep_walk_arow: Keep,
    keep_walk_anone: Keep,
    /// The blocking registers' next values where the unit does not advance (a retreat, or a
    /// load while idle), known at the start of the cycle: the advance then picks between two
    /// values in one LUT4, where synthesis had folded it into two levels. Kept on the ECP5
    /// only (the CCU2C arbiter's fabric): a LUT6 holds the whole next value after the advance
    /// anyway, and there the cut only adds LUTs (xc7 stage: 475 LUTs without, 565 with).
    keep_bh_back: KeepBits<M>,
    keep_bd_back: KeepBits<D>,
    keep_bu_back: KeepBits<D>,
    /// Where the search may end: at column 0, or at column 1 if B finds no row (the early
    /// half of `fin`), so that one LUT follows the carry chains.
    keep_end0: Keep,
    keep_end1: Keep,
    /// The next `go` and `act` where the unit advances (`_adv`), where it does not and B finds
    /// a row (`_move`, for `act` `_b0`), and where B finds none (`_b1`; `go` is then only
    /// set by a start).
    keep_go_adv: Keep,
    keep_go_move: Keep,
    keep_act_adv: Keep,
    keep_act_b0: Keep,
    keep_act_b1: Keep,

    /// `cols` widened to every value of a column register.
    cols_w: Signal<Local, Bits<32>>,
    pop_q: Signal<Local, Bits<M>>,
    pop_v: Signal<Local, Bit>,
    last: Signal<Local, Bit>,
    at0: Signal<Local, Bit>,
    at1: Signal<Local, Bit>,
    b_ok: Signal<Local, Bit>,
    /// The held uncle is valid while searching: where A and B find nothing, the unit moves it.
    uncle_ok: Signal<Local, Bit>,
    /// The queen of c-1 after a step back: the held uncle, else the stack's.
    back_q: Signal<Local, Bits<M>>,
    adv: Signal<Local, Bit>,
    fin: Signal<Local, Bit>,
    /// An advance copied into the search's flags.
    adv_c: Signal<Local, Bit>,
    /// The walk takes a step that moves the blocking registers, for each outcome of the
    /// carry chains (see `keep_diag_bnone` and its siblings).
    step_bnone: Signal<Local, Bit>,
    step_arow: Signal<Local, Bit>,
    step_anone: Signal<Local, Bit>,
    bd_adv: Signal<Local, Bits<D>>,
    bu_adv: Signal<Local, Bits<D>>,
    bd_ret: Signal<Local, Bits<D>>,
    bu_ret: Signal<Local, Bits<D>>,

    last_col: Constant<Bits<5>>,
    /// Built for a south group's walk (D = 2M + 1); where the high filled lines sit.
    grouped: Constant<Bit>,
    m_at: Constant<Bits<8>>,

    // A south group's walk only (constants, removed by synthesis, in a unit built square).
    /// The filled-line bits of lines M and M + 1 (a south group's walk only).
    cols_hi: DFF<Bits<2>>,
    /// The last two lines' queens, taken every cycle: read where `sol` says a solution.
    at_prev: DFF<Bits<M>>,
    at_last: DFF<Bits<M>>,
    at_held: DFF<Bit>,
    /// `load_data` from bit 2: the high filled-line bits of a diagonal beat.
    load_hi: Signal<Local, Bits<32>>,
    /// D - 1 and D - 2: where rotation wraps.
    dtop: Constant<Bits<8>>,
    dtop2: Constant<Bits<8>>,
}

impl<const M: usize, const M1: usize, const D: usize> Unit<M, M1, D> {
    pub fn new(kind: ArbiterKind) -> Self {
        let grouped = D == 2 * M + 1;
        assert!((2..=28).contains(&M) && M1 == M + 1 && (D == 2 * M - 1 || grouped));
        // Line indices fit the 5-bit column registers; the diagonal beats carry 4 bits.
        assert!(!grouped || (4..=29).contains(&M));
        let lut4 = kind == ArbiterKind::Ccu2c;
        Self {
            clock: Default::default(),
            start: Default::default(),
            load_rows: Default::default(),
            load_cols: Default::default(),
            shift: Default::default(),
            load_data: Default::default(),
            busy: Default::default(),
            sol: Default::default(),
            done: Default::default(),
            sol_prev: Default::default(),
            sol_last: Default::default(),
            sol_held: Default::default(),
            c: Default::default(),
            cp1: Default::default(),
            cm1: Default::default(),
            cm2: Default::default(),
            filled: Default::default(),
            exh: Default::default(),
            act: Default::default(),
            run: Default::default(),
            go: Default::default(),
            qtop: Default::default(),
            qvalid: Default::default(),
            bh: Default::default(),
            bd: Default::default(),
            bu: Default::default(),
            cols: Default::default(),
            unc: Default::default(),
            unc_v: Default::default(),
            sol_r: Default::default(),
            done_r: Default::default(),
            stack: Default::default(),
            arb_a: Arbiter::new(kind, Entry::Bottom),
            arb_b: Arbiter::new(kind, Entry::Queen),
            adv_rows: Default::default(),
            adv_falling: Default::default(),
            adv_rising: Default::default(),
            adv_walk: Default::default(),
            adv_ctl: Default::default(),
            keep_b: Default::default(),
            keep_at0: Default::default(),
            keep_at1: Default::default(),
            keep_last: Default::default(),
            keep_last1: Default::default(),
            keep_fill: Default::default(),
            en_rows: Default::default(),
            en_falling: Default::default(),
            en_rising: Default::default(),
            keep_diag_bnone: Default::default(),
            keep_diag_arow: Default::default(),
            keep_diag_anone: Default::default(),
            keep_rows_bnone: Default::default(),
            keep_rows_arow: Default::default(),
            keep_rows_anone: Default::default(),
            keep_walk: Default::default(),
            keep_walk_arow: Default::default(),
            keep_walk_anone: Default::default(),
            keep_bh_back: KeepBits::new(lut4),
            keep_bd_back: KeepBits::new(lut4),
            keep_bu_back: KeepBits::new(lut4),
            keep_end0: Default::default(),
            keep_end1: Default::default(),
            keep_go_adv: Default::default(),
            keep_go_move: Default::default(),
            keep_act_adv: Default::default(),
            keep_act_b0: Default::default(),
            keep_act_b1: Default::default(),
            cols_w: Default::default(),
            pop_q: Default::default(),
            pop_v: Default::default(),
            last: Default::default(),
            at0: Default::default(),
            at1: Default::default(),
            b_ok: Default::default(),
            uncle_ok: Default::default(),
            back_q: Default::default(),
            adv: Default::default(),
            fin: Default::default(),
            adv_c: Default::default(),
            step_bnone: Default::default(),
            step_arow: Default::default(),
            step_anone: Default::default(),
            bd_adv: Default::default(),
            bu_adv: Default::default(),
            bd_ret: Default::default(),
            bu_ret: Default::default(),
            last_col: Constant::new(((D - M) as u64).to_bits()),
            grouped: Constant::new(grouped),
            m_at: Constant::new((M as u64).to_bits()),
            cols_hi: Default::default(),
            at_prev: Default::default(),
            at_last: Default::default(),
            at_held: Default::default(),
            load_hi: Default::default(),
            dtop: Constant::new(((D - 1) as u64).to_bits()),
            dtop2: Constant::new(((D - 2) as u64).to_bits()),
        }
    }
}

impl<const M: usize, const M1: usize, const D: usize> Logic for Unit<M, M1, D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, c, cp1, cm1, cm2, filled, exh, act, run, go, qtop, qvalid, bh, bd, bu, cols, unc,
            unc_v, sol_r, done_r, cols_hi, at_prev, at_last, at_held
        );

        // The ring's filled columns: loaded while idle, constant during a search.
        if self.load_cols.val() {
            self.cols.d.next = self.load_data.val();
        }
        self.cols_w.next = bit_cast::<32, M>(self.cols.q.val());
        if self.grouped.val() {
            self.cols_w.next =
                self.cols_w.val() | (bit_cast::<32, 2>(self.cols_hi.q.val()) << self.m_at.val());
        }
        self.keep_fill.a.next = self.cols_w.val().get_bit(self.cp1.q.val().index());

        // Stack: the queen of column x (bit 0 = has one) at address x + 1.
        self.stack.clock.next = self.clock.val();
        self.stack.waddr.next = self.c.q.val();
        self.stack.wdata.next =
            (bit_cast::<M1, M>(self.qtop.q.val()) << 1) | bit_cast::<M1, 1>(self.qvalid.q.val().into());
        // Written every cycle: only the advance's write is ever read back (an address is read
        // after the walk has advanced from it), and the write enable then needs no decision.
        self.stack.we.next = true;
        self.stack.raddr0.next = self.cm1.q.val();
        self.stack.raddr1.next = self.cm1.q.val();
        self.pop_q.next = self.stack.rdata0.val().get_bits::<M>(1);
        self.pop_v.next = self.stack.rdata0.val().get_bit(0);

        // A: column c from the bottom; the queen of c-1 blocks its row and both neighbours.
        self.arb_a.pass.next =
            self.bh.q.val() | self.bd.q.val().get_bits::<M>(0) | self.bu.q.val().get_bits::<M>(0);
        self.arb_a.near.next = self.qtop.q.val();
        self.arb_a.have.next = 0.into();
        self.arb_a.tin.next = true;

        // B: column c-1 from just above its queen; the diagonals are the neighbouring slices.
        self.arb_b.pass.next = self.bh.q.val()
            | (self.bd.q.val().get_bits::<M>(0) << 1)
            | bit_cast::<M, 1>(self.bd.q.val().get_bit(self.dtop.val().index()).into())
            | self.bu.q.val().get_bits::<M>(1);
        self.arb_b.near.next = 0.into();
        self.arb_b.have.next = self.qtop.q.val();
        self.arb_b.tin.next = false;

        // Decisions. Everything but the two carry outs is known at the start of the cycle.
        self.keep_last.a.next = self.c.q.val() == self.last_col.val();
        self.last.next = self.keep_last.y.val();
        self.keep_at0.a.next = self.c.q.val() == 0;
        self.at0.next = self.keep_at0.y.val();
        self.keep_at1.a.next = self.c.q.val() == 1;
        self.at1.next = self.keep_at1.y.val();
        self.keep_last1.a.next = self.cp1.q.val() == self.last_col.val();
        // Early: may advance (`go`). Late (after the carry chains): advance; B found a row.
        self.adv_rows.go.next = self.go.q.val();
        self.adv_rows.filled.next = self.filled.q.val();
        self.adv_rows.tout.next = self.arb_a.tout.val();
        self.adv_falling.go.next = self.go.q.val();
        self.adv_falling.filled.next = self.filled.q.val();
        self.adv_falling.tout.next = self.arb_a.tout.val();
        self.adv_rising.go.next = self.go.q.val();
        self.adv_rising.filled.next = self.filled.q.val();
        self.adv_rising.tout.next = self.arb_a.tout.val();
        self.adv_walk.go.next = self.go.q.val();
        self.adv_walk.filled.next = self.filled.q.val();
        self.adv_walk.tout.next = self.arb_a.tout.val();
        self.adv_ctl.go.next = self.go.q.val();
        self.adv_ctl.filled.next = self.filled.q.val();
        self.adv_ctl.tout.next = self.arb_a.tout.val();
        self.adv.next = self.adv_walk.y.val();
        self.adv_c.next = self.adv_ctl.y.val();
        self.keep_b.a.next = self.qvalid.q.val() & !self.arb_b.tout.val();
        self.b_ok.next = self.keep_b.y.val();
        self.sol_r.d.next = self.act.q.val()
            & !self.start.val()
            & !self.exh.q.val()
            & self.last.val()
            & (self.filled.q.val() | !self.arb_a.tout.val());
        self.keep_end0.a.next = self.act.q.val() & !self.start.val() & self.at0.val();
        self.keep_end1.a.next = self.act.q.val() & !self.start.val() & self.at1.val();
        self.fin.next =
            !self.adv_c.val() & (self.keep_end0.y.val() | (self.keep_end1.y.val() & !self.b_ok.val()));
        self.done_r.d.next = self.fin.val();

        // Advance: commit the queen of c-1 into the registers (window c-1), then rotate to c+1.
        self.bd_adv.next = self.bd.q.val()
            | (bit_cast::<D, M>(self.qtop.q.val()) >> 1)
            | (bit_cast::<D, 1>(self.qtop.q.val().get_bit(0).into()) << self.dtop.val());
        self.bu_adv.next = self.bu.q.val() | (bit_cast::<D, M>(self.qtop.q.val()) << 1);
        // Retreat: lift the queen of c-2 out of the registers (window c-2), then rotate to c-1.
        self.bd_ret.next = self.bd.q.val()
            & !((bit_cast::<D, M>(self.pop_q.val()) >> 2)
                | (bit_cast::<D, 1>(self.pop_q.val().get_bit(1).into()) << self.dtop.val())
                | (bit_cast::<D, 1>(self.pop_q.val().get_bit(0).into()) << self.dtop2.val()));
        self.bu_ret.next = self.bu.q.val() & !(bit_cast::<D, M>(self.pop_q.val()) << 2);

        // The blocking registers change on an advance, on a retreat while searching, and when
        // loaded: a clock enable of adv | act & !b_ok | loading, written out for each outcome
        // of the two carry chains so that only a multiplexer follows them. Where B finds no
        // row the unit advances or retreats; otherwise it advances if A found a row (or the
        // column is filled), and retreats only if c-1 has no queen for B to move. Routed,
        // this is the unit's longest path: one level of logic less took it from 106 to 113 MHz.
        self.step_bnone.next = self.act.q.val();
        self.step_arow.next = self.go.q.val() | (self.act.q.val() & !self.qvalid.q.val());
        self.step_anone.next =
            (self.go.q.val() & self.filled.q.val()) | (self.act.q.val() & !self.qvalid.q.val());
        self.keep_diag_bnone.a.next = self.step_bnone.val() | self.shift.val();
        self.keep_diag_arow.a.next = self.step_arow.val() | self.shift.val();
        self.keep_diag_anone.a.next = self.step_anone.val() | self.shift.val();
        self.keep_rows_bnone.a.next = self.step_bnone.val() | self.load_rows.val();
        self.keep_rows_arow.a.next = self.step_arow.val() | self.load_rows.val();
        self.keep_rows_anone.a.next = self.step_anone.val() | self.load_rows.val();
        self.en_rows.b_tout.next = self.arb_b.tout.val();
        self.en_rows.a_tout.next = self.arb_a.tout.val();
        self.en_rows.bnone.next = self.keep_rows_bnone.y.val();
        self.en_rows.anone.next = self.keep_rows_anone.y.val();
        self.en_rows.arow.next = self.keep_rows_arow.y.val();
        self.en_falling.b_tout.next = self.arb_b.tout.val();
        self.en_falling.a_tout.next = self.arb_a.tout.val();
        self.en_falling.bnone.next = self.keep_diag_bnone.y.val();
        self.en_falling.anone.next = self.keep_diag_anone.y.val();
        self.en_falling.arow.next = self.keep_diag_arow.y.val();
        self.en_rising.b_tout.next = self.arb_b.tout.val();
        self.en_rising.a_tout.next = self.arb_a.tout.val();
        self.en_rising.bnone.next = self.keep_diag_bnone.y.val();
        self.en_rising.anone.next = self.keep_diag_anone.y.val();
        self.en_rising.arow.next = self.keep_diag_arow.y.val();
        if self.load_rows.val() {
            self.keep_bh_back.a.next = self.load_data.val();
        } else {
            self.keep_bh_back.a.next = self.bh.q.val() & !self.pop_q.val();
        }
        if self.shift.val() {
            // Loading: the retreat's rotation, a new bit where the wrapped one was.
            self.keep_bd_back.a.next =
                (self.bd.q.val() << 1) | bit_cast::<D, 1>(self.load_data.val().get_bit(0).into());
            self.keep_bu_back.a.next = (self.bu.q.val() >> 1)
                | (bit_cast::<D, 1>(self.load_data.val().get_bit(1).into()) << self.dtop.val());
        } else {
            self.keep_bd_back.a.next = (self.bd_ret.val() << 1)
                | bit_cast::<D, 1>(self.bd_ret.val().get_bit(self.dtop.val().index()).into());
            self.keep_bu_back.a.next = (self.bu_ret.val() >> 1)
                | (bit_cast::<D, 1>(self.bu_ret.val().get_bit(0).into()) << self.dtop.val());
        }
        if self.en_rows.y.val() {
            if self.adv_rows.y.val() {
                self.bh.d.next = self.bh.q.val() | self.qtop.q.val();
            } else {
                self.bh.d.next = self.keep_bh_back.y.val();
            }
        }
        if self.en_falling.y.val() {
            if self.adv_falling.y.val() {
                self.bd.d.next = (self.bd_adv.val() >> 1)
                    | (bit_cast::<D, 1>(self.bd_adv.val().get_bit(0).into()) << self.dtop.val());
            } else {
                self.bd.d.next = self.keep_bd_back.y.val();
            }
        }
        if self.en_rising.y.val() {
            if self.adv_rising.y.val() {
                self.bu.d.next = (self.bu_adv.val() << 1)
                    | bit_cast::<D, 1>(self.bu_adv.val().get_bit(self.dtop.val().index()).into());
            } else {
                self.bu.d.next = self.keep_bu_back.y.val();
            }
        }

        // The walk's position changes on an advance, a retreat or a start, and holds while B
        // moves the queen of c-1: its clock enable, like the blocking registers', is a
        // multiplexer after the carry chains, and its next value needs no `b_ok`. Idle, the
        // position does not matter (a start sets all of it).
        self.keep_walk_arow.a.next = self.step_arow.val() | self.start.val();
        self.keep_walk_anone.a.next = self.step_anone.val() | self.start.val();
        if self.arb_b.tout.val() {
            self.keep_walk.a.next = true;
        } else if self.arb_a.tout.val() {
            self.keep_walk.a.next = self.keep_walk_anone.y.val();
        } else {
            self.keep_walk.a.next = self.keep_walk_arow.y.val();
        }
        // The held uncle moves with the walk: an advance keeps B's row (the next for the queen
        // of the column that becomes c-2), a step back drops it, B's move keeps it. Its rows
        // need no logic: B's grant into a flip-flop with the walk's clock enable.
        if self.keep_walk.y.val() {
            self.unc.d.next = self.arb_b.grant.val();
            self.unc_v.d.next = self.adv.val() & self.b_ok.val();
        }
        self.uncle_ok.next = self.act.q.val() & self.unc_v.q.val();
        if self.uncle_ok.val() {
            self.back_q.next = self.unc.q.val();
        } else {
            self.back_q.next = self.pop_q.val();
        }
        if self.keep_walk.y.val() {
            if self.start.val() {
                self.filled.d.next = self.cols.q.val().get_bit(0);
            } else if self.adv.val() {
                self.c.d.next = self.cp1.q.val();
                self.cp1.d.next = self.cp1.q.val() + 1;
                self.cm1.d.next = self.c.q.val();
                self.cm2.d.next = self.cm1.q.val();
                self.filled.d.next = self.keep_fill.y.val();
                self.qvalid.d.next = !self.filled.q.val();
            } else {
                // Retreat: column c-1 holds a queen exactly when the ring does not fill it.
                self.c.d.next = self.cm1.q.val();
                self.cp1.d.next = self.c.q.val();
                self.cm1.d.next = self.cm2.q.val();
                self.cm2.d.next = self.cm2.q.val() - 1;
                self.filled.d.next = !self.qvalid.q.val();
                self.qvalid.d.next = self.pop_v.val();
            }
        }
        // A start's constants come last, outside the enable (which a start implies): a
        // synchronous reset that overrides the enable is the ECP5 flip-flop's own, so `start`
        // drives LSR directly. Under the enable, yosys gated LSR with it, a LUT after the carry
        // chains (a full-device critical path). So they are zeros where they can be (a set
        // against a flip-flop's initial 0 goes into its D logic): c-1 and c-2 of columns 0
        // and 1 are never read, as the search ends where it would retreat from them.
        if self.start.val() {
            self.c.d.next = 0.into();
            self.cp1.d.next = 1.into();
            self.cm1.d.next = 0.into();
            self.cm2.d.next = 0.into();
            self.qvalid.d.next = false;
            self.unc_v.d.next = false;
        }

        // The queen of c-1: A's row on an advance (none for a column the ring fills, where A
        // may see a row open), B's on a move, the held uncle on its step, the stack's on a
        // retreat (also the default when
        // the search ends or the unit is idle, where it does not matter; a start clears it).
        // Written from the carry outs directly, not from `adv` and `b_ok`: the choices known at
        // the start of the cycle come first, so that two levels of logic follow the chains.
        if self.start.val() | (self.go.q.val() & self.filled.q.val()) {
            self.qtop.d.next = 0.into();
        } else if self.go.q.val() & !self.arb_a.tout.val() {
            self.qtop.d.next = self.arb_a.grant.val();
        } else if self.arb_b.tout.val() {
            self.qtop.d.next = self.back_q.val();
        } else if self.qvalid.q.val() {
            // Nested, not `qvalid & !tout`: that is `keep_b`'s input, which synthesis would
            // share, and a kept wire looks early to abc9 (it built three LUTs after it).
            self.qtop.d.next = self.arb_b.grant.val();
        } else {
            self.qtop.d.next = self.back_q.val();
        }
        self.exh.d.next = !self.adv_c.val() & !self.b_ok.val() & !self.uncle_ok.val();
        if self.done_r.q.val() {
            self.run.d.next = false;
        }
        if self.start.val() {
            self.exh.d.next = false;
            self.run.d.next = true;
        }

        // `act` and `go` next, where a start sets both. After an advance the unit may advance
        // again unless c+1 is the last column; after B's move unless c is the last or the
        // search ends at column 0; after the uncle step always (c-1 is not the last); after a
        // retreat it is exhausted. A search ends (`fin`)
        // where it does not advance at column 0, or at column 1 if B finds no row.
        self.keep_go_adv.a.next = self.start.val() | (self.act.q.val() & !self.keep_last1.y.val());
        self.keep_go_move.a.next =
            self.start.val() | (self.act.q.val() & self.qvalid.q.val() & !self.at0.val() & !self.last.val());
        self.keep_act_adv.a.next = self.start.val() | self.act.q.val();
        self.keep_act_b0.a.next = self.start.val()
            | (self.act.q.val() & !(self.at0.val() | (self.at1.val() & !self.qvalid.q.val())));
        self.keep_act_b1.a.next = self.start.val() | (self.act.q.val() & !(self.at0.val() | self.at1.val()));
        if self.adv_c.val() {
            self.go.d.next = self.keep_go_adv.y.val();
            self.act.d.next = self.keep_act_adv.y.val();
        } else if self.arb_b.tout.val() {
            self.go.d.next = self.start.val() | self.uncle_ok.val();
            self.act.d.next = self.keep_act_b1.y.val();
        } else if self.qvalid.q.val() {
            self.go.d.next = self.keep_go_move.y.val();
            self.act.d.next = self.keep_act_b0.y.val();
        } else {
            self.go.d.next = self.start.val() | self.uncle_ok.val();
            self.act.d.next = self.keep_act_b0.y.val();
        }
        // A south group's high filled lines, from the diagonal beats. (Verilog selects bits
        // of names only: the shifted copy has a name.)
        self.load_hi.next = bit_cast::<32, M>(self.load_data.val()) >> 2;
        if self.shift.val() & self.grouped.val() {
            self.cols_hi.d.next = self.load_hi.val().get_bits::<2>(0);
        }
        // A south group's solution: A's row in the last line (if not filled) and the queen
        // of the line before, as they stand in the cycle that finds it. Taken every cycle,
        // straight from registers and the grant, so that no enable waits for the chains.
        if self.grouped.val() {
            self.at_prev.d.next = self.qtop.q.val();
            self.at_last.d.next = self.arb_a.grant.val();
            self.at_held.d.next = self.filled.q.val();
        }
        self.sol_prev.next = self.at_prev.q.val();
        self.sol_last.next = self.at_last.q.val();
        self.sol_held.next = self.at_held.q.val();
        self.busy.next = self.run.q.val() & !self.done_r.q.val();
        self.sol.next = self.sol_r.q.val();
        self.done.next = self.done_r.q.val();
    }
}
