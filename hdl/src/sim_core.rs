//! The board-independent core: the front end and K solver stages, byte streams on both sides
//! ([`Core`]; [`GroupedCore`] for grouped stages, issue 50).
//! This composite is for rust-hdl's simulator; the emitted core wires the same two parts with
//! the chain as a generate loop (`emit::core_verilog`).

use crate::front::grouped::GroupFront;
use crate::front::Front;
use crate::solver::arbiter::ArbiterKind;
use crate::solver::chain::{Chain, GroupedChain};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Core<const M: usize, const M1: usize, const D: usize, const W: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub rx_data: Signal<In, Bits<8>>,
    pub rx_valid: Signal<In, Bit>,
    pub rx_ready: Signal<Out, Bit>,
    pub tx_data: Signal<Out, Bits<8>>,
    pub tx_valid: Signal<Out, Bit>,
    pub tx_ready: Signal<In, Bit>,
    pub idle: Signal<Out, Bit>,
    front: Front<M, M1, D, W>,
    chain: Chain<M, M1, D, K>,
}

impl<const M: usize, const M1: usize, const D: usize, const W: usize, const K: usize> Core<M, M1, D, W, K> {
    /// `ident`: what the front end answers an identification request with.
    pub fn new(kind: ArbiterKind, with_cycles: bool, ident: &queens_core::ident::Ident) -> Self {
        Self {
            clock: Default::default(),
            rx_data: Default::default(),
            rx_valid: Default::default(),
            rx_ready: Default::default(),
            tx_data: Default::default(),
            tx_valid: Default::default(),
            tx_ready: Default::default(),
            idle: Default::default(),
            front: Front::new(K, with_cycles, ident),
            chain: Chain::new(kind),
        }
    }
}

impl<const M: usize, const M1: usize, const D: usize, const W: usize, const K: usize> Logic
    for Core<M, M1, D, W, K>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.front.clock.next = self.clock.val();
        self.chain.clock.next = self.clock.val();
        self.front.rx_data.next = self.rx_data.val();
        self.front.rx_valid.next = self.rx_valid.val();
        self.rx_ready.next = self.front.rx_ready.val();
        self.tx_data.next = self.front.tx_data.val();
        self.tx_valid.next = self.front.tx_valid.val();
        self.front.tx_ready.next = self.tx_ready.val();
        self.idle.next = self.front.idle.val();
        self.chain.dn_valid.next = self.front.dn_valid.val();
        self.chain.dn_id.next = self.front.dn_id.val();
        self.chain.dn_kind.next = self.front.dn_kind.val();
        self.chain.dn_data.next = self.front.dn_data.val();
        self.front.up_valid.next = self.chain.up_valid.val();
        self.front.up_id.next = self.chain.up_id.val();
        self.front.up_m13.next = self.chain.up_m13.val();
        self.front.up_m15.next = self.chain.up_m15.val();
        self.front.up_count.next = self.chain.up_count.val();
        self.front.up_cycles.next = self.chain.up_cycles.val();
    }
}

#[derive(LogicBlock)]
pub struct GroupedCore<const M: usize, const M1: usize, const D: usize, const W: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub rx_data: Signal<In, Bits<8>>,
    pub rx_valid: Signal<In, Bit>,
    pub rx_ready: Signal<Out, Bit>,
    pub tx_data: Signal<Out, Bits<8>>,
    pub tx_valid: Signal<Out, Bit>,
    pub tx_ready: Signal<In, Bit>,
    pub idle: Signal<Out, Bit>,
    front: GroupFront<M, M1, D, W>,
    chain: GroupedChain<M, M1, D, K>,
}

impl<const M: usize, const M1: usize, const D: usize, const W: usize, const K: usize>
    GroupedCore<M, M1, D, W, K>
{
    /// `ident`: what the front end answers an identification request with; `room`: see
    /// [`GroupFront::new`].
    pub fn new(kind: ArbiterKind, ident: &queens_core::ident::Ident, room: usize) -> Self {
        Self {
            clock: Default::default(),
            rx_data: Default::default(),
            rx_valid: Default::default(),
            rx_ready: Default::default(),
            tx_data: Default::default(),
            tx_valid: Default::default(),
            tx_ready: Default::default(),
            idle: Default::default(),
            front: GroupFront::new(K, ident, room),
            chain: GroupedChain::new(kind),
        }
    }
}

impl<const M: usize, const M1: usize, const D: usize, const W: usize, const K: usize> Logic
    for GroupedCore<M, M1, D, W, K>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.front.clock.next = self.clock.val();
        self.chain.clock.next = self.clock.val();
        self.front.rx_data.next = self.rx_data.val();
        self.front.rx_valid.next = self.rx_valid.val();
        self.rx_ready.next = self.front.rx_ready.val();
        self.tx_data.next = self.front.tx_data.val();
        self.tx_valid.next = self.front.tx_valid.val();
        self.front.tx_ready.next = self.tx_ready.val();
        self.idle.next = self.front.idle.val();
        self.chain.dn_valid.next = self.front.dn_valid.val();
        self.chain.dn_id.next = self.front.dn_id.val();
        self.chain.dn_kind.next = self.front.dn_kind.val();
        self.chain.dn_data.next = self.front.dn_data.val();
        self.chain.hold.next = self.front.hold.val();
        self.front.up_valid.next = self.chain.up_valid.val();
        self.front.up_id.next = self.chain.up_id.val();
        self.front.up_south.next = self.chain.up_south.val();
        self.front.up_body.next = self.chain.up_body.val();
    }
}
