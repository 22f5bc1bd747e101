//! What the two kinds' front ends share, wired once: frames in ([`Intake`]), the free list
//! and the beats ([`Dispatch`]), collection and the framer ([`Collect`]). A kind's front end
//! adds its decoder (fed `word`, feeding `rows` ... `hi`) and its answers (queued into
//! `head`, framed as its [`Layout`] says).

use crate::front::bytes::Bytes;
use crate::front::collect::{Answers, Collect};
use crate::front::dispatch::{Decoding, Dispatch};
use crate::front::frame::Layout;
use crate::front::intake::Intake;
use crate::solver::beat::BeatOut;
use queens_core::ident::Ident;
use rust_hdl::prelude::*;

/// Positions M, diagonals D, wire word width W, answer queue entries of E bits.
#[derive(LogicBlock)]
pub struct Base<const M: usize, const D: usize, const W: usize, const E: usize> {
    pub clock: Signal<In, Clock>,
    pub link: Bytes,
    pub dn: BeatOut<M>,
    /// Nothing being received, queued, dispatched or sent (the kind adds its own tests; the
    /// word queue shows a word a cycle or two after it is written).
    pub idle: Signal<Out, Bit>,
    /// The kind's decoder (see [`Dispatch`]) and answers (see [`Collect`]).
    pub dec: Decoding<M, D, W>,
    pub answers: Answers<E, W>,

    intake: Intake<W>,
    dispatch: Dispatch<M, D, W>,
    collect: Collect<E, W>,
}

impl<const M: usize, const D: usize, const W: usize, const E: usize> Base<M, D, W, E> {
    /// `units` on the chain; `layout`: the kind's answer frames, whose CRC XOR its requests
    /// carry too; the decoder's latency and the rising diagonals' rotation (see
    /// [`Dispatch::new`]); `ident`: what it answers an identification request with.
    pub fn new(units: usize, layout: Layout, decode_cycles: usize, up_right: usize, ident: &Ident) -> Self {
        Self {
            clock: Default::default(),
            link: Default::default(),
            dn: Default::default(),
            idle: Default::default(),
            dec: Default::default(),
            answers: Default::default(),
            intake: Intake::new(layout.crc_xor),
            dispatch: Dispatch::new(units, decode_cycles, up_right),
            collect: Collect::new(units, layout, ident),
        }
    }
}

impl<const M: usize, const D: usize, const W: usize, const E: usize> Logic for Base<M, D, W, E> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, intake, dispatch, collect);

        // Frames in; a queued word to a free unit through the kind's decoder.
        self.intake.rx_data.next = self.link.rx_data.val();
        self.intake.rx_valid.next = self.link.rx_valid.val();
        self.link.rx_ready.next = self.intake.rx_ready.val();
        self.intake.take.next = self.dispatch.take.val();
        self.dispatch.queued.next = !self.intake.empty.val();
        self.dispatch.queue_head.next = self.intake.word.val();
        Decoding::<M, D, W>::link(&mut self.dec, &mut self.dispatch.dec);
        BeatOut::<M>::link(&mut self.dn, &mut self.dispatch.dn);

        // The word table, the free list and identification.
        self.collect.request.next = self.intake.request.val();
        self.collect.store.next = self.dispatch.store.val();
        self.collect.store_id.next = self.dispatch.store_id.val();
        self.collect.store_word.next = self.dispatch.store_word.val();
        self.dispatch.give_back.next = self.collect.give_back.val();
        self.dispatch.back_id.next = self.collect.back_id.val();

        // Answers out.
        Answers::<E, W>::link(&mut self.answers, &mut self.collect.answers);
        self.link.tx_data.next = self.collect.tx_data.val();
        self.link.tx_valid.next = self.collect.tx_valid.val();
        self.link.tx_last.next = self.collect.tx_last.val();
        self.collect.tx_ready.next = self.link.tx_ready.val();
        self.idle.next = !self.intake.busy.val()
            & self.intake.empty.val()
            & self.dispatch.idle.val()
            & self.collect.idle.val();
    }
}
