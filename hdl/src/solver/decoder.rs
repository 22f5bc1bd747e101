//! The pre-placement decoder: a wire word in, the blocking vectors of the inner board out,
//! bit for bit as `queens_core::Blocking` defines them (rows, columns, falling diagonals
//! x + y, rising diagonals y - x + M - 1). One decoder serves a whole array.
//!
//! Pipelined in [`LATENCY`] register stages so that no path is longer than a unit's: the
//! queens' cells (a subtraction), their diagonal indices (an addition, a subtraction), then
//! the one-hot vectors (a decode and an 8-way OR per bit). A word held at the input for
//! `LATENCY` cycles is decoded at the output.

use rust_hdl::prelude::*;

/// Clock cycles from a word to its vectors.
pub const LATENCY: usize = 3;

/// Inner width M, diagonal width D = 2M - 1, wire word width W = 8 ceil(log2 N).
#[derive(LogicBlock)]
pub struct Decoder<const M: usize, const D: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    /// The wire word (its top bit, the parity, is ignored).
    pub word: Signal<In, Bits<W>>,
    pub rows: Signal<Out, Bits<M>>,
    pub cols: Signal<Out, Bits<M>>,
    pub down: Signal<Out, Bits<D>>,
    pub up: Signal<Out, Bits<D>>,
    /// Coordinates wa, wb, na, nb, ea, eb, sa, sb.
    coord: [Signal<Local, Bits<8>>; 8],
    field: [Signal<Local, Bits<W>>; 8],
    /// Stage 1: queen cells on the full board.
    qx: [DFF<Bits<8>>; 8],
    qy: [DFF<Bits<8>>; 8],
    /// Stage 2: the one-hot positions of each queen's row, column and diagonals, full-board
    /// indices, 8 bits as the single-cycle form computed them: rows y, columns x, falling
    /// x + y; rising (y + M + 3) - (x + 4) where that bit exists (`up_ok`).
    at_row: [DFF<Bits<8>>; 8],
    at_col: [DFF<Bits<8>>; 8],
    at_down: [DFF<Bits<8>>; 8],
    at_up: [DFF<Bits<8>>; 8],
    up_ok: [DFF<Bit>; 8],
    a_up: [Signal<Local, Bits<8>>; 8],
    b_up: [Signal<Local, Bits<8>>; 8],
    /// Stage 3: one-hot helpers, wide enough for every index (2N - 2 < 64), and the vectors.
    hot_rows: Signal<Local, Bits<64>>,
    hot_cols: Signal<Local, Bits<64>>,
    hot_down: Signal<Local, Bits<64>>,
    hot_up: Signal<Local, Bits<64>>,
    rows_r: DFF<Bits<M>>,
    cols_r: DFF<Bits<M>>,
    down_r: DFF<Bits<D>>,
    up_r: DFF<Bits<D>>,
    sixty_four: Constant<Bits<8>>,
    four: Constant<Bits<8>>,
    /// Field masks and offsets (wa is one bit narrower).
    mask: [Constant<Bits<8>>; 8],
    offset: [Constant<Bits<8>>; 8],
    n1: Constant<Bits<8>>,
    n2: Constant<Bits<8>>,
    m_plus_3: Constant<Bits<8>>,
}

impl<const M: usize, const D: usize, const W: usize> Decoder<M, D, W> {
    pub fn new() -> Self {
        assert_eq!(D, 2 * M - 1);
        let n = M + 4;
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
            cols: Default::default(),
            down: Default::default(),
            up: Default::default(),
            coord: Default::default(),
            field: Default::default(),
            qx: Default::default(),
            qy: Default::default(),
            at_row: Default::default(),
            at_col: Default::default(),
            at_down: Default::default(),
            at_up: Default::default(),
            up_ok: Default::default(),
            a_up: Default::default(),
            b_up: Default::default(),
            hot_rows: Default::default(),
            hot_cols: Default::default(),
            hot_down: Default::default(),
            hot_up: Default::default(),
            rows_r: Default::default(),
            cols_r: Default::default(),
            down_r: Default::default(),
            up_r: Default::default(),
            sixty_four: c(64),
            four: c(4),
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
            m_plus_3: c(M + 3),
        }
    }
}

impl<const M: usize, const D: usize, const W: usize> Default for Decoder<M, D, W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const M: usize, const D: usize, const W: usize> Logic for Decoder<M, D, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rows_r, cols_r, down_r, up_r);
        for i in 0..8 {
            self.qx[i].clock.next = self.clock.val();
            self.qy[i].clock.next = self.clock.val();
            self.at_row[i].clock.next = self.clock.val();
            self.at_col[i].clock.next = self.clock.val();
            self.at_down[i].clock.next = self.clock.val();
            self.at_up[i].clock.next = self.clock.val();
            self.up_ok[i].clock.next = self.clock.val();
            // (Verilog selects bits of names only, hence the shifted copies.)
            self.field[i].next = self.word.val() >> self.offset[i].val();
            self.coord[i].next = self.field[i].val().get_bits::<8>(0) & self.mask[i].val();
        }
        // Stage 1: the cells of the eight side queens (a corner queen appears twice; harmless).
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
        self.qx[6].d.next = self.n1.val() - self.coord[6].val();
        self.qy[6].d.next = 0.into();
        self.qx[7].d.next = self.n1.val() - self.coord[7].val();
        self.qy[7].d.next = 1.into();
        // Stage 2: where each queen's bits sit. A rising diagonal's bit is that of
        // (1 << a) >> b, a = y + M + 3, b = x + 4: bit a - b, when a < 64 and a >= b.
        for i in 0..8 {
            self.at_row[i].d.next = self.qy[i].q.val();
            self.at_col[i].d.next = self.qx[i].q.val();
            self.at_down[i].d.next = self.qx[i].q.val() + self.qy[i].q.val();
            self.a_up[i].next = self.qy[i].q.val() + self.m_plus_3.val();
            self.b_up[i].next = self.qx[i].q.val() + self.four.val();
            self.at_up[i].d.next = self.a_up[i].val() - self.b_up[i].val();
            self.up_ok[i].d.next =
                (self.a_up[i].val() < self.sixty_four.val()) & (self.a_up[i].val() >= self.b_up[i].val());
        }
        // Stage 3: the one-hot vectors. Inner index = full index - 2 (rows, columns) or - 4
        // (falling diagonals); out-of-range bits fall off.
        self.hot_rows.next = 0.into();
        self.hot_cols.next = 0.into();
        self.hot_down.next = 0.into();
        self.hot_up.next = 0.into();
        for i in 0..8 {
            self.hot_rows.next = self.hot_rows.val() | (bits::<64>(1) << self.at_row[i].q.val());
            self.hot_cols.next = self.hot_cols.val() | (bits::<64>(1) << self.at_col[i].q.val());
            self.hot_down.next = self.hot_down.val() | (bits::<64>(1) << self.at_down[i].q.val());
            if self.up_ok[i].q.val() {
                self.hot_up.next = self.hot_up.val() | (bits::<64>(1) << self.at_up[i].q.val());
            }
        }
        self.rows_r.d.next = self.hot_rows.val().get_bits::<M>(2);
        self.cols_r.d.next = self.hot_cols.val().get_bits::<M>(2);
        self.down_r.d.next = self.hot_down.val().get_bits::<D>(4);
        self.up_r.d.next = self.hot_up.val().get_bits::<D>(0);
        self.rows.next = self.rows_r.q.val();
        self.cols.next = self.cols_r.q.val();
        self.down.next = self.down_r.q.val();
        self.up.next = self.up_r.q.val();
    }
}
