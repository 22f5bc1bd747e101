//! K solver stages in series: the array without its front end (for simulation; the emitted
//! array instantiates the stage module in a generate loop, `emit::chain_verilog`), of plain
//! stages ([`Chain`]) or grouped ones ([`GroupedChain`]). One definition serves both kinds:
//! rust-hdl cannot take a block's type as a parameter, so a macro writes each.

use crate::solver::arbiter::ArbiterKind;
use crate::solver::beat::Beat;
use crate::solver::grouped_stage::GroupedStage;
use crate::solver::load::ID_BITS;
use crate::solver::slot::{Slot, SlotOut};
use crate::solver::stage::Stage;
use rust_hdl::prelude::*;

macro_rules! chain {
    ($(#[$doc:meta])* $name:ident of $stage:ident, slot $bits:path) => {
        $(#[$doc])*
        #[derive(LogicBlock)]
        pub struct $name<const M: usize, const M1: usize, const D: usize, const K: usize> {
            pub clock: Signal<In, Clock>,
            pub dn: Beat<M>,
            /// The slot into stage 0: empty, or the front end's hold.
            pub first: Slot<{ $bits }>,
            pub up: SlotOut<{ $bits }>,
            stages: [$stage<M, M1, D>; K],
            ids: [Constant<Bits<ID_BITS>>; K],
        }

        impl<const M: usize, const M1: usize, const D: usize, const K: usize> $name<M, M1, D, K> {
            pub fn new(kind: ArbiterKind) -> Self {
                Self {
                    clock: Default::default(),
                    dn: Default::default(),
                    first: Default::default(),
                    up: Default::default(),
                    stages: std::array::from_fn(|_| $stage::new(kind)),
                    ids: std::array::from_fn(|i| Constant::new((i as u64).to_bits())),
                }
            }
        }

        impl<const M: usize, const M1: usize, const D: usize, const K: usize> Logic for $name<M, M1, D, K> {
            #[hdl_gen]
            fn update(&mut self) {
                // Beats and records both travel from stage 0 to stage K-1.
                for i in 0..K {
                    self.stages[i].clock.next = self.clock.val();
                    self.stages[i].links.my_id.next = self.ids[i].val();
                }
                Beat::<M>::link(&mut self.dn, &mut self.stages[0].links.dn);
                Slot::<{ $bits }>::link(&mut self.first, &mut self.stages[0].links.up);
                for i in 1..K {
                    self.stages[i].links.dn.valid.next = self.stages[i - 1].links.dn_o.valid.val();
                    self.stages[i].links.dn.id.next = self.stages[i - 1].links.dn_o.id.val();
                    self.stages[i].links.dn.kind.next = self.stages[i - 1].links.dn_o.kind.val();
                    self.stages[i].links.dn.data.next = self.stages[i - 1].links.dn_o.data.val();
                    self.stages[i].links.up.valid.next = self.stages[i - 1].links.up_o.valid.val();
                    self.stages[i].links.up.id.next = self.stages[i - 1].links.up_o.id.val();
                    self.stages[i].links.up.data.next = self.stages[i - 1].links.up_o.data.val();
                }
                // The last assignment stands: the outputs of stage K-1 (K itself must not
                // appear in an expression, or it leaks into the Verilog).
                for i in 0..K {
                    SlotOut::<{ $bits }>::link(&mut self.up, &mut self.stages[i].links.up_o);
                }
            }
        }
    };
}

chain!(
    /// Plain stages in series.
    Chain of Stage, slot crate::solver::stage::SLOT_BITS
);
chain!(
    /// Grouped stages in series.
    GroupedChain of GroupedStage, slot crate::solver::grouped_stage::SLOT_BITS
);
