//! UART transmitter, 8N1. The pin is a flip-flop output (the bottom of the shift register,
//! which idles at one).

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct UartTx {
    pub clock: Signal<In, Clock>,
    pub data: Signal<In, Bits<8>>,
    /// Send `data` (taken when `ready`).
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
    pub txd: Signal<Out, Bit>,
    /// Stop bit, data LSB first, start bit; stored inverted so that the initial zeros idle
    /// the line high.
    sh: DFF<Bits<10>>,
    left: DFF<Bits<4>>,
    /// `left` is 0: `ready` from a flip-flop, since the framer's wide registers hang on it.
    idle: DFFWithInit<Bit>,
    div: DFF<Bits<20>>,
    /// Clock cycles per bit, minus one.
    bit_m1: Constant<Bits<20>>,
}

impl UartTx {
    /// `cycles_per_sample` = clock / (8 × baud), as for the receiver.
    pub fn new(cycles_per_sample: u32) -> Self {
        crate::link::check_divisor(cycles_per_sample);
        Self {
            clock: Default::default(),
            data: Default::default(),
            valid: Default::default(),
            ready: Default::default(),
            txd: Default::default(),
            sh: Default::default(),
            left: Default::default(),
            idle: DFFWithInit::new(true),
            div: Default::default(),
            bit_m1: Constant::new((8 * cycles_per_sample - 1).to_bits()),
        }
    }
}

impl Logic for UartTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sh, left, idle, div);
        self.ready.next = self.idle.q.val();
        if self.idle.q.val() {
            if self.valid.val() {
                // Start bit 0, data, stop bit 1, all inverted. (The whole 10-bit word is
                // inverted: Verilog would widen an inverted byte with ones.)
                self.sh.d.next = !((bit_cast::<10, 8>(self.data.val()) << 1) | 0x200);
                self.left.d.next = 10.into();
                self.div.d.next = 0.into();
                self.idle.d.next = false;
            }
        } else {
            self.div.d.next = self.div.q.val() + 1;
            if self.div.q.val() == self.bit_m1.val() {
                self.div.d.next = 0.into();
                self.sh.d.next = self.sh.q.val() >> 1;
                self.left.d.next = self.left.q.val() - 1;
                self.idle.d.next = self.left.q.val() == 1;
            }
        }
        self.txd.next = !self.sh.q.val().get_bit(0);
    }
}
