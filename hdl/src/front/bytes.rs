//! The byte streams between a core and its link, as one bundle of ports: frames in
//! (`rx_*`) and out (`tx_*`). A byte moves when valid and ready are both high at a rising
//! edge; `tx_last` marks a frame's last byte. In Verilog the ports are `<bundle>$rx_data`, ...

use rust_hdl::prelude::*;

#[derive(LogicInterface, Default)]
pub struct Bytes {
    pub rx_data: Signal<In, Bits<8>>,
    pub rx_valid: Signal<In, Bit>,
    /// The core takes the byte offered: a source that can wait (a simulator, a PCIe link)
    /// holds it while this is low; a UART cannot, and the frame it starts is lost whole.
    pub rx_ready: Signal<Out, Bit>,
    pub tx_data: Signal<Out, Bits<8>>,
    pub tx_valid: Signal<Out, Bit>,
    pub tx_last: Signal<Out, Bit>,
    pub tx_ready: Signal<In, Bit>,
}
