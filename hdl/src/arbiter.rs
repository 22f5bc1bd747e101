//! The token arbiter: one carry chain decides a whole column in one cycle.
//!
//! A token enters at the bottom (`tin`) or leaves the row of the queen being moved (`have`,
//! one-hot; never together with `tin`), travels up through blocked rows (`pass`) and stops at the first free one
//! (`grant`, one-hot). If it runs off the top (`tout`) the column is exhausted. This is an
//! addition: (pass | have) + have + tin, whose carry is the token; the grant is the sum bit
//! of every row that is neither blocked nor the token's source.
//!
//! The simulation model is the same for every implementation; the Verilog differs:
//! - [`ArbiterKind::Adder`]: a plain `+` that any synthesis tool maps onto its carry chain;
//! - [`ArbiterKind::Carry4`]: Xilinx CARRY4 primitives (7-series, Virtex-6) instantiated
//!   directly, for when the tool should not be trusted to find the chain;
//! - [`ArbiterKind::Prefix`]: a Kogge-Stone parallel prefix, log2(M) levels of logic, for
//!   wide boards on devices whose carry chain is slow.

use rust_hdl::prelude::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ArbiterKind {
    #[default]
    Adder,
    Carry4,
    Prefix,
}

impl ArbiterKind {
    pub fn name(self) -> &'static str {
        match self {
            ArbiterKind::Adder => "adder",
            ArbiterKind::Carry4 => "carry4",
            ArbiterKind::Prefix => "prefix",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [ArbiterKind::Adder, ArbiterKind::Carry4, ArbiterKind::Prefix]
            .into_iter()
            .find(|k| k.name() == s)
    }
}

/// M rows; `M1` = M + 1 (the sum with its carry out).
#[derive(LogicBlock)]
pub struct Arbiter<const M: usize, const M1: usize> {
    pub pass: Signal<In, Bits<M>>,
    pub have: Signal<In, Bits<M>>,
    pub tin: Signal<In, Bit>,
    pub grant: Signal<Out, Bits<M>>,
    pub tout: Signal<Out, Bit>,
    _kind: ArbiterKind,
}

impl<const M: usize, const M1: usize> Arbiter<M, M1> {
    pub fn new(kind: ArbiterKind) -> Self {
        assert_eq!(M1, M + 1);
        Self {
            pass: Default::default(),
            have: Default::default(),
            tin: Default::default(),
            grant: Default::default(),
            tout: Default::default(),
            _kind: kind,
        }
    }
}

impl<const M: usize, const M1: usize> Logic for Arbiter<M, M1> {
    fn update(&mut self) {
        let a: Bits<M1> = bit_cast::<M1, M>(self.pass.val() | self.have.val());
        let b: Bits<M1> = bit_cast::<M1, M>(self.have.val());
        let sum = a + b + bit_cast::<M1, 1>(self.tin.val().into());
        self.grant.next = sum.get_bits::<M>(0) & !(self.pass.val() | self.have.val());
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
            ArbiterKind::Prefix => prefix_verilog(M),
        })
    }
}

fn adder_verilog(m: usize) -> String {
    format!(
        "\
// token arbiter, adder form: the carry is the token
wire [{m}:0] sum = {{1'b0, pass | have}} + {{1'b0, have}} + {{{m}'d0, tin}};
(* keep *) wire [{hi}:0] g = sum[{hi}:0] & ~(pass | have);
always @(*) begin
    grant = g;
    tout = sum[{m}];
end
",
        hi = m - 1
    )
}

fn carry4_verilog(m: usize) -> String {
    let k = m.div_ceil(4);
    let w = 4 * k;
    let pad = w - m;
    let mut v = format!(
        "\
// token arbiter on Xilinx CARRY4 primitives: S propagates (blocked, not the source),
// DI generates (the source); rows above M propagate to the carry out
wire [{top}:0] p = {{{pad_ones}(pass & ~have)}};
wire [{top}:0] g = {{{pad_zeros}have}};
wire [{top}:0] o;
wire [{top}:0] co;
",
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
        "(* keep *) wire [{hi}:0] gr = o[{hi}:0] & ~(pass | have);\nalways @(*) begin\n    grant = gr;\n    tout = co[{top}];\nend\n",
        hi = m - 1,
        top = w - 1
    );
    v
}

fn prefix_verilog(m: usize) -> String {
    // Kogge-Stone: after level l, (g, p) at bit i cover bits i-2^l+1 ..= i.
    let mut v = String::from("// token arbiter, Kogge-Stone prefix of (generate, propagate)\n");
    v += &format!(
        "wire [{hi}:0] g0 = have;\nwire [{hi}:0] p0 = pass & ~have;\n",
        hi = m - 1
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
        "wire [{m}:0] c = {{g{level} | (p{level} & {{{m}{{tin}}}}), tin}};\nalways @(*) begin\n    grant = c[{hi}:0] & ~(pass | have);\n    tout = c[{m}];\nend\n",
        hi = m - 1
    );
    v
}
