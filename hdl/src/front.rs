//! The array's shared front end: everything between the byte streams of the link and the
//! two chains of solver stages. One per array, so its size does not scale with the units.
//!
//! In: frames -> [`FrameRx`] -> word queue -> dispatch: take a free unit id, remember the word
//! under that id, decode it and send the unit its ring columns and a start beat.
//! Out: results from the chain -> result queue -> look the word up by id -> [`FrameTx`]; the
//! id returns to the free list once its word has been copied into the framer.

use crate::decoder::Decoder;
use crate::frame_rx::FrameRx;
use crate::frame_tx::{FrameTx, PAYLOAD_BITS};
use crate::stage::ID_BITS;
use rust_hdl::prelude::*;

/// Result queue entry: id, count mod 13, count mod 15, count (the cycle counter has its own).
const ENTRY_BITS: usize = ID_BITS + 4 + 4 + 44;

#[derive(LogicBlock)]
pub struct Front<const M: usize, const M1: usize, const D: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub rx_data: Signal<In, Bits<8>>,
    pub rx_valid: Signal<In, Bit>,
    /// The core takes the byte offered: a source that can wait (a simulator, a PCIe link)
    /// holds it while this is low; a UART cannot, and the frame it starts is lost whole.
    pub rx_ready: Signal<Out, Bit>,
    pub tx_data: Signal<Out, Bits<8>>,
    pub tx_valid: Signal<Out, Bit>,
    pub tx_ready: Signal<In, Bit>,
    /// Nothing being received, queued, running or sent (the queue shows a word a cycle or
    /// two after it is written).
    pub idle: Signal<Out, Bit>,

    pub dn_valid: Signal<Out, Bit>,
    pub dn_id: Signal<Out, Bits<ID_BITS>>,
    pub dn_kind: Signal<Out, Bit>,
    pub dn_addr: Signal<Out, Bits<5>>,
    pub dn_data: Signal<Out, Bits<M1>>,
    pub up_valid: Signal<In, Bit>,
    pub up_id: Signal<In, Bits<ID_BITS>>,
    pub up_m13: Signal<In, Bits<4>>,
    pub up_m15: Signal<In, Bits<4>>,
    pub up_count: Signal<In, Bits<44>>,
    pub up_cycles: Signal<In, Bits<48>>,

    rx: FrameRx<W>,
    words: SynchronousFIFO<Bits<W>, 4, 5, 1>,
    free: SynchronousFIFO<Bits<ID_BITS>, ID_BITS, 11, 1>,
    wordtab: RAM<Bits<W>, ID_BITS>,
    dec: Decoder<M, D, W>,
    results: SynchronousFIFO<Bits<ENTRY_BITS>, ID_BITS, 11, 1>,
    cycles: SynchronousFIFO<Bits<48>, ID_BITS, 11, 1>,
    tx: FrameTx,

    /// Ids 0..K-1 entered into the free list so far (dispatch waits until all are).
    init: DFF<Bits<11>>,
    /// Units holding a subproblem whose result has not reached the framer.
    outstanding: DFF<Bits<11>>,
    /// Dispatch: 0 idle, 1 decoding, 2 ring beats, 3 start beat.
    dstate: DFF<Bits<2>>,
    did: DFF<Bits<ID_BITS>>,
    dword: DFF<Bits<W>>,
    rows: DFF<Bits<M>>,
    cols: DFF<Bits<M>>,
    down: DFF<Bits<D>>,
    up: DFF<Bits<D>>,
    x: DFF<Bits<5>>,
    bv: DFF<Bit>,
    bkind: DFF<Bit>,
    baddr: DFF<Bits<5>>,
    bdata: DFF<Bits<M1>>,
    /// Collection: a result whose word is being read from the wordtab.
    cbusy: DFF<Bit>,
    centry: DFF<Bits<ENTRY_BITS>>,
    ccycles: DFF<Bits<48>>,

    open: Signal<Local, Bits<M>>,
    dsh: Signal<Local, Bits<D>>,
    ush: Signal<Local, Bits<D>>,
    csh: Signal<Local, Bits<M>>,
    dispatch: Signal<Local, Bit>,
    collect: Signal<Local, Bit>,
    give_back: Signal<Local, Bit>,
    tail: Signal<Local, Bits<PAYLOAD_BITS>>,

    units: Constant<Bits<11>>,
    last_col: Constant<Bits<5>>,
    full: Constant<Bits<M>>,
    /// Payload layout: the cycle counter (if sent) sits above the word, and the whole payload
    /// is shifted to the top of the framer's register.
    with_cycles: Constant<Bit>,
    cycles_at: Constant<Bits<8>>,
    align: Constant<Bits<8>>,
    result_bytes: Constant<Bits<5>>,
}

impl<const M: usize, const M1: usize, const D: usize, const W: usize> Front<M, M1, D, W> {
    /// `units`: solver stages on the chain (ids 0..units-1); `with_cycles`: results carry the
    /// 48-bit cycle counter (the optional frame variant of the protocol).
    pub fn new(units: usize, with_cycles: bool) -> Self {
        assert!((1..=1 << ID_BITS).contains(&units), "1 to 1024 units");
        // Echoed word, mod 13, mod 15, 44-bit count, 4 bits of padding; cycles in front.
        let bits = W + 56 + if with_cycles { 48 } else { 0 };
        assert!(bits <= PAYLOAD_BITS);
        Self {
            clock: Default::default(),
            rx_data: Default::default(),
            rx_valid: Default::default(),
            rx_ready: Default::default(),
            tx_data: Default::default(),
            tx_valid: Default::default(),
            tx_ready: Default::default(),
            idle: Default::default(),
            dn_valid: Default::default(),
            dn_id: Default::default(),
            dn_kind: Default::default(),
            dn_addr: Default::default(),
            dn_data: Default::default(),
            up_valid: Default::default(),
            up_id: Default::default(),
            up_m13: Default::default(),
            up_m15: Default::default(),
            up_count: Default::default(),
            up_cycles: Default::default(),
            rx: Default::default(),
            words: Default::default(),
            free: Default::default(),
            wordtab: Default::default(),
            dec: Decoder::new(),
            results: Default::default(),
            cycles: Default::default(),
            tx: Default::default(),
            init: Default::default(),
            outstanding: Default::default(),
            dstate: Default::default(),
            did: Default::default(),
            dword: Default::default(),
            rows: Default::default(),
            cols: Default::default(),
            down: Default::default(),
            up: Default::default(),
            x: Default::default(),
            bv: Default::default(),
            bkind: Default::default(),
            baddr: Default::default(),
            bdata: Default::default(),
            cbusy: Default::default(),
            centry: Default::default(),
            ccycles: Default::default(),
            open: Default::default(),
            dsh: Default::default(),
            ush: Default::default(),
            csh: Default::default(),
            dispatch: Default::default(),
            collect: Default::default(),
            give_back: Default::default(),
            tail: Default::default(),
            units: c(units),
            last_col: c(M - 1),
            full: Constant::new(((1u64 << M) - 1).to_bits()),
            with_cycles: Constant::new(with_cycles),
            cycles_at: c(W + 56),
            align: c(PAYLOAD_BITS - bits),
            result_bytes: c(bits / 8),
        }
    }
}

fn c<const B: usize>(v: usize) -> Constant<Bits<B>> {
    Constant::new((v as u64).to_bits())
}

impl<const M: usize, const M1: usize, const D: usize, const W: usize> Logic for Front<M, M1, D, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            init,
            outstanding,
            dstate,
            did,
            dword,
            rows,
            cols,
            down,
            up,
            x,
            bv,
            bkind,
            baddr,
            bdata,
            cbusy,
            centry,
            ccycles
        );
        clock!(self, clock, rx, words, free, results, cycles, tx);
        self.wordtab.read_clock.next = self.clock.val();
        self.wordtab.write_clock.next = self.clock.val();

        // Frames in: checked words into the queue (a frame without room is dropped whole).
        // The stream stalls only between frames, so that a source that cannot wait (a UART)
        // loses whole frames, never part of one; one slot of slack covers the cycle the
        // queue's fill level lags a write.
        self.rx_ready.next = !self.rx.hunting.val() | !self.words.almost_full.val();
        self.rx.data.next = self.rx_data.val();
        self.rx.data_valid.next = self.rx_valid.val() & self.rx_ready.val();
        self.rx.room.next = !self.words.full.val();
        self.words.write.next = self.rx.word_valid.val();
        self.words.data_in.next = self.rx.word.val();

        // The free list starts with every id.
        self.give_back.next = false;
        self.free.write.next = false;
        self.free.data_in.next = self.init.q.val().get_bits::<ID_BITS>(0);
        if self.init.q.val() != self.units.val() {
            self.free.write.next = true;
            self.init.d.next = self.init.q.val() + 1;
        }

        // Dispatch.
        self.dispatch.next = (self.dstate.q.val() == 0)
            & (self.init.q.val() == self.units.val())
            & !self.words.empty.val()
            & !self.free.empty.val();
        self.words.read.next = self.dispatch.val();
        self.free.read.next = self.dispatch.val();
        self.wordtab.write_enable.next = self.dispatch.val();
        self.wordtab.write_address.next = self.free.data_out.val();
        self.wordtab.write_data.next = self.words.data_out.val();
        self.dec.word.next = self.dword.q.val();
        // (Verilog selects bits of names only, hence the shifted copies.)
        self.dsh.next = self.down.q.val() >> self.x.q.val();
        self.ush.next = self.up.q.val() >> (self.last_col.val() - self.x.q.val());
        self.csh.next = self.cols.q.val() >> self.x.q.val();
        self.open.next = self.full.val()
            & !self.rows.q.val()
            & !self.dsh.val().get_bits::<M>(0)
            & !self.ush.val().get_bits::<M>(0);
        self.bv.d.next = false;
        self.bkind.d.next = false;
        self.baddr.d.next = self.x.q.val();
        self.bdata.d.next = 0.into();
        if self.dispatch.val() {
            self.did.d.next = self.free.data_out.val();
            self.dword.d.next = self.words.data_out.val();
            self.dstate.d.next = 1.into();
        }
        if self.dstate.q.val() == 1 {
            self.rows.d.next = self.dec.rows.val();
            self.cols.d.next = self.dec.cols.val();
            self.down.d.next = self.dec.down.val();
            self.up.d.next = self.dec.up.val();
            self.x.d.next = 0.into();
            self.dstate.d.next = 2.into();
        }
        if self.dstate.q.val() == 2 {
            // Ring beat for column x: bit 0 filled, bits 1..=M open rows.
            self.bv.d.next = true;
            if self.csh.val().get_bit(0) {
                self.bdata.d.next = 1.into();
            } else {
                self.bdata.d.next = bit_cast::<M1, M>(self.open.val()) << 1;
            }
            self.x.d.next = self.x.q.val() + 1;
            if self.x.q.val() == self.last_col.val() {
                self.dstate.d.next = 3.into();
            }
        }
        if self.dstate.q.val() == 3 {
            self.bv.d.next = true;
            self.bkind.d.next = true;
            self.baddr.d.next = 0.into();
            self.dstate.d.next = 0.into();
        }
        self.dn_valid.next = self.bv.q.val();
        self.dn_id.next = self.did.q.val();
        self.dn_kind.next = self.bkind.q.val();
        self.dn_addr.next = self.baddr.q.val();
        self.dn_data.next = self.bdata.q.val();

        // Collection: every result finds room (at most one per unit id is ever in flight).
        self.results.write.next = self.up_valid.val();
        self.results.data_in.next = (bit_cast::<ENTRY_BITS, ID_BITS>(self.up_id.val()) << 52)
            | (bit_cast::<ENTRY_BITS, 4>(self.up_m13.val()) << 48)
            | (bit_cast::<ENTRY_BITS, 4>(self.up_m15.val()) << 44)
            | bit_cast::<ENTRY_BITS, 44>(self.up_count.val());
        self.cycles.write.next = self.up_valid.val();
        self.cycles.data_in.next = self.up_cycles.val();
        // Take the next result when the framer is free; its word arrives from the wordtab a
        // cycle later.
        self.collect.next = !self.cbusy.q.val() & !self.tx.busy.val() & !self.results.empty.val();
        self.results.read.next = self.collect.val();
        self.cycles.read.next = self.collect.val();
        self.wordtab.read_address.next = self.results.data_out.val().get_bits::<ID_BITS>(52);
        self.cbusy.d.next = self.collect.val();
        if self.collect.val() {
            self.centry.d.next = self.results.data_out.val();
            self.ccycles.d.next = self.cycles.data_out.val();
        }
        self.tail.next = (bit_cast::<PAYLOAD_BITS, W>(self.wordtab.read_data.val()) << 56)
            | (bit_cast::<PAYLOAD_BITS, 52>(self.centry.q.val().get_bits::<52>(0)) << 4);
        if self.with_cycles.val() {
            self.tail.next = self.tail.val()
                | (bit_cast::<PAYLOAD_BITS, 48>(self.ccycles.q.val()) << self.cycles_at.val());
        }
        self.tx.payload.next = self.tail.val() << self.align.val();
        self.tx.nbytes.next = self.result_bytes.val();
        self.tx.load.next = self.cbusy.q.val();
        if self.cbusy.q.val() {
            self.give_back.next = true;
            self.free.write.next = true;
            self.free.data_in.next = self.centry.q.val().get_bits::<ID_BITS>(52);
        }
        self.tx_data.next = self.tx.tx_data.val();
        self.tx_valid.next = self.tx.tx_valid.val();
        self.tx.tx_ready.next = self.tx_ready.val();

        if self.dispatch.val() & !self.give_back.val() {
            self.outstanding.d.next = self.outstanding.q.val() + 1;
        }
        if !self.dispatch.val() & self.give_back.val() {
            self.outstanding.d.next = self.outstanding.q.val() - 1;
        }
        self.idle.next = !self.rx.busy.val()
            & (self.outstanding.q.val() == 0)
            & self.words.empty.val()
            & (self.dstate.q.val() == 0)
            & !self.tx.busy.val()
            & !self.cbusy.q.val();
    }
}
