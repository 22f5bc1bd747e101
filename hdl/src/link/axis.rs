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

/// Frames of any length (results, identification answers) end a beat each: the core marks
/// their last byte.
#[derive(LogicBlock, Default)]
pub struct AxisOut {
    pub clock: Signal<In, Clock>,
    /// The core's bytes (whole frames, back to back); `last` marks a frame's last byte.
    pub data: Signal<In, Bits<8>>,
    pub valid: Signal<In, Bit>,
    pub last: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
    pub tdata: Signal<Out, Bits<128>>,
    pub tkeep: Signal<Out, Bits<16>>,
    pub tvalid: Signal<Out, Bit>,
    pub tready: Signal<In, Bit>,
    pub tlast: Signal<Out, Bit>,
    beat: DFF<Bits<128>>,
    keep: DFF<Bits<16>>,
    /// Next free lane.
    lane: DFF<Bits<8>>,
    full: DFF<Bit>,
    /// The beat ends a frame.
    ends: DFF<Bit>,
}

impl Logic for AxisOut {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, beat, keep, lane, full, ends);
        self.tdata.next = self.beat.q.val();
        self.tkeep.next = self.keep.q.val();
        self.tvalid.next = self.full.q.val();
        self.tlast.next = self.ends.q.val();
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
            self.ends.d.next = false;
            if self.last.val() {
                self.full.d.next = true;
                self.ends.d.next = true;
            } else if self.lane.q.val() == 15 {
                self.full.d.next = true;
            }
        }
    }
}
