//! The walk's orientation: which lines of the inner board a unit walks as its columns, and
//! from which end (`queens_core::Blocking::oriented`, the definition this matches bit for bit).
//! The count does not depend on it; a unit's cycles do, by about half. One per array, between
//! the decoder and the beats that load a unit, so the units do not change.
//!
//! Pipelined in [`LATENCY`] register stages: each orientation's first lines and the rows they
//! leave open counted in groups of `GROUP` rows (wiring and small population counts), each
//! line's score, each half of the four scores, the four scores, the choice. The vectors held at the input for `LATENCY`
//! cycles come out turned.

use queens_core::blocking::{filled_line_score, scored_lines, SCORED_LINES};
use queens_core::{Blocking, Orientation};
use rust_hdl::prelude::*;

/// Clock cycles from the blocking vectors to the turned ones.
pub const LATENCY: usize = 5;

/// Bits of one line's score term (up to 28 open rows).
const TERM: usize = 5;
/// Bits of a walk score: [`SCORED_LINES`] terms of up to 28.
const SCORE: usize = 8;
/// Bits of half a walk score: half its terms. Eight terms added in one stage were the routed
/// array's longest path (114 MHz at eight ULX3S units); halves, then their sum, are not.
const HALF: usize = 7;
/// Terms in each half of a walk score.
const HALF_TERMS: usize = SCORED_LINES as usize / 2;
/// The score terms of the four orientations, [`SCORED_LINES`] each.
const TERMS: usize = 4 * SCORED_LINES as usize * TERM;
/// Rows counted together in the first stage (a count of up to 6 in 3 bits: two LUT levels).
const GROUP: usize = 6;
/// Groups per line (up to 28 rows).
const GROUPS: usize = 5;
/// A line in the first stage: its groups' counts, 3 bits each, and whether the ring fills it.
const LINE: usize = 3 * GROUPS + 1;
/// The first stage: every scored line of the four orientations.
const PARTS: usize = 4 * SCORED_LINES as usize * LINE;

/// Inner width M, diagonal width D = 2M - 1.
#[derive(LogicBlock)]
pub struct Orient<const M: usize, const D: usize> {
    pub clock: Signal<In, Clock>,
    pub rows: Signal<In, Bits<M>>,
    pub cols: Signal<In, Bits<M>>,
    pub down: Signal<In, Bits<D>>,
    pub up: Signal<In, Bits<D>>,
    pub rows_o: Signal<Out, Bits<M>>,
    pub cols_o: Signal<Out, Bits<M>>,
    pub down_o: Signal<Out, Bits<D>>,
    pub up_o: Signal<Out, Bits<D>>,
    turn: Turn<M, D>,
    /// Stage 1: every orientation's lines, counted in groups.
    parts: DFF<Bits<PARTS>>,
    sum: Terms<M>,
    /// Stage 2: every orientation's line scores.
    terms: DFF<Bits<TERMS>>,
    scores: Scores,
    /// Stage 3: both halves of every orientation's walk score, orientation o's at HALF 2o.
    halves: DFF<Bits<{ 8 * HALF }>>,
    /// Stage 4: the four walk scores.
    score: [DFF<Bits<SCORE>>; 4],
    /// Stage 5: the orientation (0..=3 as in `Orientation::ALL`).
    choice: DFF<Bits<2>>,
    /// `lt_ij`: score j is below score i. All six side by side, so that one comparison
    /// (one carry chain) and a little logic lie between the scores and the choice.
    lt_01: Signal<Local, Bit>,
    lt_23: Signal<Local, Bit>,
    lt_02: Signal<Local, Bit>,
    lt_03: Signal<Local, Bit>,
    lt_12: Signal<Local, Bit>,
    lt_13: Signal<Local, Bit>,
    /// The lower score of 2 and 3 is below the lower of 0 and 1.
    right: Signal<Local, Bit>,
}

impl<const M: usize, const D: usize> Default for Orient<M, D> {
    fn default() -> Self {
        assert_eq!(D, 2 * M - 1);
        Self {
            clock: Default::default(),
            rows: Default::default(),
            cols: Default::default(),
            down: Default::default(),
            up: Default::default(),
            rows_o: Default::default(),
            cols_o: Default::default(),
            down_o: Default::default(),
            up_o: Default::default(),
            turn: Default::default(),
            parts: Default::default(),
            sum: Default::default(),
            terms: Default::default(),
            scores: Default::default(),
            halves: Default::default(),
            score: Default::default(),
            choice: Default::default(),
            lt_01: Default::default(),
            lt_23: Default::default(),
            lt_02: Default::default(),
            lt_03: Default::default(),
            lt_12: Default::default(),
            lt_13: Default::default(),
            right: Default::default(),
        }
    }
}

impl<const M: usize, const D: usize> Logic for Orient<M, D> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, parts, terms, halves, choice);
        for o in 0..4 {
            self.score[o].clock.next = self.clock.val();
        }
        self.turn.rows.next = self.rows.val();
        self.turn.cols.next = self.cols.val();
        self.turn.down.next = self.down.val();
        self.turn.up.next = self.up.val();
        self.turn.choice.next = self.choice.q.val();
        self.parts.d.next = self.turn.parts.val();
        self.sum.parts.next = self.parts.q.val();
        self.terms.d.next = self.sum.terms.val();
        self.scores.terms.next = self.terms.q.val();
        self.halves.d.next = self.scores.halves.val();
        // Eight bits per orientation's score: its two halves of seven added.
        self.score[0].d.next = bit_cast::<8, 7>(self.halves.q.val().get_bits::<7>(0))
            + bit_cast::<8, 7>(self.halves.q.val().get_bits::<7>(7));
        self.score[1].d.next = bit_cast::<8, 7>(self.halves.q.val().get_bits::<7>(14))
            + bit_cast::<8, 7>(self.halves.q.val().get_bits::<7>(21));
        self.score[2].d.next = bit_cast::<8, 7>(self.halves.q.val().get_bits::<7>(28))
            + bit_cast::<8, 7>(self.halves.q.val().get_bits::<7>(35));
        self.score[3].d.next = bit_cast::<8, 7>(self.halves.q.val().get_bits::<7>(42))
            + bit_cast::<8, 7>(self.halves.q.val().get_bits::<7>(49));
        // The first lowest score: a later orientation wins only when strictly lower.
        self.lt_01.next = self.score[1].q.val() < self.score[0].q.val();
        self.lt_23.next = self.score[3].q.val() < self.score[2].q.val();
        self.lt_02.next = self.score[2].q.val() < self.score[0].q.val();
        self.lt_03.next = self.score[3].q.val() < self.score[0].q.val();
        self.lt_12.next = self.score[2].q.val() < self.score[1].q.val();
        self.lt_13.next = self.score[3].q.val() < self.score[1].q.val();
        if self.lt_01.val() {
            if self.lt_23.val() {
                self.right.next = self.lt_13.val();
            } else {
                self.right.next = self.lt_12.val();
            }
        } else if self.lt_23.val() {
            self.right.next = self.lt_03.val();
        } else {
            self.right.next = self.lt_02.val();
        }
        if self.right.val() {
            if self.lt_23.val() {
                self.choice.d.next = 3.into();
            } else {
                self.choice.d.next = 2.into();
            }
        } else if self.lt_01.val() {
            self.choice.d.next = 1.into();
        } else {
            self.choice.d.next = 0.into();
        }
        self.rows_o.next = self.turn.rows_o.val();
        self.cols_o.next = self.turn.cols_o.val();
        self.down_o.next = self.turn.down_o.val();
        self.up_o.next = self.turn.up_o.val();
    }
}

/// The four orientations as wiring: each one's line scores, and the one `choice` names.
#[derive(LogicBlock, Default)]
struct Turn<const M: usize, const D: usize> {
    rows: Signal<In, Bits<M>>,
    cols: Signal<In, Bits<M>>,
    down: Signal<In, Bits<D>>,
    up: Signal<In, Bits<D>>,
    choice: Signal<In, Bits<2>>,
    /// Line j of orientation o at bits LINE (4o + j): its group counts, then its filled bit.
    parts: Signal<Out, Bits<PARTS>>,
    rows_o: Signal<Out, Bits<M>>,
    cols_o: Signal<Out, Bits<M>>,
    down_o: Signal<Out, Bits<D>>,
    up_o: Signal<Out, Bits<D>>,
}

impl<const M: usize, const D: usize> Logic for Turn<M, D> {
    fn update(&mut self) {
        let b = Blocking {
            m: M as u32,
            rows: self.rows.val().to_u64() as u32,
            cols: self.cols.val().to_u64() as u32,
            down: self.down.val().to_u64(),
            up: self.up.val().to_u64(),
        };
        let mut parts = Bits::<PARTS>::default();
        for (o, &orientation) in Orientation::ALL.iter().enumerate() {
            let t = b.turned(orientation);
            for j in 0..scored_lines(b.m) {
                let mut line = ((t.cols >> j & 1) as u64) << (3 * GROUPS);
                for g in 0..GROUPS {
                    let count = (t.open_rows(j) >> (GROUP * g) & ((1 << GROUP) - 1)).count_ones() as u64;
                    line |= count << (3 * g);
                }
                let at = LINE * (o * SCORED_LINES as usize + j as usize);
                let at: Bits<10> = (at as u64).to_bits();
                parts = parts | (bit_cast::<PARTS, 16>(line.to_bits()) << at);
            }
        }
        self.parts.next = parts;
        let t = b.turned(Orientation::ALL[self.choice.val().index()]);
        self.rows_o.next = (t.rows as u64).to_bits();
        self.cols_o.next = (t.cols as u64).to_bits();
        self.down_o.next = t.down.to_bits();
        self.up_o.next = t.up.to_bits();
    }

    fn connect(&mut self) {
        self.parts.connect();
        self.rows_o.connect();
        self.cols_o.connect();
        self.down_o.connect();
        self.up_o.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(turn_verilog(M))
    }
}

/// `{v[0], v[1], ...}`: v reversed (a concatenation lists its top bit first).
fn reversed(v: &str, w: usize) -> String {
    let bits: Vec<String> = (0..w).map(|i| format!("{v}[{i}]")).collect();
    format!("{{{}}}", bits.join(", "))
}

fn turn_verilog(m: usize) -> String {
    let d = 2 * m - 1;
    let lines = scored_lines(m as u32) as usize;
    // rows, columns, falling and rising diagonals of each orientation (as Blocking::turned).
    let views = [
        ["rows".to_string(), "cols".into(), "down".into(), "up".into()],
        ["rows".into(), reversed("cols", m), "up".into(), "down".into()],
        ["cols".into(), "rows".into(), "down".into(), reversed("up", d)],
        [
            "cols".into(),
            reversed("rows", m),
            reversed("up", d),
            "down".into(),
        ],
    ];
    let mut v = String::from("// the four orientations of the inner board: rows, columns, both diagonals\n");
    for (o, [r, c, dn, u]) in views.iter().enumerate() {
        v += &format!(
            "wire [{mh}:0] r{o} = {r};\nwire [{mh}:0] c{o} = {c};\nwire [{dh}:0] d{o} = {dn};\nwire [{dh}:0] u{o} = {u};\n",
            mh = m - 1,
            dh = d - 1
        );
    }
    v += &format!("// the first lines of each: the rows they leave open, counted in groups of {GROUP}\n");
    let mut parts = Vec::new();
    for o in 0..4 {
        for j in 0..SCORED_LINES as usize {
            if j >= lines {
                parts.push(format!("{LINE}'d0"));
                continue;
            }
            v += &format!(
                "wire [{mh}:0] l{o}_{j} = ~r{o} & ~d{o}[{j} +: {m}] & ~u{o}[{uj} +: {m}];\n",
                mh = m - 1,
                uj = m - 1 - j,
            );
            // The filled bit on top, then the groups' counts, the highest group first.
            let mut line = vec![format!("c{o}[{j}]")];
            for g in (0..GROUPS).rev() {
                let rows: Vec<String> = (GROUP * g..(GROUP * (g + 1)).min(m))
                    .map(|i| format!("{{2'd0, l{o}_{j}[{i}]}}"))
                    .collect();
                line.push(if rows.is_empty() {
                    "3'd0".into()
                } else {
                    format!("({})", rows.join(" + "))
                });
            }
            v += &format!(
                "wire [{lh}:0] p{o}_{j} = {{{}}};\n",
                line.join(", "),
                lh = LINE - 1
            );
            parts.push(format!("p{o}_{j}"));
        }
    }
    parts.reverse();
    v += &format!(
        "always @(*) begin\n    parts = {{{}}};\n    case (choice)\n",
        parts.join(", ")
    );
    for o in 0..4 {
        v +=
            &format!("        2'd{o}: begin rows_o = r{o}; cols_o = c{o}; down_o = d{o}; up_o = u{o}; end\n");
    }
    v += "    endcase\nend\n";
    v
}

/// The second stage's sums: each line's score, from its group counts (a line the ring fills
/// scores `filled_line_score`).
#[derive(LogicBlock, Default)]
struct Terms<const M: usize> {
    parts: Signal<In, Bits<PARTS>>,
    /// Line j of orientation o at bits TERM (4o + j).
    terms: Signal<Out, Bits<TERMS>>,
}

impl<const M: usize> Logic for Terms<M> {
    fn update(&mut self) {
        let mut terms = Bits::<TERMS>::default();
        for line in 0..4 * SCORED_LINES as usize {
            let at: Bits<10> = ((LINE * line) as u64).to_bits();
            let p = (self.parts.val() >> at).get_bits::<LINE>(0).to_u64();
            let score = if p >> (3 * GROUPS) & 1 != 0 {
                filled_line_score(M as u32) as u64
            } else {
                (0..GROUPS).map(|g| p >> (3 * g) & 7).sum()
            };
            let at: Bits<8> = ((TERM * line) as u64).to_bits();
            terms = terms | (bit_cast::<TERMS, 8>(score.to_bits()) << at);
        }
        self.terms.next = terms;
    }

    fn connect(&mut self) {
        self.terms.connect();
    }

    fn hdl(&self) -> Verilog {
        let mut v =
            String::from("// each line's score: its group counts summed, or filled_line_score(M) where the ring fills it\n");
        let mut terms = Vec::new();
        for line in 0..4 * SCORED_LINES as usize {
            let at = LINE * line;
            let groups: Vec<String> = (0..GROUPS)
                .map(|g| format!("{{2'd0, parts[{}:{}]}}", at + 3 * g + 2, at + 3 * g))
                .collect();
            v += &format!(
                "wire [{th}:0] t{line} = parts[{f}] ? {TERM}'d{w} : {sum};\n",
                th = TERM - 1,
                f = at + 3 * GROUPS,
                w = filled_line_score(M as u32),
                sum = groups.join(" + "),
            );
            terms.push(format!("t{line}"));
        }
        terms.reverse();
        v += &format!("always @(*) terms = {{{}}};\n", terms.join(", "));
        Verilog::Custom(v)
    }
}

/// The third stage's sums: each half of each orientation's walk score, [`HALF_TERMS`] line
/// scores added.
#[derive(LogicBlock, Default)]
struct Scores {
    terms: Signal<In, Bits<TERMS>>,
    /// Half h of orientation o's score at bits HALF (2o + h).
    halves: Signal<Out, Bits<{ 8 * HALF }>>,
}

impl Logic for Scores {
    fn update(&mut self) {
        let t = self.terms.val();
        let mut halves = 0u64;
        for half in 0..8 {
            let s: u64 = (0..HALF_TERMS)
                .map(|j| t.get_bits::<TERM>(TERM * (half * HALF_TERMS + j)).to_u64())
                .sum();
            halves |= s << (HALF * half);
        }
        self.halves.next = halves.to_bits();
    }

    fn connect(&mut self) {
        self.halves.connect();
    }

    fn hdl(&self) -> Verilog {
        let mut v = String::from("// each half of each orientation's walk score: its line scores added\n");
        let mut halves = Vec::new();
        for half in 0..8 {
            let terms: Vec<String> = (0..HALF_TERMS)
                .map(|j| {
                    let at = TERM * (half * HALF_TERMS + j);
                    format!("{{{pad}'d0, terms[{}:{at}]}}", at + TERM - 1, pad = HALF - TERM)
                })
                .collect();
            v += &format!("wire [{sh}:0] s{half} = {};\n", terms.join(" + "), sh = HALF - 1);
            halves.push(format!("s{half}"));
        }
        halves.reverse();
        v += &format!("always @(*) halves = {{{}}};\n", halves.join(", "));
        Verilog::Custom(v)
    }
}
