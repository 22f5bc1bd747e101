//! The token arbiter: one carry chain decides a whole column in one cycle.
//!
//! A token enters at the bottom (`tin`) or leaves the row of the queen being moved (`have`,
//! one-hot; never together with `tin`), travels up through blocked rows and stops at the
//! first free one (`grant`, one-hot). If it runs off the top (`tout`) the column is exhausted.
//! A row is blocked by `pass`, or by the queen `near` (one-hot) of the column beside, which
//! blocks its own row and both neighbours. This is an addition: (blocked | have) + have +
//! tin, whose carry is the token; the grant is the sum bit of every row that is neither
//! blocked nor the token's source.
//!
//! The token is kept where it leaves the chain (a sum output, `(* keep *)`), so that the
//! grant is taken from it: on a free row the carry between two cells has the same value,
//! and abc9 once took a grant from there. nextpnr-ecp5 brings such a carry out to the fabric
//! only by breaking the chain in two (a feed-out and a feed-in cell), which put a hop on
//! every path through it: that stage routed at 110 MHz instead of 134.
//!
//! `near` comes apart from `pass` so that a chain cell with a LUT of its own in front of the
//! carry (ECP5's CCU2C) ORs the queen's three rows there: a register's bits straight into the
//! chain, no LUT level and no routing hop of ours in between. An arbiter's [`Entry`] says
//! which of `have` and `near` it uses; such a cell's LUT has room for one of them.
//!
//! The simulation model is the same for every implementation; the Verilog differs:
//! - [`ArbiterKind::Adder`]: a plain `+` that any synthesis tool maps onto its carry chain;
//! - [`ArbiterKind::Carry4`]: Xilinx CARRY4 primitives (7-series, Virtex-6) instantiated
//!   directly, for when the tool should not be trusted to find the chain;
//! - [`ArbiterKind::Ccu2c`]: Lattice ECP5 CCU2C cells instantiated directly, each row's
//!   half taking `pass` and `near`'s three rows, or `pass` and `have`, into its own LUT4;
//! - [`ArbiterKind::Prefix`]: a Kogge-Stone parallel prefix, log2(M) levels of logic, for
//!   wide boards on devices whose carry chain is slow.

use rust_hdl::prelude::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ArbiterKind {
    #[default]
    Adder,
    Carry4,
    Ccu2c,
    Prefix,
}

impl ArbiterKind {
    pub fn name(self) -> &'static str {
        match self {
            ArbiterKind::Adder => "adder",
            ArbiterKind::Carry4 => "carry4",
            ArbiterKind::Ccu2c => "ccu2c",
            ArbiterKind::Prefix => "prefix",
        }
    }

    pub const ALL: [ArbiterKind; 4] = [
        ArbiterKind::Adder,
        ArbiterKind::Carry4,
        ArbiterKind::Ccu2c,
        ArbiterKind::Prefix,
    ];

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s)
    }

    /// The vendor primitive this form instantiates, if any (it builds only on that vendor's
    /// parts): the cell's name.
    pub fn primitive(self) -> Option<&'static str> {
        match self {
            ArbiterKind::Carry4 => Some("CARRY4"),
            ArbiterKind::Ccu2c => Some("CCU2C"),
            ArbiterKind::Adder | ArbiterKind::Prefix => None,
        }
    }
}

/// Where an arbiter's token comes from, and so which input it leaves unused (held at 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// From below the bottom row (`tin`), past a queen's neighbourhood (`near`): `have` is 0.
    Bottom,
    /// From the row of the queen being moved (`have`): `near` is 0.
    Queen,
}

/// M rows; `M1` = M + 1 (the sum with its carry out).
#[derive(LogicBlock)]
pub struct Arbiter<const M: usize, const M1: usize> {
    /// Blocked rows.
    pub pass: Signal<In, Bits<M>>,
    /// A queen (one-hot) that blocks its row and both neighbours; 0 for [`Entry::Queen`].
    pub near: Signal<In, Bits<M>>,
    /// The token's source row (one-hot); 0 for [`Entry::Bottom`].
    pub have: Signal<In, Bits<M>>,
    pub tin: Signal<In, Bit>,
    pub grant: Signal<Out, Bits<M>>,
    pub tout: Signal<Out, Bit>,
    _kind: ArbiterKind,
    _entry: Entry,
}

impl<const M: usize, const M1: usize> Arbiter<M, M1> {
    pub fn new(kind: ArbiterKind, entry: Entry) -> Self {
        assert_eq!(M1, M + 1);
        Self {
            pass: Default::default(),
            near: Default::default(),
            have: Default::default(),
            tin: Default::default(),
            grant: Default::default(),
            tout: Default::default(),
            _kind: kind,
            _entry: entry,
        }
    }
}

impl<const M: usize, const M1: usize> Logic for Arbiter<M, M1> {
    fn update(&mut self) {
        let near = self.near.val();
        let blocked = self.pass.val() | near | (near >> 1) | (near << 1);
        let a: Bits<M1> = bit_cast::<M1, M>(blocked | self.have.val());
        let b: Bits<M1> = bit_cast::<M1, M>(self.have.val());
        let sum = a + b + bit_cast::<M1, 1>(self.tin.val().into());
        self.grant.next = sum.get_bits::<M>(0) & !(blocked | self.have.val());
        self.tout.next = sum.get_bit(M);
    }

    fn connect(&mut self) {
        self.grant.connect();
        self.tout.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(match self._kind {
            ArbiterKind::Adder => adder_verilog(M),
            ArbiterKind::Carry4 => carry4_verilog(M),
            ArbiterKind::Ccu2c => ccu2c_verilog(M, self._entry),
            ArbiterKind::Prefix => prefix_verilog(M),
        })
    }
}

fn adder_verilog(m: usize) -> String {
    format!(
        "\
// token arbiter, adder form: the carry is the token
{BLOCKED}wire [{m}:0] sum = {{1'b0, blocked | have}} + {{1'b0, have}} + {{{m}'d0, tin}};
(* keep *) wire [{hi}:0] token = sum[{hi}:0];
(* keep *) wire [{hi}:0] g = token & ~(blocked | have);
always @(*) begin
    grant = g;
    tout = sum[{m}];
end
",
        hi = m - 1,
        BLOCKED = blocked_verilog(m)
    )
}

/// The rows blocked, for the forms whose chain takes one propagate per row from the fabric.
fn blocked_verilog(m: usize) -> String {
    format!(
        "wire [{hi}:0] blocked = pass | near | (near >> 1) | (near << 1);\n",
        hi = m - 1
    )
}

fn carry4_verilog(m: usize) -> String {
    let k = m.div_ceil(4);
    let w = 4 * k;
    let pad = w - m;
    let mut v = format!(
        "{BLOCKED}\
// token arbiter on Xilinx CARRY4 primitives: S propagates (blocked, not the source),
// DI generates (the source); rows above M propagate to the carry out
wire [{top}:0] p = {{{pad_ones}(blocked & ~have)}};
wire [{top}:0] g = {{{pad_zeros}have}};
wire [{top}:0] o;
wire [{top}:0] co;
",
        BLOCKED = blocked_verilog(m),
        top = w - 1,
        pad_ones = if pad > 0 {
            format!("{pad}'b{}, ", "1".repeat(pad))
        } else {
            String::new()
        },
        pad_zeros = if pad > 0 {
            format!("{pad}'b0, ")
        } else {
            String::new()
        },
    );
    for i in 0..k {
        let (ci, cyinit) = if i == 0 {
            ("1'b0".to_string(), "tin".to_string())
        } else {
            (format!("co[{}]", 4 * i - 1), "1'b0".to_string())
        };
        v += &format!(
            "CARRY4 chain{i} (.CO(co[{hi}:{lo}]), .O(o[{hi}:{lo}]), .CI({ci}), .CYINIT({cyinit}), .DI(g[{hi}:{lo}]), .S(p[{hi}:{lo}]));\n",
            hi = 4 * i + 3,
            lo = 4 * i
        );
    }
    v += &format!(
        "(* keep *) wire [{hi}:0] token = o[{hi}:0];\n(* keep *) wire [{hi}:0] gr = token & ~(blocked | have);\nalways @(*) begin\n    grant = gr;\n    tout = co[{top}];\nend\n",
        hi = m - 1,
        top = w - 1
    );
    v
}

/// The chain in halves of CCU2C cells, bottom up: one that feeds `tin` in as a carry, one per
/// row, one that brings the carry out to the fabric (a carry leaves the chain only through a
/// sum output), and a spare when that makes the count odd. A half's LUT4 is the propagate,
/// its LUT2 (INIT[3:0], inputs A and B) the generate.
/// - [`Entry::Bottom`]: a row's LUT4 is the OR of `near`'s three rows (A, B, C) and `pass`
///   (D, the LUT4's fastest input, for the later signal). The generate bits, shared with the
///   LUT4's, matter only where all four inputs are 0, and are 0 there.
/// - [`Entry::Queen`]: A = `have`, D = `pass`, C tied high so that the LUT4 reads INIT[15:4]
///   only, apart from the generate's bits; propagate `!have & pass`, generate `have`.
fn ccu2c_verilog(m: usize, entry: Entry) -> String {
    let (row, a, b, c): (&str, String, String, String) = match entry {
        // OR of A, B, C, D: every INIT bit but the first.
        Entry::Bottom => ("16'hFFFE", "near << 1".into(), "near".into(), "near >> 1".into()),
        // !A & D: INIT[15:12] = 5, INIT[11:4] = 0; generate A: INIT[3:0] = 0xA.
        Entry::Queen => (
            "16'h500A",
            "have".into(),
            format!("{m}'d0"),
            format!("{{{m}{{1'b1}}}}"),
        ),
    };
    // Feed half: A = tin, C = 1 (as every half's): no propagate, generate A.
    const FEED: &str = "16'h000A";
    // Carry-out half and spare: no propagate, no generate; the out half's sum is its carry in.
    const NONE: &str = "16'h0000";
    let halves = m + 2;
    let cells = halves.div_ceil(2);
    let spare = if 2 * cells > halves { "1'b0, " } else { "" };
    let mut v = format!(
        "\
// token arbiter on Lattice ECP5 CCU2C cells: half 0 feeds tin in, half i + 1 is row i,
// half {out} brings the carry out; each row's LUT4 is its propagate
wire [{top}:0] ha = {{{spare}1'b0, {a}, tin}};
wire [{top}:0] hb = {{{spare}1'b0, {b}, 1'b0}};
wire [{top}:0] hc = {{{spare}1'b1, {c}, 1'b1}};
wire [{top}:0] hd = {{{spare}1'b0, pass, 1'b0}};
wire [{top}:0] s;
wire [{cells}:0] cy;
assign cy[0] = 1'b0;
",
        out = m + 1,
        top = 2 * cells - 1,
    );
    let init = |h: usize| match h {
        0 => FEED,
        h if h <= m => row,
        _ => NONE,
    };
    for i in 0..cells {
        let (h0, h1) = (2 * i, 2 * i + 1);
        v += &format!(
            "CCU2C #(.INIT0({}), .INIT1({}), .INJECT1_0(\"NO\"), .INJECT1_1(\"NO\")) chain{i} (.CIN(cy[{i}]), .COUT(cy[{n}]), \
.A0(ha[{h0}]), .B0(hb[{h0}]), .C0(hc[{h0}]), .D0(hd[{h0}]), .S0(s[{h0}]), \
.A1(ha[{h1}]), .B1(hb[{h1}]), .C1(hc[{h1}]), .D1(hd[{h1}]), .S1(s[{h1}]));\n",
            init(h0),
            init(h1),
            n = i + 1
        );
    }
    // From the bottom, a row's blocking is five inputs (`pass`, `near`'s three rows): with
    // the sum bit that is two LUT4 levels after the chain. They are known at the start of the
    // cycle, so they are kept whole and the grant is one LUT after the chain.
    let keep_free = if entry == Entry::Bottom { "(* keep *) " } else { "" };
    v += &format!(
        "{BLOCKED}{keep_free}wire [{hi}:0] free = ~(blocked | have);\n(* keep *) wire [{hi}:0] token = s[{m}:1];\n(* keep *) wire [{hi}:0] gr = token & free;\nalways @(*) begin\n    grant = gr;\n    tout = s[{out}];\nend\n",
        hi = m - 1,
        out = m + 1,
        BLOCKED = blocked_verilog(m)
    );
    v
}

fn prefix_verilog(m: usize) -> String {
    // Kogge-Stone: after level l, (g, p) at bit i cover bits i-2^l+1 ..= i.
    let mut v = String::from("// token arbiter, Kogge-Stone prefix of (generate, propagate)\n");
    v += &format!(
        "{BLOCKED}wire [{hi}:0] g0 = have;\nwire [{hi}:0] p0 = blocked & ~have;\n",
        hi = m - 1,
        BLOCKED = blocked_verilog(m)
    );
    let mut level = 0;
    let mut d = 1;
    while d < m {
        let n = level + 1;
        v += &format!("wire [{hi}:0] g{n}, p{n};\n", hi = m - 1);
        for i in 0..m {
            if i >= d {
                v += &format!(
                    "assign g{n}[{i}] = g{level}[{i}] | (p{level}[{i}] & g{level}[{j}]); assign p{n}[{i}] = p{level}[{i}] & p{level}[{j}];\n",
                    j = i - d
                );
            } else {
                v += &format!("assign g{n}[{i}] = g{level}[{i}]; assign p{n}[{i}] = p{level}[{i}];\n");
            }
        }
        level = n;
        d *= 2;
    }
    // carry into bit i: the prefix of bits below it, with tin entering at the bottom.
    v += &format!(
        "wire [{m}:0] c = {{g{level} | (p{level} & {{{m}{{tin}}}}), tin}};\nalways @(*) begin\n    grant = c[{hi}:0] & ~(blocked | have);\n    tout = c[{m}];\nend\n",
        hi = m - 1
    );
    v
}
