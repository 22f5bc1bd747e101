//! The south decoder (issue 50): a group request's wire word in, the blocking vectors of its
//! south walk out, bit for bit as `queens_core::south::SouthWalk` defines them: positions
//! (inner columns 2..=N-3), lines (rows N-3 down to 0), falling diagonals line + position,
//! rising diagonals position - line + N - 3. The west, north and east queens are decoded;
//! the south side's fields are ignored (a south corner queen is a west or east queen too).
//!
//! Pipelined as [`crate::solver::decoder`] is, in [`LATENCY`] register stages: the queens'
//! cells, their one-hot indices (offset so that no index is negative), the vectors.

use rust_hdl::prelude::*;

pub use crate::solver::decoder::LATENCY;

/// The queens decoded: wa, wb, na, nb, ea, eb.
const QUEENS: usize = 6;

/// Positions M, diagonal width D = 2M + 1 (lines, M + 2, come out in the low bits of
/// `lines`, D wide), wire word width W = 8 ceil(log2 N).
#[derive(LogicBlock)]
pub struct SouthDecoder<const M: usize, const D: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    /// The wire word (its top bit, the parity, and its south fields are ignored).
    pub word: Signal<In, Bits<W>>,
    pub rows: Signal<Out, Bits<M>>,
    pub lines: Signal<Out, Bits<D>>,
    pub down: Signal<Out, Bits<D>>,
    pub up: Signal<Out, Bits<D>>,
    coord: [Signal<Local, Bits<8>>; QUEENS],
    field: [Signal<Local, Bits<W>>; QUEENS],
    /// Stage 1: queen cells on the full board.
    qx: [DFF<Bits<8>>; QUEENS],
    qy: [DFF<Bits<8>>; QUEENS],
    /// Stage 2: one-hot indices: the column x (positions from bit 2), the line N + 5 - y
    /// (lines from bit 8), the falling diagonal x + N + 3 - y (from bit 8), the rising one
    /// x + y (from bit 2).
    at_col: [DFF<Bits<8>>; QUEENS],
    at_line: [DFF<Bits<8>>; QUEENS],
    at_down: [DFF<Bits<8>>; QUEENS],
    at_up: [DFF<Bits<8>>; QUEENS],
    /// Stage 3: one-hot helpers, wide enough for every index (2N + 2 < 64 for N <= 30).
    hot_cols: Signal<Local, Bits<64>>,
    hot_lines: Signal<Local, Bits<64>>,
    hot_down: Signal<Local, Bits<64>>,
    hot_up: Signal<Local, Bits<64>>,
    rows_r: DFF<Bits<M>>,
    lines_r: DFF<Bits<D>>,
    down_r: DFF<Bits<D>>,
    up_r: DFF<Bits<D>>,
    mask: [Constant<Bits<8>>; QUEENS],
    offset: [Constant<Bits<8>>; QUEENS],
    n1: Constant<Bits<8>>,
    n2: Constant<Bits<8>>,
    n5: Constant<Bits<8>>,
    n3: Constant<Bits<8>>,
}

impl<const M: usize, const D: usize, const W: usize> SouthDecoder<M, D, W> {
    pub fn new() -> Self {
        assert_eq!(D, 2 * M + 1);
        let n = M + 4;
        assert!(n <= 30, "indices below 64");
        let mc = W / 8;
        assert_eq!(
            mc,
            (usize::BITS - (n - 1).leading_zeros()) as usize,
            "word width for N = {n}"
        );
        let c = |v: usize| Constant::new((v as u64).to_bits());
        Self {
            clock: Default::default(),
            word: Default::default(),
            rows: Default::default(),
            lines: Default::default(),
            down: Default::default(),
            up: Default::default(),
            coord: Default::default(),
            field: Default::default(),
            qx: Default::default(),
            qy: Default::default(),
            at_col: Default::default(),
            at_line: Default::default(),
            at_down: Default::default(),
            at_up: Default::default(),
            hot_cols: Default::default(),
            hot_lines: Default::default(),
            hot_down: Default::default(),
            hot_up: Default::default(),
            rows_r: Default::default(),
            lines_r: Default::default(),
            down_r: Default::default(),
            up_r: Default::default(),
            // wa has one bit less: the bit above it is the parity.
            mask: std::array::from_fn(|i| {
                c(if i == 0 {
                    (1 << (mc - 1)) - 1
                } else {
                    (1 << mc) - 1
                })
            }),
            // Field i (0 = wa) sits (7 - i) * mc bits above the bottom.
            offset: std::array::from_fn(|i| c((7 - i) * mc)),
            n1: c(n - 1),
            n2: c(n - 2),
            n5: c(n + 5),
            n3: c(n + 3),
        }
    }
}

impl<const M: usize, const D: usize, const W: usize> Default for SouthDecoder<M, D, W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const M: usize, const D: usize, const W: usize> Logic for SouthDecoder<M, D, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rows_r, lines_r, down_r, up_r);
        for i in 0..QUEENS {
            self.qx[i].clock.next = self.clock.val();
            self.qy[i].clock.next = self.clock.val();
            self.at_col[i].clock.next = self.clock.val();
            self.at_line[i].clock.next = self.clock.val();
            self.at_down[i].clock.next = self.clock.val();
            self.at_up[i].clock.next = self.clock.val();
            self.field[i].next = self.word.val() >> self.offset[i].val();
            self.coord[i].next = self.field[i].val().get_bits::<8>(0) & self.mask[i].val();
        }
        // Stage 1: the cells of the west, north and east queens.
        self.qx[0].d.next = 0.into();
        self.qy[0].d.next = self.coord[0].val();
        self.qx[1].d.next = 1.into();
        self.qy[1].d.next = self.coord[1].val();
        self.qx[2].d.next = self.coord[2].val();
        self.qy[2].d.next = self.n1.val();
        self.qx[3].d.next = self.coord[3].val();
        self.qy[3].d.next = self.n2.val();
        self.qx[4].d.next = self.n1.val();
        self.qy[4].d.next = self.n1.val() - self.coord[4].val();
        self.qx[5].d.next = self.n2.val();
        self.qy[5].d.next = self.n1.val() - self.coord[5].val();
        // Stage 2: where each queen's bits sit, offset to stay non-negative.
        for i in 0..QUEENS {
            self.at_col[i].d.next = self.qx[i].q.val();
            self.at_line[i].d.next = self.n5.val() - self.qy[i].q.val();
            self.at_down[i].d.next = self.qx[i].q.val() + self.n3.val() - self.qy[i].q.val();
            self.at_up[i].d.next = self.qx[i].q.val() + self.qy[i].q.val();
        }
        // Stage 3: the one-hot vectors; out-of-range bits fall off.
        self.hot_cols.next = 0.into();
        self.hot_lines.next = 0.into();
        self.hot_down.next = 0.into();
        self.hot_up.next = 0.into();
        for i in 0..QUEENS {
            self.hot_cols.next = self.hot_cols.val() | (bits::<64>(1) << self.at_col[i].q.val());
            self.hot_lines.next = self.hot_lines.val() | (bits::<64>(1) << self.at_line[i].q.val());
            self.hot_down.next = self.hot_down.val() | (bits::<64>(1) << self.at_down[i].q.val());
            self.hot_up.next = self.hot_up.val() | (bits::<64>(1) << self.at_up[i].q.val());
        }
        self.rows_r.d.next = self.hot_cols.val().get_bits::<M>(2);
        self.lines_r.d.next = self.hot_lines.val().get_bits::<D>(8);
        self.down_r.d.next = self.hot_down.val().get_bits::<D>(8);
        self.up_r.d.next = self.hot_up.val().get_bits::<D>(2);
        self.rows.next = self.rows_r.q.val();
        self.lines.next = self.lines_r.q.val();
        self.down.next = self.down_r.q.val();
        self.up.next = self.up_r.q.val();
    }
}
