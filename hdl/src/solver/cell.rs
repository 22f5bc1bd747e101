//! A side queen's cell on the full board, from the wire word: the first register stage of
//! both kinds of [`crate::solver::decoder`].
//!
//! The word holds eight coordinates c, mc = W / 8 bits each, wa first (one bit narrower: the
//! bit above it is the parity): wa, wb, na, nb, ea, eb, sa, sb. Each names a queen of the
//! two outer rings at a cell whose x and y are each a fixed value, c, or N - 1 - c.

use crate::solver::hot::Sign;
use rust_hdl::prelude::*;

/// The side queens of a word, in its order.
pub const SIDES: usize = 8;

/// The cell of the queen at `side` (0 = wa ... 7 = sb), on a board of N = `n`: x and y,
/// each a base and the coordinate's sign (fixed: `(v, Zero)`; the coordinate: `(0, Plus)`;
/// counted from the far edge: `(N - 1, Minus)`).
fn terms(side: usize, n: usize) -> ((usize, Sign), (usize, Sign)) {
    use Sign::*;
    let (coord, back) = ((0, Plus), (n - 1, Minus));
    match side {
        0 => ((0, Zero), coord),
        1 => ((1, Zero), coord),
        2 => (coord, (n - 1, Zero)),
        3 => (coord, (n - 2, Zero)),
        4 => ((n - 1, Zero), back),
        5 => ((n - 2, Zero), back),
        6 => (back, (0, Zero)),
        7 => (back, (1, Zero)),
        _ => panic!("a word has {SIDES} side queens, not {}", side + 1),
    }
}

/// Wire word width W = 8 ceil(log2 N).
#[derive(LogicBlock)]
pub struct Cell<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub word: Signal<In, Bits<W>>,
    /// The queen's column and row, a cycle after its word.
    pub x: Signal<Out, Bits<8>>,
    pub y: Signal<Out, Bits<8>>,
    field: Signal<Local, Bits<W>>,
    coord: Signal<Local, Bits<8>>,
    x_r: DFF<Bits<8>>,
    y_r: DFF<Bits<8>>,
    mask: Constant<Bits<8>>,
    offset: Constant<Bits<8>>,
    /// x = x_base + (c & x_take), or x_base - (c & x_take) where `x_neg`; y alike. The
    /// constants fold away in synthesis: each cell is one subtraction or none.
    x_base: Constant<Bits<8>>,
    x_take: Constant<Bits<8>>,
    x_neg: Constant<Bit>,
    y_base: Constant<Bits<8>>,
    y_take: Constant<Bits<8>>,
    y_neg: Constant<Bit>,
}

impl<const W: usize> Cell<W> {
    pub fn new(side: usize, n: usize) -> Self {
        let mc = W / 8;
        let c = |v: usize| Constant::new((v as u64).to_bits());
        let ((xb, xs), (yb, ys)) = terms(side, n);
        Self {
            clock: Default::default(),
            word: Default::default(),
            x: Default::default(),
            y: Default::default(),
            field: Default::default(),
            coord: Default::default(),
            x_r: Default::default(),
            y_r: Default::default(),
            // wa has one bit less: the bit above it is the parity.
            mask: c(if side == 0 {
                (1 << (mc - 1)) - 1
            } else {
                (1 << mc) - 1
            }),
            // Field i (0 = wa) sits (7 - i) * mc bits above the bottom.
            offset: c((SIDES - 1 - side) * mc),
            x_base: c(xb),
            x_take: xs.take(),
            x_neg: xs.negative(),
            y_base: c(yb),
            y_take: ys.take(),
            y_neg: ys.negative(),
        }
    }
}

impl<const W: usize> Logic for Cell<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, x_r, y_r);
        // (Verilog selects bits of names only, hence the shifted copy.)
        self.field.next = self.word.val() >> self.offset.val();
        self.coord.next = self.field.val().get_bits::<8>(0) & self.mask.val();
        if self.x_neg.val() {
            self.x_r.d.next = self.x_base.val() - (self.coord.val() & self.x_take.val());
        } else {
            self.x_r.d.next = self.x_base.val() + (self.coord.val() & self.x_take.val());
        }
        if self.y_neg.val() {
            self.y_r.d.next = self.y_base.val() - (self.coord.val() & self.y_take.val());
        } else {
            self.y_r.d.next = self.y_base.val() + (self.coord.val() & self.y_take.val());
        }
        self.x.next = self.x_r.q.val();
        self.y.next = self.y_r.q.val();
    }
}
