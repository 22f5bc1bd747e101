//! The unit's step (see [`Unit`](super::Unit) for its state): the two carry chains'
//! questions, the decisions, and every register's next value.

use super::Unit;
use rust_hdl::prelude::*;

impl<const M: usize, const M1: usize, const D: usize> Logic for Unit<M, M1, D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, c, cp1, cm1, cm2, filled, exh, act, run, go, qtop, qvalid, bh, bd, bu, cols, unc,
            unc_v, sol_r, done_r, cols_hi, at_prev, at_last, at_held
        );

        // The ring's filled columns: loaded while idle, constant during a search.
        if self.load.cols.val() {
            self.cols.d.next = self.load.data.val();
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
            & !self.load.start.val()
            & !self.exh.q.val()
            & self.last.val()
            & (self.filled.q.val() | !self.arb_a.tout.val());
        self.keep_end0.a.next = self.act.q.val() & !self.load.start.val() & self.at0.val();
        self.keep_end1.a.next = self.act.q.val() & !self.load.start.val() & self.at1.val();
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
        self.keep_diag_bnone.a.next = self.step_bnone.val() | self.load.shift.val();
        self.keep_diag_arow.a.next = self.step_arow.val() | self.load.shift.val();
        self.keep_diag_anone.a.next = self.step_anone.val() | self.load.shift.val();
        self.keep_rows_bnone.a.next = self.step_bnone.val() | self.load.rows.val();
        self.keep_rows_arow.a.next = self.step_arow.val() | self.load.rows.val();
        self.keep_rows_anone.a.next = self.step_anone.val() | self.load.rows.val();
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
        if self.load.rows.val() {
            self.keep_bh_back.a.next = self.load.data.val();
        } else {
            self.keep_bh_back.a.next = self.bh.q.val() & !self.pop_q.val();
        }
        if self.load.shift.val() {
            // Loading: the retreat's rotation, a new bit where the wrapped one was.
            self.keep_bd_back.a.next =
                (self.bd.q.val() << 1) | bit_cast::<D, 1>(self.load.data.val().get_bit(0).into());
            self.keep_bu_back.a.next = (self.bu.q.val() >> 1)
                | (bit_cast::<D, 1>(self.load.data.val().get_bit(1).into()) << self.dtop.val());
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
        self.keep_walk_arow.a.next = self.step_arow.val() | self.load.start.val();
        self.keep_walk_anone.a.next = self.step_anone.val() | self.load.start.val();
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
            if self.load.start.val() {
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
        if self.load.start.val() {
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
        if self.load.start.val() | (self.go.q.val() & self.filled.q.val()) {
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
        if self.load.start.val() {
            self.exh.d.next = false;
            self.run.d.next = true;
        }

        // `act` and `go` next, where a start sets both. After an advance the unit may advance
        // again unless c+1 is the last column; after B's move unless c is the last or the
        // search ends at column 0; after the uncle step always (c-1 is not the last); after a
        // retreat it is exhausted. A search ends (`fin`)
        // where it does not advance at column 0, or at column 1 if B finds no row.
        self.keep_go_adv.a.next = self.load.start.val() | (self.act.q.val() & !self.keep_last1.y.val());
        self.keep_go_move.a.next = self.load.start.val()
            | (self.act.q.val() & self.qvalid.q.val() & !self.at0.val() & !self.last.val());
        self.keep_act_adv.a.next = self.load.start.val() | self.act.q.val();
        self.keep_act_b0.a.next = self.load.start.val()
            | (self.act.q.val() & !(self.at0.val() | (self.at1.val() & !self.qvalid.q.val())));
        self.keep_act_b1.a.next =
            self.load.start.val() | (self.act.q.val() & !(self.at0.val() | self.at1.val()));
        if self.adv_c.val() {
            self.go.d.next = self.keep_go_adv.y.val();
            self.act.d.next = self.keep_act_adv.y.val();
        } else if self.arb_b.tout.val() {
            self.go.d.next = self.load.start.val() | self.uncle_ok.val();
            self.act.d.next = self.keep_act_b1.y.val();
        } else if self.qvalid.q.val() {
            self.go.d.next = self.keep_go_move.y.val();
            self.act.d.next = self.keep_act_b0.y.val();
        } else {
            self.go.d.next = self.load.start.val() | self.uncle_ok.val();
            self.act.d.next = self.keep_act_b0.y.val();
        }
        // A south group's high filled lines, from the diagonal beats. (Verilog selects bits
        // of names only: the shifted copy has a name.)
        self.load_hi.next = bit_cast::<32, M>(self.load.data.val()) >> 2;
        if self.load.shift.val() & self.grouped.val() {
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
