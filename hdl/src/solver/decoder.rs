//! The pre-placement decoder: a wire word in, the blocking vectors a unit loads out. One
//! decoder serves a whole array; the unit kind sets its queens and its bit indices:
//!
//! - [`PlainDecoder`]: the inner board, bit for bit as `queens_core::Blocking` defines it
//!   (rows, columns, falling diagonals x + y, rising diagonals y - x + M - 1), from all
//!   eight side queens (a corner queen appears twice; harmless).
//! - [`SouthDecoder`] (issue 50): a group request's south walk, bit for bit as
//!   `queens_core::south::SouthWalk` defines it: positions (inner columns 2..=N-3), lines
//!   (rows N-3 down to 0, in `cols`), falling diagonals line + position, rising diagonals
//!   position - line + N - 3. The west, north and east queens are decoded; the south
//!   side's fields are ignored (a south corner queen is a west or east queen too).
//!
//! Pipelined in [`LATENCY`] register stages so that no path is longer than a unit's: the
//! queens' cells ([`Cell`]: a subtraction), each vector's bit indices, then the one-hot
//! vectors (both in [`Hot`]: an addition and a subtraction, then a decode and an OR per
//! bit). A word held at the input for `LATENCY` cycles is decoded at the output.

use crate::solver::cell::{Cell, SIDES};
use crate::solver::hot::{Hot, Index, Sign};
use rust_hdl::prelude::*;
use Sign::*;

/// Clock cycles from a word to its vectors.
pub const LATENCY: usize = 3;

/// Today's unit's decoder: inner width M, diagonal width D = 2M - 1, wire word width W.
pub type PlainDecoder<const M: usize, const D: usize, const W: usize> = Decoder<SIDES, M, M, D, W>;
/// A grouped unit's: positions M, D = 2M + 1 (the M + 2 lines in the low bits of `cols`).
pub type SouthDecoder<const M: usize, const D: usize, const W: usize> = Decoder<6, M, D, D, W>;

/// K queens decoded (a word's first K sides), M positions, the lines the walk fills V wide,
/// diagonals D, wire word width W = 8 ceil(log2 N).
#[derive(LogicBlock)]
pub struct Decoder<const K: usize, const M: usize, const V: usize, const D: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    /// The wire word (its top bit, the parity, is ignored).
    pub word: Signal<In, Bits<W>>,
    pub rows: Signal<Out, Bits<M>>,
    pub cols: Signal<Out, Bits<V>>,
    pub down: Signal<Out, Bits<D>>,
    pub up: Signal<Out, Bits<D>>,
    cell: [Cell<W>; K],
    hot_rows: Hot<K, M>,
    hot_cols: Hot<K, V>,
    hot_down: Hot<K, D>,
    hot_up: Hot<K, D>,
}

impl<const M: usize, const D: usize, const W: usize> PlainDecoder<M, D, W> {
    pub fn plain() -> Self {
        assert_eq!(D, 2 * M - 1);
        // Inner index = full-board index - 2 (rows y, columns x), - 4 (falling diagonals
        // x + y); rising diagonals y - x + M - 1.
        Self::with([
            Index::new(0, Zero, Plus, 2),
            Index::new(0, Plus, Zero, 2),
            Index::new(0, Plus, Plus, 4),
            Index::new(M - 1, Minus, Plus, 0),
        ])
    }
}

impl<const M: usize, const D: usize, const W: usize> SouthDecoder<M, D, W> {
    pub fn south() -> Self {
        assert_eq!(D, 2 * M + 1);
        let n = M + 4;
        // Indices, offset to stay non-negative: the column x (positions from bit 2), the
        // line N + 5 - y (lines from bit 8), the falling diagonal x + N + 3 - y (from bit
        // 8), the rising one x + y (from bit 2).
        Self::with([
            Index::new(0, Plus, Zero, 2),
            Index::new(n + 5, Zero, Minus, 8),
            Index::new(n + 3, Plus, Minus, 8),
            Index::new(0, Plus, Plus, 2),
        ])
    }
}

impl<const K: usize, const M: usize, const V: usize, const D: usize, const W: usize> Decoder<K, M, V, D, W> {
    /// The decoder of the vectors rows, cols, down and up at these indices.
    fn with(index: [Index; 4]) -> Self {
        let n = M + 4;
        assert!(2 * n + 2 < 64, "indices below 64 for N = {n}");
        assert_eq!(
            W / 8,
            (usize::BITS - (n - 1).leading_zeros()) as usize,
            "word width for N = {n}"
        );
        Self {
            clock: Default::default(),
            word: Default::default(),
            rows: Default::default(),
            cols: Default::default(),
            down: Default::default(),
            up: Default::default(),
            cell: std::array::from_fn(|side| Cell::new(side, n)),
            hot_rows: Hot::new(index[0]),
            hot_cols: Hot::new(index[1]),
            hot_down: Hot::new(index[2]),
            hot_up: Hot::new(index[3]),
        }
    }
}

impl<const K: usize, const M: usize, const V: usize, const D: usize, const W: usize> Logic
    for Decoder<K, M, V, D, W>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.hot_rows.clock.next = self.clock.val();
        self.hot_cols.clock.next = self.clock.val();
        self.hot_down.clock.next = self.clock.val();
        self.hot_up.clock.next = self.clock.val();
        for i in 0..K {
            self.cell[i].clock.next = self.clock.val();
            self.cell[i].word.next = self.word.val();
            self.hot_rows.x[i].next = self.cell[i].x.val();
            self.hot_rows.y[i].next = self.cell[i].y.val();
            self.hot_cols.x[i].next = self.cell[i].x.val();
            self.hot_cols.y[i].next = self.cell[i].y.val();
            self.hot_down.x[i].next = self.cell[i].x.val();
            self.hot_down.y[i].next = self.cell[i].y.val();
            self.hot_up.x[i].next = self.cell[i].x.val();
            self.hot_up.y[i].next = self.cell[i].y.val();
        }
        self.rows.next = self.hot_rows.vec.val();
        self.cols.next = self.hot_cols.vec.val();
        self.down.next = self.hot_down.vec.val();
        self.up.next = self.hot_up.vec.val();
    }
}
