// Research (issue 50, step 1): a unit that walks a group of pre-placements at once, leaving
// one side of the ring open and tallying each solution by the side it implies, against
// today's unit and Queens@TUD's, per pre-placement. Measurement only: nothing here is built.
//
// A walk is a grid: L lines walked in order, each a mask of open positions (the fixed ring's
// rows and diagonals folded in) or filled by a ring queen. Today's unit walks the inner board
// (L = W = N - 4) turned by the front end's rule. A grouped walk fixes three sides and walks
// N - 2 lines of N - 4 positions, the open side's two lines last, so that each solution's
// last two queens name the open side. The walks and their groups (the table's rows):
// - (a) today's unit: each pre-placement alone, turned by `Blocking::oriented`;
// - (b) a group per (west, north, east), the south side open, walked from the north down
//   (as the software counter's `Sweep`); the same groups walked as columns, west to east or
//   east to west, the south rows two positions of every line; of those three walks the one
//   the front end's score picks, per group; groups of fewer than K members walked alone;
// - (c) each pre-placement is turned as today's rule turns it, and the side that walk ends
//   beside is left open: a group is the canonical pre-placements whose turned image shares
//   the other three sides; the same with the side to leave open chosen by the front end's
//   score of each turned walk with that side open (three sides scored);
// - (d) north, east or west open for every pre-placement instead of south; a group per
//   (west, north), east and south open, walked from the north down.
// Every walk is priced per node for our unit (F, today's: the held uncle) and with the uncle
// from an exhausted column on top (EF, variant E of docs/design/unit.md), and Queens@TUD's
// unit is priced on each pre-placement's own unturned walk (`queens_sim::probe`).
//
// A group's cycles are shared among the canonical pre-placements it counts: per
// pre-placement, the group's cycles over its members. Over a sample of pre-placements spread
// over the canonical order, the mean of that share is the whole order's cycles over its
// pre-placements, and its ratio to Queens@TUD's comes with the interval of
// `queens_sim::ratio::Ratio` (delta method over the sample; probes' noise included).
//
// `grouped check N`: every group of every rule at N, walked by a stepped unit (the model's
// step, generalised to grids; checked against `queens_sim::run_unit` on every turned
// pre-placement): each pre-placement's count equals the software counter's (`Sweep` for the
// south groups, the search for the others), the cycles equal the node prices' sum, the
// groups' members equal the enumerator's, and no counter of the tally is hit twice within
// two cycles. `grouped exact N K [no-two]`: K pre-placements spread over N, every walk's
// cycles by the node prices (exact). `grouped probe N K P [SEED]`: the same by P probes per
// walk. `grouped sketch DIR`: the Verilog sketches of the tally that price it, and the
// commands that route them. `grouped price N SEEDS`: today's unit and the grouped unit
// (`queens_hdl`, without its tally) routed out of context with seeds 1..=SEEDS. Figures: docs/design/unit.md, "More than one pre-placement per
// walk".
use queens_core::board::PairTable;
use queens_core::enumerate::{canonical, select, Prefix};
use queens_core::search::completions;
use queens_core::sweep::Sweep;
use queens_core::{Blocking, BoardSize, Enumerator, Orientation, Preplacement, Subproblem};
use queens_sim::model::{Cell, Grid, Unit};
use queens_sim::ratio::Ratio;
use queens_sim::sample::rng_for;
use queens_sim::sample::Sampler;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::AtomicU64;

mod check;
mod measure;
mod price;

use check::check;
use measure::measure;
use price::{price, sketch};

// ---------------------------------------------------------------------------------------
// Frames: the board turned so that a unit walks its columns left to right.

/// The whole board's map of each orientation of `Blocking::turned` (on the inner board it is
/// that turn), and its inverse.
fn map(o: Orientation, n: u32, (x, y): Cell) -> Cell {
    match o {
        Orientation::Columns => (x, y),
        Orientation::ColumnsBack => (n - 1 - x, y),
        Orientation::Rows => (y, x),
        Orientation::RowsBack => (n - 1 - y, x),
    }
}

fn unmap(o: Orientation, n: u32, (x, y): Cell) -> Cell {
    match o {
        Orientation::RowsBack => (y, n - 1 - x),
        _ => map(o, n, (x, y)),
    }
}

/// The ring of a set of queens that holds one in each of the eight outer lines.
fn ring_of(size: BoardSize, cells: &[Cell]) -> Preplacement {
    let n1 = size.n() - 1;
    let col = |x: u32| {
        cells
            .iter()
            .find(|c| c.0 == x)
            .expect("a queen in every outer column")
            .1
    };
    let row = |y: u32| {
        cells
            .iter()
            .find(|c| c.1 == y)
            .expect("a queen in every outer row")
            .0
    };
    let coords = [
        col(0),
        col(1),
        row(n1),
        row(n1 - 1),
        n1 - col(n1),
        n1 - col(n1 - 1),
        n1 - row(0),
        n1 - row(1),
    ];
    Preplacement::new(size, coords).expect("a valid ring")
}

fn turn(o: Orientation, p: &Preplacement) -> Preplacement {
    let n = p.size().n();
    let cells: Vec<Cell> = p.queens().into_iter().map(|c| map(o, n, c)).collect();
    ring_of(p.size(), &cells)
}

fn unturn(o: Orientation, p: &Preplacement) -> Preplacement {
    let n = p.size().n();
    let cells: Vec<Cell> = p.queens().into_iter().map(|c| unmap(o, n, c)).collect();
    ring_of(p.size(), &cells)
}

/// The canonical pre-placement of a ring's orbit (the enumerator's rule, image by image).
fn canon(table: &PairTable, r: &Preplacement) -> Preplacement {
    let size = r.size();
    let pairs = size.pairs();
    for img in r.images() {
        let [w, n, e, s] = img.side_indices(table);
        let hi = pairs - 1 - w;
        if w <= size.west_bound()
            && [n, e, s].iter().all(|&v| (w..=hi).contains(&v))
            && select(pairs, w, n, e, s).is_some()
        {
            return img;
        }
    }
    unreachable!("every orbit has a canonical image: {r}")
}

// ---------------------------------------------------------------------------------------
// Grids and their walks.

/// Cycles of one walk: our unit (F: today's, with the held uncle), with the uncle from an
/// exhausted column too (EF), Queens@TUD's unit on the same tree, and solutions found.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Price<T> {
    f: T,
    ef: T,
    tud: T,
    sols: T,
}

impl Price<u64> {
    fn add(&mut self, o: Price<u64>) {
        self.f += o.f;
        self.ef += o.ef;
        self.tud += o.tud;
        self.sols += o.sols;
    }

    fn float(self, w: f64) -> Price<f64> {
        Price {
            f: w * self.f as f64,
            ef: w * self.ef as f64,
            tud: w * self.tud as f64,
            sols: w * self.sols as f64,
        }
    }
}

impl Price<f64> {
    fn add(&mut self, o: Price<f64>) {
        self.f += o.f;
        self.ef += o.ef;
        self.tud += o.tud;
        self.sols += o.sols;
    }

    fn scale(self, s: f64) -> Price<f64> {
        Price {
            f: s * self.f,
            ef: s * self.ef,
            tud: s * self.tud,
            sols: s * self.sols,
        }
    }
}

/// A node of a grid's walk: the queens placed in its first lines.
#[derive(Debug, Clone, Copy)]
struct Node {
    l: u32,
    open: [u32; 32],
    filled: u32,
    used: u32,
    down: u64,
    up: u64,
}

impl Node {
    fn root(g: &Grid) -> Node {
        Node {
            l: g.l,
            open: g.open,
            filled: g.filled,
            used: 0,
            down: 0,
            up: 0,
        }
    }

    /// The children of the node at depth c: `None` for a filled line (one child), else the
    /// free positions.
    #[inline(always)]
    fn children(&self, c: u32) -> Option<u32> {
        if self.filled >> c & 1 != 0 {
            return None;
        }
        let att = (self.down >> c) | (self.up >> (self.l - 1 - c));
        Some(self.open[c as usize] & !self.used & !(att as u32))
    }

    #[inline(always)]
    fn place(&mut self, c: u32, q: u32) {
        let y = q.trailing_zeros();
        self.used |= q;
        self.down |= 1 << (c + y);
        self.up |= 1 << (y + self.l - 1 - c);
    }

    fn child(&self, c: u32, q: Option<u32>) -> Node {
        let mut n = *self;
        if let Some(q) = q {
            n.place(c, q);
        }
        n
    }

    /// The node at depth c is a leaf: in the last line, or with no open position.
    fn is_leaf(&self, c: u32) -> bool {
        c == self.l - 1 || self.children(c) == Some(0)
    }

    /// Calls `f(child, is_last)` for the children of the node at depth c < l - 1, in walk
    /// order; stops where `f` returns false.
    #[inline(always)]
    fn each_kid(&self, c: u32, mut f: impl FnMut(&Node, bool) -> bool) {
        match self.children(c) {
            None => {
                f(self, true);
            }
            Some(mut m) => {
                while m != 0 {
                    let q = m & m.wrapping_neg();
                    m &= m - 1;
                    if !f(&self.child(c, Some(q)), m == 0) {
                        return;
                    }
                }
            }
        }
    }

    /// The prices of the node at depth c (`last`: it is its parent's last child, the root
    /// counting as one). Ours: the root, a leaf and a node in the last line 1; a node with
    /// children its advance, and a cycle in its exhausted line after its last child unless
    /// the unit skips it: with a next sibling, F skips it when all its children are leaves
    /// (the held uncle), E when its last child has children (the uncle step from that child's
    /// exhausted line). Queens@TUD's: k + 1 for k children, 1 in the last line.
    fn price(&self, c: u32, last: bool) -> Price<u64> {
        if c == self.l - 1 {
            let sol = match self.children(c) {
                None => 1,
                Some(f) => {
                    debug_assert!(f.count_ones() <= 1);
                    (f != 0) as u64
                }
            };
            return Price {
                f: 1,
                ef: 1,
                tud: 1,
                sols: sol,
            };
        }
        let k = self.children(c).map_or(1, |f| f.count_ones()) as u64;
        let tud = k + 1;
        if c == 0 || k == 0 {
            return Price {
                f: 1,
                ef: 1,
                tud,
                sols: 0,
            };
        }
        // Skips need a next sibling; then F needs every child a leaf, E the last one not.
        let (mut leaves, mut last_leaf) = (true, true);
        if !last {
            self.each_kid(c, |kid, _| {
                let leaf = kid.is_leaf(c + 1);
                leaves &= leaf;
                last_leaf = leaf;
                true
            });
        }
        let skip_f = !last && leaves;
        let skip_e = !last && !last_leaf;
        Price {
            f: 1 + !skip_f as u64,
            ef: 1 + !(skip_f || skip_e) as u64,
            tud,
            sols: 0,
        }
    }

    /// The prices summed over the subtree of the node at depth c.
    fn subtree(&self, c: u32, last: bool) -> Price<u64> {
        let mut sum = self.price(c, last);
        if c == self.l - 1 {
            return sum;
        }
        self.each_kid(c, |kid, is_last| {
            sum.add(kid.subtree(c + 1, is_last));
            true
        });
        sum
    }
}

/// Exact prices of a walk.
fn exact(g: &Grid) -> Price<u64> {
    Node::root(g).subtree(0, true)
}

/// One Knuth probe of a walk: each node's prices times the branchings above it, along one
/// random path (children picked with equal chance, as `queens_sim::probe::probe` does).
fn probe(g: &Grid, rng: &mut fastrand::Rng) -> Price<f64> {
    let mut node = Node::root(g);
    let mut weight = 1.0;
    let mut sum = Price::<f64>::default();
    let mut last = true;
    for c in 0..g.l {
        sum.add(node.price(c, last).float(weight));
        if c == g.l - 1 {
            break;
        }
        match node.children(c) {
            None => last = true,
            Some(f) => {
                let k = f.count_ones();
                if k == 0 {
                    break;
                }
                let pick = rng.u32(0..k);
                let mut h = f;
                for _ in 0..pick {
                    h &= h - 1;
                }
                node.place(c, h & h.wrapping_neg());
                weight *= k as f64;
                last = pick == k - 1;
            }
        }
    }
    sum
}

fn probe_mean(g: &Grid, probes: u32, rng: &mut fastrand::Rng) -> Price<f64> {
    let mut s = Price::<f64>::default();
    for _ in 0..probes {
        s.add(probe(g, rng));
    }
    s.scale(1.0 / probes as f64)
}

// ---------------------------------------------------------------------------------------
// Groups.

/// How pre-placements are grouped and walked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// Each pre-placement alone, turned by the front end's rule (today's unit).
    Alone,
    /// A group per (west, north, east), south open, walked from the north down.
    South,
    /// The same with another side open for every pre-placement, walked toward it: a group
    /// per (west, east, south), (west, north, south) or (north, east, south).
    North,
    East,
    West,
    /// The same groups walked as columns west to east, or east to west.
    SouthWe,
    SouthEw,
    /// The side today's orientation walks last is open.
    Last,
    /// The side open whose walk (the other three sides placed) scores lowest.
    Last3,
    /// A group per (west, north), east and south open, walked from the north down.
    Two,
}

/// A group: the frame its walk is seen in (a map of the pre-placement's board), the queens
/// fixed there, and the walk's lines and positions in that frame.
struct Group {
    o: Orientation,
    fixed: Vec<Cell>,
    xs: (u32, u32),
    ys: (u32, u32),
}

impl Group {
    fn grid(&self) -> Grid {
        Grid::new(&self.fixed, self.xs, self.ys)
    }
}

/// The queens of a ring not on the open lines: `east` open, the non-corner queens of columns
/// N-2 and N-1; south open, those of rows 0 and 1.
fn without_east(n: u32, cells: &[Cell]) -> Vec<Cell> {
    cells
        .iter()
        .copied()
        .filter(|&(x, y)| x < n - 2 || y < 2 || y > n - 3)
        .collect()
}

fn without_south(n: u32, cells: &[Cell]) -> Vec<Cell> {
    cells
        .iter()
        .copied()
        .filter(|&(x, y)| y >= 2 || x < 2 || x > n - 3)
        .collect()
}

/// The orientation whose walk ends beside the open side, for `Last` and `Last3`: the ring
/// turned by it, walked with its east side open.
fn open_east(o: Orientation, p: &Preplacement) -> Group {
    let n = p.size().n();
    let cells: Vec<Cell> = p.queens().into_iter().map(|c| map(o, n, c)).collect();
    Group {
        o,
        fixed: without_east(n, &cells),
        xs: (2, n - 1),
        ys: (2, n - 3),
    }
}

/// The orientation of `Last3`: of the four, the walk (east open in its frame) with the lowest
/// score, the first on a tie.
fn last3(p: &Preplacement) -> Orientation {
    let m = p.size().inner();
    let mut best = (u32::MAX, Orientation::Columns);
    for o in Orientation::ALL {
        let s = open_east(o, p).grid().score(m);
        if s < best.0 {
            best = (s, o);
        }
    }
    best.1
}

/// The frame a rule walks a canonical pre-placement's group in (for rules grouped by an
/// open east side in that frame).
fn frame(rule: Rule, p: &Preplacement) -> Orientation {
    match rule {
        Rule::South => Orientation::RowsBack,
        Rule::North => Orientation::Rows,
        Rule::East => Orientation::Columns,
        Rule::West => Orientation::ColumnsBack,
        Rule::Last => Blocking::new(p).orientation(),
        Rule::Last3 => last3(p),
        _ => unreachable!("{rule:?} is not grouped by an open east side"),
    }
}

/// The group of canonical `p` under `rule`, and how many canonical pre-placements it counts.
fn group(rule: Rule, p: &Preplacement, table: &PairTable, e: &Enumerator) -> (Group, u64) {
    let size = p.size();
    let n = size.n();
    match rule {
        Rule::Alone => unreachable!(),
        Rule::South | Rule::North | Rule::East | Rule::West | Rule::Last | Rule::Last3 => {
            let g = open_east(frame(rule, p), p);
            (g, members(rule, p, table).len() as u64)
        }
        Rule::SouthWe | Rule::SouthEw => {
            let o = if rule == Rule::SouthWe {
                Orientation::Columns
            } else {
                Orientation::ColumnsBack
            };
            let cells: Vec<Cell> = p.queens().into_iter().map(|c| map(o, n, c)).collect();
            let g = Group {
                o,
                fixed: without_south(n, &cells),
                xs: (2, n - 3),
                ys: (0, n - 3),
            };
            (g, members(Rule::South, p, table).len() as u64)
        }
        Rule::Two => {
            let o = Orientation::RowsBack;
            let cells: Vec<Cell> = p
                .queens()
                .into_iter()
                .filter(|&(x, y)| x < 2 || y > n - 3)
                .map(|c| map(o, n, c))
                .collect();
            let g = Group {
                o,
                fixed: cells,
                xs: (2, n - 1),
                ys: (2, n - 1),
            };
            let [w, nn, _, _] = p.side_indices(table);
            let mut k = 0;
            e.for_each_east(Prefix { w, n: nn }, |_, souths| k += souths.len() as u64);
            (g, k)
        }
    }
}

/// The canonical pre-placements of the group of canonical `p` (rules grouped by an open east
/// side): every ring that shares the three other sides of `p`'s frame, whose canonical
/// pre-placement the rule turns onto it.
fn members(rule: Rule, p: &Preplacement, table: &PairTable) -> Vec<Preplacement> {
    let size = p.size();
    let n = size.n();
    let r = turn(frame(rule, p), p).coords();
    let mut out = Vec::new();
    for ea in 0..n {
        for eb in 0..n {
            let mut c = r;
            c[4] = ea;
            c[5] = eb;
            let Ok(rr) = Preplacement::new(size, c) else {
                continue;
            };
            let q = canon(table, &rr);
            if turn(frame(rule, &q), &q) == rr {
                out.push(q);
            }
        }
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let num = |i: usize| -> u64 { args.get(i).and_then(|s| s.parse().ok()).expect("a number") };
    match args.get(1).map(String::as_str) {
        Some("check") => check(num(2) as u32),
        Some("sketch") => sketch(args.get(2).map_or("tally-sketch", String::as_str)),
        Some("price") => price(num(2) as u32, num(3)),
        Some("exact") => measure(
            num(2) as u32,
            num(3),
            None,
            1,
            args.get(4).is_some_and(|a| a == "no-two"),
        ),
        Some("probe") => {
            let seed = args.get(5).and_then(|s| s.parse().ok()).unwrap_or(1);
            measure(num(2) as u32, num(3), Some(num(4) as u32), seed, false)
        }
        _ => eprintln!(
            "usage: grouped check N | exact N K [no-two] | probe N K P [SEED] | sketch DIR | price N SEEDS"
        ),
    }
}
