//! A stage's place in the array's two chains, the same for both kinds of stage
//! ([`crate::solver::stage`], [`crate::solver::grouped_stage`]): its ports on the chains
//! ([`Links`]), the beats down through it that load its unit ([`Tap`]), and the slots up
//! through it that carry its records ([`Pass`]). Both chains are one register per stage,
//! so no path crosses more than one stage, and a stage's logic does not depend on how many
//! there are.

use crate::solver::beat::{Beat, BeatOut};
use crate::solver::load::ID_BITS;
use crate::solver::load_ports::LoadPortsOut;
use crate::solver::pass::Pass;
use crate::solver::slot::{Slot, SlotOut};
use crate::solver::tap::Tap;
use rust_hdl::prelude::*;

/// A stage's ports on the chains, positions M, records of S bits: its id, the beat in and
/// out a cycle later, the slot in and out a cycle later. In Verilog `links$my_id`,
/// `links$dn$valid`, ...
#[derive(LogicInterface, Default)]
pub struct Links<const M: usize, const S: usize> {
    pub my_id: Signal<In, Bits<ID_BITS>>,
    pub dn: Beat<M>,
    pub dn_o: BeatOut<M>,
    pub up: Slot<S>,
    pub up_o: SlotOut<S>,
}

#[derive(LogicBlock, Default)]
pub struct Place<const M: usize, const S: usize> {
    pub clock: Signal<In, Clock>,
    pub links: Links<M, S>,
    /// The unit's loads and start, from the beats addressed to it.
    pub load: LoadPortsOut<M>,
    /// The stage's record, and whether it is offered: it goes up in a cycle whose slot
    /// arrives empty (`links.up.valid` low).
    pub offer: Signal<In, Bit>,
    pub record: Signal<In, Bits<S>>,
    tap: Tap<M>,
    pass: Pass<S>,
}

impl<const M: usize, const S: usize> Logic for Place<M, S> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, tap, pass);
        self.tap.my_id.next = self.links.my_id.val();
        self.pass.my_id.next = self.links.my_id.val();
        Beat::<M>::link(&mut self.links.dn, &mut self.tap.dn);
        BeatOut::<M>::link(&mut self.links.dn_o, &mut self.tap.dn_o);
        Slot::<S>::link(&mut self.links.up, &mut self.pass.up);
        SlotOut::<S>::link(&mut self.links.up_o, &mut self.pass.up_o);
        LoadPortsOut::<M>::link(&mut self.load, &mut self.tap.load);
        self.pass.offer.next = self.offer.val();
        self.pass.record.next = self.record.val();
    }
}
