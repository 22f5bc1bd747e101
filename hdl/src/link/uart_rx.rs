//! UART receiver, 8N1: a two-flip-flop synchroniser on the pin, 8 samples per bit, a start
//! bit accepted after 4 low samples (its middle), each bit sampled 8 ticks later. A byte
//! whose stop bit is low (a framing error or a break) is dropped.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct UartRx {
    pub clock: Signal<In, Clock>,
    /// The pin, asynchronous to the clock.
    pub rxd: Signal<In, Bit>,
    pub data: Signal<Out, Bits<8>>,
    /// One-cycle strobe: `data` holds a received byte.
    pub valid: Signal<Out, Bit>,
    s1: DFF<Bit>,
    s2: DFF<Bit>,
    /// Counts down the cycles of a sample; `tick` is registered from its zero, so that the
    /// 16-bit compare ends in a flip-flop and the bit logic starts from one (a compare
    /// feeding it directly was a front-end path of five LUTs on the full ULX3S).
    div: DFF<Bits<16>>,
    tick: DFF<Bit>,
    busy: DFF<Bit>,
    phase: DFF<Bits<3>>,
    bitn: DFF<Bits<4>>,
    sh: DFF<Bits<8>>,
    strobe: DFF<Bit>,
    /// Clock cycles per sample, minus one.
    div_m1: Constant<Bits<16>>,
}

impl UartRx {
    /// `cycles_per_sample` = clock / (8 × baud).
    pub fn new(cycles_per_sample: u32) -> Self {
        crate::link::check_divisor(cycles_per_sample);
        Self {
            clock: Default::default(),
            rxd: Default::default(),
            data: Default::default(),
            valid: Default::default(),
            s1: DFF::default(),
            s2: DFF::default(),
            div: Default::default(),
            busy: Default::default(),
            phase: Default::default(),
            bitn: Default::default(),
            sh: Default::default(),
            strobe: Default::default(),
            tick: Default::default(),
            div_m1: Constant::new((cycles_per_sample - 1).to_bits()),
        }
    }
}

impl Logic for UartRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1, s2, div, tick, busy, phase, bitn, sh, strobe);
        // The line idles high; the synchroniser starts there too (see `s1`, `s2` below).
        self.s1.d.next = !self.rxd.val();
        self.s2.d.next = self.s1.q.val();
        // A tick every `cycles_per_sample` cycles (every cycle when that is 1).
        self.tick.d.next = self.div.q.val() == 0;
        self.div.d.next = self.div.q.val() - 1;
        if self.div.q.val() == 0 {
            self.div.d.next = self.div_m1.val();
        }
        self.strobe.d.next = false;
        // s2 holds the inverted line, so that the flip-flops' initial zero means idle.
        if self.tick.q.val() {
            if !self.busy.q.val() {
                self.phase.d.next = 0.into();
                if self.s2.q.val() {
                    self.phase.d.next = self.phase.q.val() + 1;
                    if self.phase.q.val() == 3 {
                        self.busy.d.next = true;
                        self.phase.d.next = 0.into();
                        self.bitn.d.next = 0.into();
                    }
                }
            } else {
                self.phase.d.next = self.phase.q.val() + 1;
                if self.phase.q.val() == 7 {
                    if self.bitn.q.val() == 8 {
                        self.busy.d.next = false;
                        self.phase.d.next = 0.into();
                        self.strobe.d.next = !self.s2.q.val();
                    } else {
                        // LSB first: the new bit enters at the top.
                        self.sh.d.next = self.sh.q.val() >> 1;
                        if !self.s2.q.val() {
                            self.sh.d.next = (self.sh.q.val() >> 1) | 0x80;
                        }
                        self.bitn.d.next = self.bitn.q.val() + 1;
                    }
                }
            }
        }
        self.data.next = self.sh.q.val();
        self.valid.next = self.strobe.q.val();
    }
}
