//! Enumeration of the canonical coronal pre-placements, in the Queens@TUD database order.
//!
//! The order is lexicographic in the pair indices (w, n, e, s) of the four sides, which is
//! also the numeric order of the pre-placement words. Of the eight symmetric images of a ring
//! exactly one is kept. With P = (N-2)(N-1) pairs, a kept ring has w <= (N/2)(N-3) and
//! w <= n, e, s <= P-1-w, so w is the smallest side index or mirrored side index of its orbit.
//! Ties with w are broken by the rules of [`select`], which reproduce the Queens@TUD database
//! exactly (subproblem i here is entry i there).

use crate::board::{BoardSize, PairTable};
use crate::preplacement::{Preplacement, Subproblem, Symmetry};
use rayon::prelude::*;

/// Decides whether the ring with side indices (w, n, e, s) is its orbit's representative and,
/// if so, its symmetry class. Assumes the range cut w <= n, e, s <= P-1-w already holds.
#[inline(always)]
pub fn select(pairs: u32, w: u32, n: u32, e: u32, s: u32) -> Option<Symmetry> {
    let mirror = |i: u32| pairs - 1 - i;
    let ww = mirror(w);
    // A side equal to the mirrored west side: the flip that brings it west ties on the first
    // index and the next one decides. For the main-diagonal flip Queens@TUD keeps the ring
    // with the larger north index (not the lexicographically smaller one); we follow it.
    if s == ww && n < mirror(e) {
        return None;
    }
    if e == ww && n > mirror(n) {
        return None;
    }
    if n == ww && e > mirror(s) {
        return None;
    }
    // A side equal to w: a rotation ties on the first index.
    if s == w {
        return (n == w && e == w).then_some(Symmetry::Rotate);
    }
    if e == w {
        if n > s {
            return None;
        }
        if n == s {
            return Some(Symmetry::Point);
        }
    }
    Some(Symmetry::None)
}

/// The queens placed so far, as line and diagonal occupancy.
#[derive(Clone, Copy)]
struct Ring {
    n: u32,
    full: u32,
    cols: u32,
    rows: u32,
    /// Diagonals x + y.
    d: u64,
    /// Diagonals y - x + N - 1.
    u: u64,
    /// Diagonals x - y + N - 1.
    v: u64,
    row_of_col: [u8; 32],
    col_of_row: [u8; 32],
}

impl Ring {
    fn new(size: BoardSize) -> Self {
        Self {
            n: size.n(),
            full: size.full(),
            cols: 0,
            rows: 0,
            d: 0,
            u: 0,
            v: 0,
            row_of_col: [0; 32],
            col_of_row: [0; 32],
        }
    }

    /// Rows where column x may hold its queen: the queen it has, or the unattacked cells.
    #[inline(always)]
    fn in_col(&self, x: u32) -> u32 {
        if self.cols >> x & 1 != 0 {
            return 1 << self.row_of_col[x as usize];
        }
        let att = (self.d >> x) | (self.u >> (self.n - 1 - x));
        self.full & !self.rows & !(att as u32)
    }

    /// Columns where row y may hold its queen.
    #[inline(always)]
    fn in_row(&self, y: u32) -> u32 {
        if self.rows >> y & 1 != 0 {
            return 1 << self.col_of_row[y as usize];
        }
        let att = (self.d >> y) | (self.v >> (self.n - 1 - y));
        self.full & !self.cols & !(att as u32)
    }

    /// Places a queen on an allowed cell (a no-op if it is already there).
    #[inline(always)]
    fn place(&mut self, x: u32, y: u32) {
        if self.cols >> x & 1 != 0 {
            return;
        }
        self.cols |= 1 << x;
        self.rows |= 1 << y;
        self.d |= 1 << (x + y);
        self.u |= 1 << (y + self.n - 1 - x);
        self.v |= 1 << (x + self.n - 1 - y);
        self.row_of_col[x as usize] = y as u8;
        self.col_of_row[y as usize] = x as u8;
    }

    /// Allowed side coordinates (a on the outer line, b on the inner one) of side k,
    /// expressed in that side's own frame.
    #[inline(always)]
    fn side_masks(&self, k: usize) -> (u32, u32) {
        let n = self.n;
        let rev = |m: u32| m.reverse_bits() >> (32 - n);
        match k {
            0 => (self.in_col(0), self.in_col(1)),
            1 => (self.in_row(n - 1), self.in_row(n - 2)),
            2 => (rev(self.in_col(n - 1)), rev(self.in_col(n - 2))),
            _ => (rev(self.in_row(0)), rev(self.in_row(1))),
        }
    }

    /// Places side k's queens (a, b), given in the side's frame.
    #[inline(always)]
    fn place_side(&mut self, k: usize, a: u32, b: u32) {
        let m = self.n - 1;
        match k {
            0 => {
                self.place(0, a);
                self.place(1, b);
            }
            1 => {
                self.place(a, m);
                self.place(b, m - 1);
            }
            2 => {
                self.place(m, m - a);
                self.place(m - 1, m - b);
            }
            _ => {
                self.place(m - a, 0);
                self.place(m - b, 1);
            }
        }
    }
}

/// Bits of a mask, lowest first.
#[inline(always)]
fn bits(mut m: u32) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let i = m.trailing_zeros();
            m &= m - 1;
            i
        })
    })
}

/// Calls `f(a, b, index)` for every side pair allowed by the masks, in pair order, whose
/// index lies in `lo..=hi`.
#[inline(always)]
fn for_pairs(table: &PairTable, masks: (u32, u32), lo: u32, hi: u32, mut f: impl FnMut(u32, u32, u32)) {
    let (ma, mb) = masks;
    for a in bits(ma) {
        // b must leave a's row and both its diagonals on the adjacent line.
        let near = ((0b111u64 << a) >> 1) as u32;
        for b in bits(mb & !near) {
            let i = table.index_unchecked(a, b);
            if i < lo {
                continue;
            }
            if i > hi {
                return;
            }
            f(a, b, i);
        }
    }
}

/// A unit of parallel work: a fixed west and north side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prefix {
    pub w: u32,
    pub n: u32,
}

/// Enumerates the canonical pre-placements of one board size.
#[derive(Debug, Clone)]
pub struct Enumerator {
    table: PairTable,
}

impl Enumerator {
    pub fn new(size: BoardSize) -> Self {
        Self {
            table: PairTable::new(size),
        }
    }

    pub fn size(&self) -> BoardSize {
        self.table.size()
    }

    pub fn table(&self) -> &PairTable {
        &self.table
    }

    /// The (west, north) prefixes that admit a valid placement, in canonical order.
    pub fn prefixes(&self) -> Vec<Prefix> {
        let size = self.size();
        let pairs = size.pairs();
        let mut out = Vec::new();
        let empty = Ring::new(size);
        for w in 0..=size.west_bound() {
            let (wa, wb) = self.table.pair(w);
            let mut ring = empty;
            ring.place_side(0, wa, wb);
            for_pairs(&self.table, ring.side_masks(1), w, pairs - 1 - w, |_, _, n| {
                out.push(Prefix { w, n });
            });
        }
        out
    }

    /// Calls `f` for every canonical pre-placement with the given prefix, in order.
    pub fn for_each_in(&self, prefix: Prefix, mut f: impl FnMut(Subproblem)) {
        let size = self.size();
        let t = &self.table;
        let (wa, wb) = t.pair(prefix.w);
        let (na, nb) = t.pair(prefix.n);
        self.for_each_east(prefix, |e, souths| {
            let (ea, eb) = t.pair(e);
            for &(s, sym) in souths {
                let (sa, sb) = t.pair(s);
                let pre = Preplacement::from_valid(size, [wa, wb, na, nb, ea, eb, sa, sb]);
                f(Subproblem { pre, sym });
            }
        });
    }

    /// Calls `f(e, souths)` for every east side (pair index e) that completes some canonical
    /// pre-placement with the given prefix, with those pre-placements' south pair indices and
    /// classes, all in order.
    pub fn for_each_east(&self, prefix: Prefix, mut f: impl FnMut(u32, &[(u32, Symmetry)])) {
        let size = self.size();
        let t = &self.table;
        let pairs = size.pairs();
        let (w, n) = (prefix.w, prefix.n);
        let hi = pairs - 1 - w;
        let (wa, wb) = t.pair(w);
        let (na, nb) = t.pair(n);
        let mut ring = Ring::new(size);
        ring.place_side(0, wa, wb);
        ring.place_side(1, na, nb);
        let mut souths = Vec::new();
        for_pairs(t, ring.side_masks(2), w, hi, |ea, eb, e| {
            let mut ring = ring;
            ring.place_side(2, ea, eb);
            souths.clear();
            for_pairs(t, ring.side_masks(3), w, hi, |_, _, s| {
                if let Some(sym) = select(pairs, w, n, e, s) {
                    souths.push((s, sym));
                }
            });
            if !souths.is_empty() {
                f(e, &souths);
            }
        });
    }

    /// Calls `f` for every canonical pre-placement, in order, on this thread.
    pub fn for_each(&self, mut f: impl FnMut(Subproblem)) {
        for p in self.prefixes() {
            self.for_each_in(p, &mut f);
        }
    }

    /// How many canonical pre-placements each prefix holds, in order (counted on all
    /// threads of the pool, by east side as [`Enumerator::census`] does).
    pub fn prefix_sizes(&self, prefixes: &[Prefix]) -> Vec<u64> {
        prefixes
            .par_iter()
            .map(|&p| {
                let mut c = 0u64;
                self.for_each_east(p, |_, souths| c += souths.len() as u64);
                c
            })
            .collect()
    }

    /// Number of canonical pre-placements per class, counted on all threads of the pool.
    pub fn census(&self) -> Census {
        self.prefixes()
            .par_iter()
            .map(|&p| {
                // By east side: no pre-placement is built, so N = 27's two billion take
                // seconds.
                let mut c = Census::default();
                self.for_each_east(p, |_, souths| {
                    for &(_, sym) in souths {
                        c.count[sym.slot()] += 1;
                    }
                });
                c
            })
            .reduce(Census::default, |a, b| a.merge(&b))
    }
}

/// Pre-placements per symmetry class, in the order of [`Symmetry::ALL`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Census {
    pub count: [u64; 3],
}

impl Census {
    pub fn get(&self, sym: Symmetry) -> u64 {
        self.count[sym.slot()]
    }

    pub fn total(&self) -> u64 {
        self.count.iter().sum()
    }

    pub fn merge(mut self, o: &Census) -> Census {
        for i in 0..3 {
            self.count[i] += o.count[i];
        }
        self
    }
}

/// All canonical subproblems of a board, in order (convenient for small N).
pub fn canonical(size: BoardSize) -> impl Iterator<Item = Subproblem> {
    let e = Enumerator::new(size);
    let prefixes = e.prefixes();
    prefixes.into_iter().flat_map(move |p| {
        let mut v = Vec::new();
        e.for_each_in(p, |sp| v.push(sp));
        v
    })
}
