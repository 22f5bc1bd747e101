//! AXI4-Stream adapters for the PCIe link: Xilinx's XDMA moves the same frames as the UART
//! through 128-bit streams (16 byte lanes, lane 0 first). [`AxisIn`] turns host-to-card beats
//! into the core's byte stream; [`AxisOut`] packs the core's result bytes into card-to-host
//! beats and ends every frame with TLAST, so that each read of the host's character device
//! returns whole frames.

use rust_hdl::prelude::*;

/// Byte lanes of a beat.
pub const LANES: usize = 16;

#[derive(LogicBlock, Default)]
pub struct AxisIn {
    pub clock: Signal<In, Clock>,
    pub tdata: Signal<In, Bits<128>>,
    pub tkeep: Signal<In, Bits<16>>,
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<Out, Bit>,
    /// The byte stream into the core.
    pub data: Signal<Out, Bits<8>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
    /// The beat being taken apart, shifted down a lane per byte; its lanes still to go.
    beat: DFF<Bits<128>>,
    keep: DFF<Bits<16>>,
}

impl Logic for AxisIn {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, beat, keep);
        self.tready.next = !self.keep.q.val().any();
        self.data.next = self.beat.q.val().get_bits::<8>(0);
        self.valid.next = self.keep.q.val().get_bit(0);
        if !self.keep.q.val().any() {
            if self.tvalid.val() {
                self.beat.d.next = self.tdata.val();
                self.keep.d.next = self.tkeep.val();
            }
        } else if !self.keep.q.val().get_bit(0) | self.ready.val() {
            // Lanes without data are skipped as fast as taken ones.
            self.beat.d.next = self.beat.q.val() >> 8;
            self.keep.d.next = self.keep.q.val() >> 1;
        }
    }
}

#[derive(LogicBlock)]
pub struct AxisOut {
    pub clock: Signal<In, Clock>,
    /// The core's result bytes (whole frames, back to back).
    pub data: Signal<In, Bits<8>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
    pub tdata: Signal<Out, Bits<128>>,
    pub tkeep: Signal<Out, Bits<16>>,
    pub tvalid: Signal<Out, Bit>,
    pub tready: Signal<In, Bit>,
    pub tlast: Signal<Out, Bit>,
    beat: DFF<Bits<128>>,
    keep: DFF<Bits<16>>,
    /// Next free lane, and the byte's place in its frame.
    lane: DFF<Bits<8>>,
    pos: DFF<Bits<8>>,
    full: DFF<Bit>,
    last: DFF<Bit>,
    /// Bytes per frame, minus one.
    frame_m1: Constant<Bits<8>>,
}

impl AxisOut {
    /// For frames of `frame_bytes` bytes (sentinel, payload, CRC).
    pub fn new(frame_bytes: usize) -> Self {
        assert!((2..=256).contains(&frame_bytes));
        Self {
            clock: Default::default(),
            data: Default::default(),
            valid: Default::default(),
            ready: Default::default(),
            tdata: Default::default(),
            tkeep: Default::default(),
            tvalid: Default::default(),
            tready: Default::default(),
            tlast: Default::default(),
            beat: Default::default(),
            keep: Default::default(),
            lane: Default::default(),
            pos: Default::default(),
            full: Default::default(),
            last: Default::default(),
            frame_m1: Constant::new((frame_bytes as u64 - 1).to_bits()),
        }
    }
}

impl Logic for AxisOut {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, beat, keep, lane, pos, full, last);
        self.tdata.next = self.beat.q.val();
        self.tkeep.next = self.keep.q.val();
        self.tvalid.next = self.full.q.val();
        self.tlast.next = self.last.q.val();
        self.ready.next = !self.full.q.val();
        if self.full.q.val() {
            if self.tready.val() {
                self.full.d.next = false;
                self.beat.d.next = 0.into();
                self.keep.d.next = 0.into();
                self.lane.d.next = 0.into();
            }
        } else if self.valid.val() {
            self.beat.d.next =
                self.beat.q.val() | (bit_cast::<128, 8>(self.data.val()) << (self.lane.q.val() << 3));
            self.keep.d.next = self.keep.q.val() | (bits::<16>(1) << self.lane.q.val());
            self.lane.d.next = self.lane.q.val() + 1;
            self.pos.d.next = self.pos.q.val() + 1;
            self.last.d.next = false;
            if self.pos.q.val() == self.frame_m1.val() {
                self.pos.d.next = 0.into();
                self.full.d.next = true;
                self.last.d.next = true;
            } else if self.lane.q.val() == 15 {
                self.full.d.next = true;
            }
        }
    }
}
