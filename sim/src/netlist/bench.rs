//! The bench around a board top: the simulator drives a clock and the UART's two pins, and
//! the bench wires them to the top's pins by their role, as the board's connectors would.

use queens_hdl::board::toolchain::TOP;
use queens_hdl::board::top::{ports, Dir, Role};
use queens_hdl::board::Board;

/// The bench's module name (ports clock, uart_rx, uart_tx).
pub const BENCH: &str = "queens_bench";

/// The bench for board `b`'s UART top: the reference oscillator on the clock (a differential
/// pair as P and N), the host's serial line on the UART, the reset button released, the
/// host's request to send asserted (low), every output but the UART's left open.
pub fn bench_verilog(b: &Board) -> String {
    let conns: Vec<String> = ports(b)
        .iter()
        .map(|p| {
            let to = match (p.role, p.dir) {
                (Role::RefClock, _) if p.name.ends_with("_n") => "~clock".to_string(),
                (Role::RefClock, _) => "clock".into(),
                (Role::UartRx, _) => "uart_rx".into(),
                (Role::UartTx, _) => "uart_tx".into(),
                (Role::UartRts, _) => "1'b0".into(),
                (Role::Reset, _) => match &b.reset {
                    Some(r) if r.active_low => "1'b1".into(),
                    _ => "1'b0".into(),
                },
                (_, Dir::Out) => String::new(),
                (_, Dir::In) => "1'b0".into(),
            };
            format!(".{}({to})", p.name)
        })
        .collect();
    format!(
        "// The bench: {name}'s top driven through its pins.
module {BENCH}(clock, uart_rx, uart_tx);
    input wire clock;
    input wire uart_rx;
    output wire uart_tx;
    {TOP} board({conns});
endmodule
",
        name = b.name,
        conns = conns.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_differential_clock_gets_both_phases_and_every_pin_is_wired() {
        let b = Board::load("kc705").unwrap();
        let v = bench_verilog(&b);
        assert!(v.contains(".clk_p(clock)") && v.contains(".clk_n(~clock)"), "{v}");
        assert!(
            v.contains(".uart_rx(uart_rx)") && v.contains(".uart_tx(uart_tx)"),
            "{v}"
        );
        for p in ports(&b) {
            assert!(v.contains(&format!(".{}(", p.name)), "{} unwired: {v}", p.name);
        }
        let u = bench_verilog(&Board::load("ulx3s").unwrap());
        assert!(u.contains(".clk(clock)") && u.contains(".wifi_gpio0()"), "{u}");
    }
}
