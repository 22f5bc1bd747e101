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
use crate::solver::load_ports::LoadPorts;
use crate::solver::lutram::LutRam;
use rust_hdl::prelude::*;

/// The unit's step, cycle by cycle: the `update` of its registers and decisions.
mod step;

/// A solver unit for M positions a line (M1 = M + 1): D = 2M - 1 walks today's M lines of a
/// pre-placement, D = 2M + 1 the M + 2 lines of a south group.
#[derive(LogicBlock)]
pub struct Unit<const M: usize, const M1: usize, const D: usize> {
    pub clock: Signal<In, Clock>,
    /// The load ports and start (see [`LoadPorts`]).
    pub load: LoadPorts<M>,
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
    /// `load.data` from bit 2: the high filled-line bits of a diagonal beat.
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
            load: Default::default(),
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
