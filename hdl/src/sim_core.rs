//! The board-independent core: the front end and K solver stages, byte streams on both sides
//! ([`Core`]; [`GroupedCore`] for grouped stages, issue 50).
//! This composite is for rust-hdl's simulator; the emitted core wires the same two parts with
//! the chain as a generate loop (`emit::core_verilog`). One definition serves both kinds, as
//! in [`crate::solver::chain`].

use crate::front::bytes::Bytes;
use crate::front::grouped::GroupFront;
use crate::front::Front;
use crate::solver::arbiter::ArbiterKind;
use crate::solver::beat::BeatOut;
use crate::solver::chain::{Chain, GroupedChain};
use crate::solver::slot::SlotOut;
use queens_core::ident::Ident;
use rust_hdl::prelude::*;

macro_rules! core {
    ($(#[$doc:meta])* $name:ident of $front:ident and $chain:ident, slot $bits:path) => {
        $(#[$doc])*
        #[derive(LogicBlock)]
        pub struct $name<const M: usize, const M1: usize, const D: usize, const W: usize, const K: usize> {
            pub clock: Signal<In, Clock>,
            pub link: Bytes,
            pub idle: Signal<Out, Bit>,
            front: $front<M, M1, D, W>,
            chain: $chain<M, M1, D, K>,
        }

        impl<const M: usize, const M1: usize, const D: usize, const W: usize, const K: usize> Logic
            for $name<M, M1, D, W, K>
        {
            #[hdl_gen]
            fn update(&mut self) {
                self.front.clock.next = self.clock.val();
                self.chain.clock.next = self.clock.val();
                Bytes::link(&mut self.link, &mut self.front.link);
                self.idle.next = self.front.idle.val();
                BeatOut::<M>::join(&mut self.front.chain.dn, &mut self.chain.dn);
                SlotOut::<{ $bits }>::join(&mut self.front.chain.first, &mut self.chain.first);
                SlotOut::<{ $bits }>::join(&mut self.chain.up, &mut self.front.chain.up);
            }
        }
    };
}

core!(
    /// A core of plain units.
    Core of Front and Chain, slot crate::solver::stage::SLOT_BITS
);
core!(
    /// A core of grouped units.
    GroupedCore of GroupFront and GroupedChain, slot crate::solver::grouped_stage::SLOT_BITS
);

impl<const M: usize, const M1: usize, const D: usize, const W: usize, const K: usize> Core<M, M1, D, W, K> {
    /// `ident`: what the front end answers an identification request with.
    pub fn new(kind: ArbiterKind, with_cycles: bool, ident: &Ident) -> Self {
        Self {
            clock: Default::default(),
            link: Default::default(),
            idle: Default::default(),
            front: Front::new(K, with_cycles, ident),
            chain: Chain::new(kind),
        }
    }
}

impl<const M: usize, const M1: usize, const D: usize, const W: usize, const K: usize>
    GroupedCore<M, M1, D, W, K>
{
    /// `ident`: what the front end answers an identification request with; `room`: see
    /// [`GroupFront::new`].
    pub fn new(kind: ArbiterKind, ident: &Ident, room: usize) -> Self {
        Self {
            clock: Default::default(),
            link: Default::default(),
            idle: Default::default(),
            front: GroupFront::new(K, ident, room),
            chain: GroupedChain::new(kind),
        }
    }
}
