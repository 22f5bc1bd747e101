//! One blocking vector from the side queens' cells: the last two register stages of the
//! decoder ([`crate::solver::decoder`]). Each queen's bit index is a linear form of its cell, base + sx x + sy y with
//! sx, sy in {-1, 0, 1}, registered; a cycle later, the V bits of the indices' one-hot OR
//! from bit `from` up. Indices outside them (a negative index wraps past 64) fall off.

use rust_hdl::prelude::*;

/// A coefficient of x or y in a bit index.
#[derive(Clone, Copy)]
pub enum Sign {
    Minus,
    Zero,
    Plus,
}

impl Sign {
    /// The coefficient as a mask (0 or all ones) and a sign, constants that fold away in
    /// synthesis: the term is base + (v & take), or base - (v & take) where `negative`.
    pub fn take(self) -> Constant<Bits<8>> {
        let mask: u64 = if matches!(self, Sign::Zero) { 0 } else { 0xFF };
        Constant::new(mask.to_bits())
    }

    pub fn negative(self) -> Constant<Bit> {
        Constant::new(matches!(self, Sign::Minus))
    }
}

/// The bit index base + sx x + sy y, and the index of the vector's bit 0.
#[derive(Clone, Copy)]
pub struct Index {
    pub base: usize,
    pub x: Sign,
    pub y: Sign,
    pub from: usize,
}

impl Index {
    pub fn new(base: usize, x: Sign, y: Sign, from: usize) -> Self {
        Self { base, x, y, from }
    }
}

/// K queens, V bits out.
#[derive(LogicBlock)]
pub struct Hot<const K: usize, const V: usize> {
    pub clock: Signal<In, Clock>,
    /// The queens' cells (see [`crate::solver::cell::Cell`]).
    pub x: [Signal<In, Bits<8>>; K],
    pub y: [Signal<In, Bits<8>>; K],
    pub vec: Signal<Out, Bits<V>>,
    with_x: [Signal<Local, Bits<8>>; K],
    at: [DFF<Bits<8>>; K],
    /// Wide enough for every index of a board up to N = 30 (2N + 2 < 64).
    hot: Signal<Local, Bits<64>>,
    shifted: Signal<Local, Bits<64>>,
    vec_r: DFF<Bits<V>>,
    /// The form's constants: a coefficient is a mask (0 or all ones) and a sign; they fold
    /// away in synthesis.
    base: Constant<Bits<8>>,
    x_take: Constant<Bits<8>>,
    x_neg: Constant<Bit>,
    y_take: Constant<Bits<8>>,
    y_neg: Constant<Bit>,
    from: Constant<Bits<8>>,
}

impl<const K: usize, const V: usize> Hot<K, V> {
    pub fn new(index: Index) -> Self {
        let c = |v: usize| Constant::new((v as u64).to_bits());
        Self {
            clock: Default::default(),
            x: std::array::from_fn(|_| Default::default()),
            y: std::array::from_fn(|_| Default::default()),
            vec: Default::default(),
            with_x: std::array::from_fn(|_| Default::default()),
            at: std::array::from_fn(|_| Default::default()),
            hot: Default::default(),
            shifted: Default::default(),
            vec_r: Default::default(),
            base: c(index.base),
            x_take: index.x.take(),
            x_neg: index.x.negative(),
            y_take: index.y.take(),
            y_neg: index.y.negative(),
            from: c(index.from),
        }
    }
}

impl<const K: usize, const V: usize> Logic for Hot<K, V> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, vec_r);
        self.hot.next = 0.into();
        for i in 0..K {
            self.at[i].clock.next = self.clock.val();
            if self.x_neg.val() {
                self.with_x[i].next = self.base.val() - (self.x[i].val() & self.x_take.val());
            } else {
                self.with_x[i].next = self.base.val() + (self.x[i].val() & self.x_take.val());
            }
            if self.y_neg.val() {
                self.at[i].d.next = self.with_x[i].val() - (self.y[i].val() & self.y_take.val());
            } else {
                self.at[i].d.next = self.with_x[i].val() + (self.y[i].val() & self.y_take.val());
            }
            self.hot.next = self.hot.val() | (bits::<64>(1) << self.at[i].q.val());
        }
        // (Verilog selects bits of names only, hence the shifted copy.)
        self.shifted.next = self.hot.val() >> self.from.val();
        self.vec_r.d.next = self.shifted.val().get_bits::<V>(0);
        self.vec.next = self.vec_r.q.val();
    }
}
