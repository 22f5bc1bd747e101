//! One byte step of the link's CRC-8 (polynomial 0x1D5, MSB first, no reflection), as
//! `queens_core::frame` defines it. Combinational: eight shift-and-xor steps.

use queens_core::frame::CRC8_QUEENS;
use rust_hdl::prelude::*;

/// The low eight bits of the generator x^8 + x^7 + x^6 + x^4 + x^2 + 1.
pub const POLY: u8 = CRC8_QUEENS.poly;
/// Register value before the first payload byte.
pub const INIT: u8 = CRC8_QUEENS.init;

#[derive(LogicBlock)]
pub struct Crc8 {
    pub crc: Signal<In, Bits<8>>,
    pub data: Signal<In, Bits<8>>,
    pub out: Signal<Out, Bits<8>>,
    c: Signal<Local, Bits<8>>,
    poly: Constant<Bits<8>>,
}

impl Default for Crc8 {
    fn default() -> Self {
        Self {
            crc: Default::default(),
            data: Default::default(),
            out: Default::default(),
            c: Default::default(),
            poly: Constant::new(POLY.to_bits()),
        }
    }
}

impl Logic for Crc8 {
    #[hdl_gen]
    fn update(&mut self) {
        self.c.next = self.crc.val() ^ self.data.val();
        for _i in 0..8 {
            if self.c.val().get_bit(7) {
                self.c.next = (self.c.val() << 1) ^ self.poly.val();
            } else {
                self.c.next = self.c.val() << 1;
            }
        }
        self.out.next = self.c.val();
    }
}
