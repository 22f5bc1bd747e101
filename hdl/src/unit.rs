//! The solver unit: exhaustive backtracking over the inner columns of one pre-placement,
//! one step per clock. Its cycle-by-cycle behaviour is specified (and modelled for speed) in
//! `queens_sim::model`; in short, every cycle two arbiters look at two columns:
//! A searches the active column c from its bottom row, B searches column c-1 from just above
//! its queen, and the unit advances (A found a row), moves the queen of c-1 (B found one), or
//! retreats. A row found by A in the last column is a solution.
//!
//! State, with M inner rows and D = 2M - 1 diagonals per direction:
//! - `qtop`: the queen of column c-1 (one-hot, 0 for a column the ring fills), kept out of
//!   the blocking registers so that B can move it without touching them;
//! - `bh`, `bd`, `bu`: rows and both diagonal directions of the queens left of c-1. The
//!   diagonal registers rotate by one position per column, so column c always reads bits
//!   0..M-1 and column c-1 a neighbouring slice (wiring, no multiplexer);
//! - the stack of the queens left of c-1, in a LUT-RAM indexed by column: pushed on advance,
//!   read back on retreat (a RAM instead of the reference design's two-way shift register of
//!   M x M flip-flops, which cost it about 500 LUTs per unit);
//! - the ring's open rows of every column, in a second LUT-RAM loaded before start.

use crate::arbiter::{Arbiter, ArbiterKind};
use crate::lutram::LutRam;
use rust_hdl::prelude::*;

/// A solver unit for inner width M (M1 = M + 1, D = 2M - 1).
#[derive(LogicBlock)]
pub struct Unit<const M: usize, const M1: usize, const D: usize> {
    pub clock: Signal<In, Clock>,
    /// Begin a search (the ring RAM must hold the subproblem's columns).
    pub start: Signal<In, Bit>,
    /// Ring load port: column `ring_addr` leaves rows `ring_open` open, or is `ring_filled`.
    pub ring_we: Signal<In, Bit>,
    pub ring_addr: Signal<In, Bits<5>>,
    pub ring_open: Signal<In, Bits<M>>,
    pub ring_filled: Signal<In, Bit>,
    /// Searching (one cycle per step while high).
    pub busy: Signal<Out, Bit>,
    /// Registered strobe: the previous step found a solution.
    pub sol: Signal<Out, Bit>,
    /// Registered strobe: the previous step ended the search.
    pub done: Signal<Out, Bit>,

    c: DFF<Bits<5>>,
    cm1: DFF<Bits<5>>,
    exh: DFF<Bit>,
    run: DFF<Bit>,
    qtop: DFF<Bits<M>>,
    qvalid: DFF<Bit>,
    bh: DFF<Bits<M>>,
    bd: DFF<Bits<D>>,
    bu: DFF<Bits<D>>,
    sol_r: DFF<Bit>,
    done_r: DFF<Bit>,
    ring: LutRam<M1>,
    stack: LutRam<M1>,
    arb_a: Arbiter<M, M1>,
    arb_b: Arbiter<M, M1>,

    open_a: Signal<Local, Bits<M>>,
    filled_a: Signal<Local, Bit>,
    open_b: Signal<Local, Bits<M>>,
    pop_q: Signal<Local, Bits<M>>,
    pop_v: Signal<Local, Bit>,
    last: Signal<Local, Bit>,
    at0: Signal<Local, Bit>,
    at1: Signal<Local, Bit>,
    a_ok: Signal<Local, Bit>,
    b_ok: Signal<Local, Bit>,
    adv: Signal<Local, Bit>,
    stay: Signal<Local, Bit>,
    bd_adv: Signal<Local, Bits<D>>,
    bu_adv: Signal<Local, Bits<D>>,
    bd_ret: Signal<Local, Bits<D>>,
    bu_ret: Signal<Local, Bits<D>>,

    last_col: Constant<Bits<5>>,
    /// D - 1 and D - 2: where rotation wraps.
    dtop: Constant<Bits<8>>,
    dtop2: Constant<Bits<8>>,
}

impl<const M: usize, const M1: usize, const D: usize> Unit<M, M1, D> {
    pub fn new(kind: ArbiterKind) -> Self {
        assert!((2..=28).contains(&M) && M1 == M + 1 && D == 2 * M - 1);
        Self {
            clock: Default::default(),
            start: Default::default(),
            ring_we: Default::default(),
            ring_addr: Default::default(),
            ring_open: Default::default(),
            ring_filled: Default::default(),
            busy: Default::default(),
            sol: Default::default(),
            done: Default::default(),
            c: Default::default(),
            cm1: Default::default(),
            exh: Default::default(),
            run: Default::default(),
            qtop: Default::default(),
            qvalid: Default::default(),
            bh: Default::default(),
            bd: Default::default(),
            bu: Default::default(),
            sol_r: Default::default(),
            done_r: Default::default(),
            ring: Default::default(),
            stack: Default::default(),
            arb_a: Arbiter::new(kind),
            arb_b: Arbiter::new(kind),
            open_a: Default::default(),
            filled_a: Default::default(),
            open_b: Default::default(),
            pop_q: Default::default(),
            pop_v: Default::default(),
            last: Default::default(),
            at0: Default::default(),
            at1: Default::default(),
            a_ok: Default::default(),
            b_ok: Default::default(),
            adv: Default::default(),
            stay: Default::default(),
            bd_adv: Default::default(),
            bu_adv: Default::default(),
            bd_ret: Default::default(),
            bu_ret: Default::default(),
            last_col: Constant::new(((M - 1) as u64).to_bits()),
            dtop: Constant::new(((D - 1) as u64).to_bits()),
            dtop2: Constant::new(((D - 2) as u64).to_bits()),
        }
    }
}

impl<const M: usize, const M1: usize, const D: usize> Logic for Unit<M, M1, D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, c, cm1, exh, run, qtop, qvalid, bh, bd, bu, sol_r, done_r);
        self.sol_r.d.next = false;
        self.done_r.d.next = false;

        // Ring columns: bit 0 = filled by the ring, bits 1..=M = open rows.
        self.ring.clock.next = self.clock.val();
        self.ring.we.next = self.ring_we.val();
        self.ring.waddr.next = self.ring_addr.val();
        self.ring.wdata.next =
            (bit_cast::<M1, M>(self.ring_open.val()) << 1) | bit_cast::<M1, 1>(self.ring_filled.val().into());
        self.ring.raddr0.next = self.c.q.val();
        self.ring.raddr1.next = self.cm1.q.val();
        self.open_a.next = self.ring.rdata0.val().get_bits::<M>(1);
        self.filled_a.next = self.ring.rdata0.val().get_bit(0);
        self.open_b.next = self.ring.rdata1.val().get_bits::<M>(1);

        // Stack: the queen of column x (bit 0 = has one) at address x + 1.
        self.stack.clock.next = self.clock.val();
        self.stack.we.next = false;
        self.stack.waddr.next = self.c.q.val();
        self.stack.wdata.next =
            (bit_cast::<M1, M>(self.qtop.q.val()) << 1) | bit_cast::<M1, 1>(self.qvalid.q.val().into());
        self.stack.raddr0.next = self.cm1.q.val();
        self.stack.raddr1.next = self.cm1.q.val();
        self.pop_q.next = self.stack.rdata0.val().get_bits::<M>(1);
        self.pop_v.next = self.stack.rdata0.val().get_bit(0);

        // A: column c from the bottom; the queen of c-1 blocks its row and both neighbours.
        self.arb_a.pass.next = !self.open_a.val()
            | self.bh.q.val()
            | self.qtop.q.val()
            | (self.qtop.q.val() >> 1)
            | (self.qtop.q.val() << 1)
            | self.bd.q.val().get_bits::<M>(0)
            | self.bu.q.val().get_bits::<M>(0);
        self.arb_a.have.next = 0.into();
        self.arb_a.tin.next = true;

        // B: column c-1 from just above its queen; the diagonals are the neighbouring slices.
        self.arb_b.pass.next = !self.open_b.val()
            | self.bh.q.val()
            | (self.bd.q.val().get_bits::<M>(0) << 1)
            | bit_cast::<M, 1>(self.bd.q.val().get_bit(self.dtop.val().index()).into())
            | self.bu.q.val().get_bits::<M>(1);
        self.arb_b.have.next = self.qtop.q.val();
        self.arb_b.tin.next = false;

        self.last.next = self.c.q.val() == self.last_col.val();
        self.at0.next = self.c.q.val() == 0;
        self.at1.next = self.c.q.val() == 1;
        self.a_ok.next = !self.exh.q.val() & (self.filled_a.val() | !self.arb_a.tout.val());
        self.b_ok.next = self.qvalid.q.val() & !self.arb_b.tout.val();
        self.adv.next = self.a_ok.val() & !self.last.val();
        // Neither advancing nor finished: B decides between sibling and retreat.
        self.stay.next = !self.adv.val() & !self.at0.val();

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

        if self.start.val() {
            self.c.d.next = 0.into();
            self.cm1.d.next = 31.into();
            self.exh.d.next = false;
            self.run.d.next = true;
            self.qtop.d.next = 0.into();
            self.qvalid.d.next = false;
            self.bh.d.next = 0.into();
            self.bd.d.next = 0.into();
            self.bu.d.next = 0.into();
        } else if self.run.q.val() {
            self.sol_r.d.next = self.a_ok.val() & self.last.val();
            if self.adv.val() {
                self.stack.we.next = true;
                self.c.d.next = self.c.q.val() + 1;
                self.cm1.d.next = self.cm1.q.val() + 1;
                self.exh.d.next = false;
                self.qvalid.d.next = !self.filled_a.val();
                if self.filled_a.val() {
                    self.qtop.d.next = 0.into();
                } else {
                    self.qtop.d.next = self.arb_a.grant.val();
                }
                self.bh.d.next = self.bh.q.val() | self.qtop.q.val();
                self.bd.d.next = (self.bd_adv.val() >> 1)
                    | (bit_cast::<D, 1>(self.bd_adv.val().get_bit(0).into()) << self.dtop.val());
                self.bu.d.next = (self.bu_adv.val() << 1)
                    | bit_cast::<D, 1>(self.bu_adv.val().get_bit(self.dtop.val().index()).into());
            }
            if self.stay.val() & self.b_ok.val() {
                self.qtop.d.next = self.arb_b.grant.val();
                self.exh.d.next = false;
            }
            if self.stay.val() & !self.b_ok.val() & !self.at1.val() {
                self.c.d.next = self.c.q.val() - 1;
                self.cm1.d.next = self.cm1.q.val() - 1;
                self.exh.d.next = true;
                self.qtop.d.next = self.pop_q.val();
                self.qvalid.d.next = self.pop_v.val();
                self.bh.d.next = self.bh.q.val() & !self.pop_q.val();
                self.bd.d.next = (self.bd_ret.val() << 1)
                    | bit_cast::<D, 1>(self.bd_ret.val().get_bit(self.dtop.val().index()).into());
                self.bu.d.next = (self.bu_ret.val() >> 1)
                    | (bit_cast::<D, 1>(self.bu_ret.val().get_bit(0).into()) << self.dtop.val());
            }
            if !self.adv.val() & (self.at0.val() | (!self.b_ok.val() & self.at1.val())) {
                self.run.d.next = false;
                self.done_r.d.next = true;
            }
        }
        self.busy.next = self.run.q.val();
        self.sol.next = self.sol_r.q.val();
        self.done.next = self.done_r.q.val();
    }
}
