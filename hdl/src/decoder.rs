//! The pre-placement decoder: a wire word in, the blocking vectors of the inner board out,
//! bit for bit as `queens_core::Blocking` defines them (rows, columns, falling diagonals
//! x + y, rising diagonals y - x + M - 1). Combinational; one decoder serves a whole array.

use rust_hdl::prelude::*;

/// Inner width M, diagonal width D = 2M - 1, wire word width W = 8 ceil(log2 N).
#[derive(LogicBlock)]
pub struct Decoder<const M: usize, const D: usize, const W: usize> {
    /// The wire word (its top bit, the parity, is ignored).
    pub word: Signal<In, Bits<W>>,
    pub rows: Signal<Out, Bits<M>>,
    pub cols: Signal<Out, Bits<M>>,
    pub down: Signal<Out, Bits<D>>,
    pub up: Signal<Out, Bits<D>>,
    /// Coordinates wa, wb, na, nb, ea, eb, sa, sb.
    coord: [Signal<Local, Bits<8>>; 8],
    field: [Signal<Local, Bits<W>>; 8],
    /// Queen cells on the full board.
    qx: [Signal<Local, Bits<8>>; 8],
    qy: [Signal<Local, Bits<8>>; 8],
    /// One-hot helpers, wide enough for every shift (2N - 2 < 64).
    hot_rows: Signal<Local, Bits<64>>,
    hot_cols: Signal<Local, Bits<64>>,
    hot_down: Signal<Local, Bits<64>>,
    hot_up: Signal<Local, Bits<64>>,
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
            word: Default::default(),
            rows: Default::default(),
            cols: Default::default(),
            down: Default::default(),
            up: Default::default(),
            coord: Default::default(),
            field: Default::default(),
            qx: Default::default(),
            qy: Default::default(),
            hot_rows: Default::default(),
            hot_cols: Default::default(),
            hot_down: Default::default(),
            hot_up: Default::default(),
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
        for i in 0..8 {
            // (Verilog selects bits of names only, hence the shifted copies.)
            self.field[i].next = self.word.val() >> self.offset[i].val();
            self.coord[i].next = self.field[i].val().get_bits::<8>(0) & self.mask[i].val();
        }
        // The cells of the eight side queens (a corner queen appears twice; harmless).
        self.qx[0].next = 0.into();
        self.qy[0].next = self.coord[0].val();
        self.qx[1].next = 1.into();
        self.qy[1].next = self.coord[1].val();
        self.qx[2].next = self.coord[2].val();
        self.qy[2].next = self.n1.val();
        self.qx[3].next = self.coord[3].val();
        self.qy[3].next = self.n2.val();
        self.qx[4].next = self.n1.val();
        self.qy[4].next = self.n1.val() - self.coord[4].val();
        self.qx[5].next = self.n2.val();
        self.qy[5].next = self.n1.val() - self.coord[5].val();
        self.qx[6].next = self.n1.val() - self.coord[6].val();
        self.qy[6].next = 0.into();
        self.qx[7].next = self.n1.val() - self.coord[7].val();
        self.qy[7].next = 1.into();
        // Inner index = full index - 2 (rows, columns) or - 4 (falling diagonals); rising
        // diagonal y - x + M - 1 = (y + M + 3) - (x + 4). Out-of-range bits fall off.
        self.hot_rows.next = 0.into();
        self.hot_cols.next = 0.into();
        self.hot_down.next = 0.into();
        self.hot_up.next = 0.into();
        for i in 0..8 {
            self.hot_rows.next = self.hot_rows.val() | (bits::<64>(1) << self.qy[i].val());
            self.hot_cols.next = self.hot_cols.val() | (bits::<64>(1) << self.qx[i].val());
            self.hot_down.next =
                self.hot_down.val() | (bits::<64>(1) << (self.qx[i].val() + self.qy[i].val()));
            self.hot_up.next = self.hot_up.val()
                | ((bits::<64>(1) << (self.qy[i].val() + self.m_plus_3.val())) >> (self.qx[i].val() + 4));
        }
        self.rows.next = self.hot_rows.val().get_bits::<M>(2);
        self.cols.next = self.hot_cols.val().get_bits::<M>(2);
        self.down.next = self.hot_down.val().get_bits::<D>(4);
        self.up.next = self.hot_up.val().get_bits::<D>(0);
    }
}
