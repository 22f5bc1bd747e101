//! A side queen's cell on the full board, from the wire word: the first register stage of
//! both kinds of [`crate::solver::decoder`].
//!
//! The word holds eight coordinates c, mc = W / 8 bits each, wa first (one bit narrower: the
//! bit above it is the parity): wa, wb, na, nb, ea, eb, sa, sb. Each names a queen of the
//! two outer rings at a cell whose x and y are each a fixed value, c, or N - 1 - c.

use rust_hdl::prelude::*;

/// The side queens of a word, in its order.
pub const SIDES: usize = 8;

/// One coordinate of a side queen's cell: fixed, the coordinate, or counted from the far
/// edge (N - 1 - c).
#[derive(Clone, Copy)]
enum Term {
    Fixed(usize),
    Coord,
    Back,
}

/// The cell of the queen at `side` (0 = wa ... 7 = sb), on a board of N = `n`.
fn terms(side: usize, n: usize) -> (Term, Term) {
    use Term::*;
    match side {
        0 => (Fixed(0), Coord),
        1 => (Fixed(1), Coord),
        2 => (Coord, Fixed(n - 1)),
        3 => (Coord, Fixed(n - 2)),
        4 => (Fixed(n - 1), Back),
        5 => (Fixed(n - 2), Back),
        6 => (Back, Fixed(0)),
        7 => (Back, Fixed(1)),
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
        // (base, take, neg) of one term.
        let term = |t: Term| match t {
            Term::Fixed(v) => (v, 0, false),
            Term::Coord => (0, 0xFF, false),
            Term::Back => (n - 1, 0xFF, true),
        };
        let (x, y) = terms(side, n);
        let ((xb, xt, xn), (yb, yt, yn)) = (term(x), term(y));
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
            x_take: c(xt),
            x_neg: Constant::new(xn),
            y_base: c(yb),
            y_take: c(yt),
            y_neg: Constant::new(yn),
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
