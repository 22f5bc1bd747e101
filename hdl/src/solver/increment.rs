//! The tally's increment: a word one more, taken from the RAM or forwarded from the last
//! write, or zero where the word is being cleared. The choice and the clear sit in front of
//! the carry chain, so that on the ECP5 each bit is one CCU2C half: its LUT4 picks the bit
//! and clears it, its carry adds the one. As a generic `+` they are a LUT per bit more.
//!
//! - [`ArbiterKind::Ccu2c`]: CCU2C cells instantiated directly (half 0 generates the one,
//!   unless clearing; half i + 1 is bit i, propagate D & (C ? B : A) with A the RAM's bit,
//!   B the forwarded one, C `fwd`, D not `clr`; no generate);
//! - any other form: `clr ? 0 : (fwd ? fwd_word : word) + 1`, for the tool's own chain.
//!
//! `carry` is the carry out of the top bit (the word was all ones): a half more at the chain's
//! end, which the W = 36 tally has spare in its last cell.

use crate::solver::arbiter::ArbiterKind;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Increment<const W: usize> {
    pub word: Signal<In, Bits<W>>,
    pub fwd_word: Signal<In, Bits<W>>,
    pub fwd: Signal<In, Bit>,
    pub clr: Signal<In, Bit>,
    pub sum: Signal<Out, Bits<W>>,
    pub carry: Signal<Out, Bit>,
    _kind: ArbiterKind,
}

impl<const W: usize> Increment<W> {
    pub fn new(kind: ArbiterKind) -> Self {
        Self {
            word: Default::default(),
            fwd_word: Default::default(),
            fwd: Default::default(),
            clr: Default::default(),
            sum: Default::default(),
            carry: Default::default(),
            _kind: kind,
        }
    }
}

impl<const W: usize> Logic for Increment<W> {
    fn update(&mut self) {
        let w = if self.fwd.val() {
            self.fwd_word.val()
        } else {
            self.word.val()
        };
        self.sum.next = if self.clr.val() {
            Bits::<W>::default()
        } else {
            w + 1
        };
        self.carry.next = !self.clr.val() && w.all();
    }

    fn connect(&mut self) {
        self.sum.connect();
        self.carry.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(match self._kind {
            ArbiterKind::Ccu2c => ccu2c_verilog(W),
            _ => format!(
                "\
// the tally's increment, generic form
always @(*) begin
    if (clr) {{carry, sum}} = {W1}'d0;
    else if (fwd) {{carry, sum}} = {{1'b0, fwd_word}} + {W1}'d1;
    else {{carry, sum}} = {{1'b0, word}} + {W1}'d1;
end
",
                W1 = W + 1
            ),
        })
    }
}

fn ccu2c_verilog(w: usize) -> String {
    // Half 0: generate A = !clr (INIT[3:0] = A), no propagate (C = 1: the LUT4 reads
    // INIT[7:4], zeros; with C = 0 it would read INIT[3:0] and propagate). Bit halves: propagate
    // D & (C ? B : A) = 0xCA00 (C selects B over A under D), no generate. Half w + 1: nothing,
    // so its sum is the carry in (the carry out of the top bit). Spare: nothing.
    let halves = w + 2;
    let cells = halves.div_ceil(2);
    let spare = if 2 * cells > halves { "1'b0, " } else { "" };
    let mut v = format!(
        "\
// the tally's increment on Lattice ECP5 CCU2C cells: half 0 feeds the one in (not when
// clearing), half i + 1 is bit i, its LUT4 the forwarding choice and the clear
wire [{top}:0] ha = {{{spare}word, ~clr}};
wire [{top}:0] hb = {{{spare}fwd_word, 1'b0}};
wire [{top}:0] hc = {{{spare}{{{w}{{fwd}}}}, 1'b1}};
wire [{top}:0] hd = {{{spare}{{{w}{{~clr}}}}, 1'b0}};
wire [{top}:0] s;
wire [{cells}:0] cy;
assign cy[0] = 1'b0;
",
        top = 2 * cells - 1,
    );
    let init = |h: usize| match h {
        0 => "16'h000A",
        h if h <= w => "16'hCA00",
        _ => "16'h0000",
    };
    for i in 0..cells {
        let (h0, h1) = (2 * i, 2 * i + 1);
        v += &format!(
            "CCU2C #(.INIT0({}), .INIT1({}), .INJECT1_0(\"NO\"), .INJECT1_1(\"NO\")) inc{i} (.CIN(cy[{i}]), .COUT(cy[{n}]), \
.A0(ha[{h0}]), .B0(hb[{h0}]), .C0(hc[{h0}]), .D0(hd[{h0}]), .S0(s[{h0}]), \
.A1(ha[{h1}]), .B1(hb[{h1}]), .C1(hc[{h1}]), .D1(hd[{h1}]), .S1(s[{h1}]));\n",
            init(h0),
            init(h1),
            n = i + 1
        );
    }
    v += &format!("always @(*) sum = s[{w}:1];\nalways @(*) carry = s[{}];\n", w + 1);
    v
}
