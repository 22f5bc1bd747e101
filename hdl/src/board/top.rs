//! The board's top level around the UART core: the reference clock buffer, the family's
//! clock primitive with the derived settings, a start-up gate that lets the compute clock
//! run only once the clock primitive has locked, the fan PWM, and the UART pins.
//!
//! Every register of the core starts from its configuration-time value (rust-hdl designs
//! have no reset net), so the gate is what keeps a half-locked clock away from them.

use super::clock::{Primitive, Settings};
use super::{Board, Family, Vendor};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    In,
    Out,
}

/// What a pin of the top is for: the constraint writers go by this, never by position or name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The reference oscillator (one pin, or P and N).
    RefClock,
    UartRx,
    UartTx,
    UartRts,
    UartCts,
    Fan,
    Reset,
    /// Held at a fixed level.
    Tie,
    PcieRefClock,
    PcieReset,
}

impl Role {
    /// Clock pins are timed; every other pin is asynchronous to the compute clock.
    pub fn is_clock(self) -> bool {
        matches!(self, Role::RefClock | Role::PcieRefClock)
    }
}

/// A pin of the top level, as the constraints name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    pub role: Role,
    pub dir: Dir,
    pub pin: String,
    pub standard: String,
}

fn port(name: &str, role: Role, dir: Dir, pin: &str, standard: &str) -> Port {
    Port {
        name: name.into(),
        role,
        dir,
        pin: pin.into(),
        standard: standard.into(),
    }
}

/// The top's pins, in port order.
pub fn ports(b: &Board) -> Vec<Port> {
    let c = &b.clock;
    let mut v = if c.differential {
        vec![
            port("clk_p", Role::RefClock, Dir::In, &c.pins[0], &c.standard),
            port("clk_n", Role::RefClock, Dir::In, &c.pins[1], &c.standard),
        ]
    } else {
        vec![port("clk", Role::RefClock, Dir::In, &c.pins[0], &c.standard)]
    };
    let u = &b.uart;
    v.push(port("uart_rx", Role::UartRx, Dir::In, &u.rx, &u.standard));
    v.push(port("uart_tx", Role::UartTx, Dir::Out, &u.tx, &u.standard));
    if let (Some(rts), Some(cts)) = (&u.rts, &u.cts) {
        v.push(port("uart_rts", Role::UartRts, Dir::In, rts, &u.standard));
        v.push(port("uart_cts", Role::UartCts, Dir::Out, cts, &u.standard));
    }
    if let Some(f) = &b.fan {
        v.push(port("fan_pwm", Role::Fan, Dir::Out, &f.pin, &f.standard));
    }
    if let Some(r) = &b.reset {
        let name = if r.active_low { "reset_n" } else { "reset" };
        v.push(port(name, Role::Reset, Dir::In, &r.pin, &r.standard));
    }
    for t in &b.tie {
        v.push(port(&t.name, Role::Tie, Dir::Out, &t.pin, &t.standard));
    }
    v
}

/// Bits of the fan PWM counter: a period of 2^14 compute cycles (about 15 kHz at 250 MHz).
const PWM_BITS: u32 = 14;

/// The fan's PWM on clock `clk`: high for the board's duty of every 2^PWM_BITS cycles.
fn fan_pwm(b: &Board, clk: &str) -> String {
    let Some(fan) = &b.fan else {
        return String::new();
    };
    let period = 1u64 << PWM_BITS;
    let duty = ((fan.duty * period as f64).round() as u64).min(period);
    format!(
        "    // Fan: {PWM_BITS}-bit PWM, high for {duty} of every {period} cycles of {clk}.
    reg [{hi}:0] pwm = 0;
    always @(posedge {clk}) pwm <= pwm + 1'b1;
    assign fan_pwm = {{1'b0, pwm}} < {w}'d{duty};
",
        hi = PWM_BITS - 1,
        w = PWM_BITS + 1,
    )
}

/// A Xilinx PLL or MMCM `name` with its divider and multiplier parameters `counters` and its
/// ports but the lock and reset (`ports`, each unused output named and left open).
fn xilinx_clock(name: &str, period_ns: f64, counters: &str, ports: &str, pll_reset: &str) -> String {
    format!(
        "    wire clk_fb;
    {name} #(
        .BANDWIDTH(\"OPTIMIZED\"), .CLKIN1_PERIOD({period_ns:.3}),
        {counters},
        .CLKOUT0_DUTY_CYCLE(0.5), .CLKOUT0_PHASE(0.0), .STARTUP_WAIT(\"FALSE\")
    ) pll (
        {ports}
        .LOCKED(locked), .PWRDWN(1'b0), .RST({pll_reset})
    );
"
    )
}

/// The clock primitive's instance: `clk_ref` in, `clk_pll` and `locked` out.
fn primitive(s: &Settings, fin_hz: u64, pll_reset: &str) -> String {
    let period_ns = 1e9 / fin_hz as f64;
    let (d, m, o) = (s.divide, s.multiply, s.output_divide);
    match s.primitive {
        Primitive::Plle2Base => xilinx_clock(
            "PLLE2_BASE",
            period_ns,
            &format!(".DIVCLK_DIVIDE({d}), .CLKFBOUT_MULT({m}), .CLKOUT0_DIVIDE({o})"),
            ".CLKIN1(clk_ref), .CLKFBIN(clk_fb), .CLKFBOUT(clk_fb), .CLKOUT0(clk_pll),
        .CLKOUT1(), .CLKOUT2(), .CLKOUT3(), .CLKOUT4(), .CLKOUT5(),",
            pll_reset,
        ),
        Primitive::MmcmBase => xilinx_clock(
            "MMCM_BASE",
            period_ns,
            &format!(".DIVCLK_DIVIDE({d}), .CLKFBOUT_MULT_F({m}.000), .CLKOUT0_DIVIDE_F({o}.000)"),
            ".CLKIN1(clk_ref), .CLKFBIN(clk_fb), .CLKFBOUT(clk_fb), .CLKFBOUTB(), .CLKOUT0(clk_pll),
        .CLKOUT0B(), .CLKOUT1(), .CLKOUT1B(), .CLKOUT2(), .CLKOUT2B(), .CLKOUT3(), .CLKOUT3B(),
        .CLKOUT4(), .CLKOUT5(), .CLKOUT6(),",
            pll_reset,
        ),
        // UltraScale+: the advanced MMCM (UG974 has no MMCME4_BASE), integer counters, the
        // dynamic ports tied off.
        Primitive::Mmcme4Adv => xilinx_clock(
            "MMCME4_ADV",
            period_ns,
            &format!(".DIVCLK_DIVIDE({d}), .CLKFBOUT_MULT_F({m}.000), .CLKOUT0_DIVIDE_F({o}.000)"),
            ".CLKIN1(clk_ref), .CLKIN2(1'b0), .CLKINSEL(1'b1), .CLKFBIN(clk_fb), .CLKFBOUT(clk_fb),
        .CLKFBOUTB(), .CLKOUT0(clk_pll), .CLKOUT0B(), .CLKOUT1(), .CLKOUT1B(), .CLKOUT2(),
        .CLKOUT2B(), .CLKOUT3(), .CLKOUT3B(), .CLKOUT4(), .CLKOUT5(), .CLKOUT6(),
        .CDDCREQ(1'b0), .CDDCDONE(), .DADDR(7'd0), .DCLK(1'b0), .DEN(1'b0), .DI(16'd0),
        .DO(), .DRDY(), .DWE(1'b0), .PSCLK(1'b0), .PSEN(1'b0), .PSINCDEC(1'b0), .PSDONE(),
        .CLKINSTOPPED(), .CLKFBSTOPPED(),",
            pll_reset,
        ),
        Primitive::Altpll => format!(
            "    wire [9:0] pll_clks;
    // The megafunction picks its own counters for the ratio; ours (N = {d}, M = {m},
    // C = {o}, VCO {vco:.1} MHz) show that the ratio is reachable within the VCO range.
    altpll #(
        .intended_device_family(\"Stratix IV\"), .lpm_type(\"altpll\"),
        .operation_mode(\"NORMAL\"), .pll_type(\"AUTO\"), .width_clock(10),
        .inclk0_input_frequency({period_ps}),
        .clk0_multiply_by({m}), .clk0_divide_by({dd}), .clk0_duty_cycle(50), .clk0_phase_shift(\"0\"),
        .port_inclk0(\"PORT_USED\"), .port_clk0(\"PORT_USED\"), .port_locked(\"PORT_USED\"),
        .port_areset(\"PORT_USED\")
    ) pll (
        .inclk({{1'b0, clk_ref}}), .areset({pll_reset}), .clk(pll_clks), .locked(locked)
    );
    assign clk_pll = pll_clks[0];
",
            d = s.divide,
            m = s.multiply,
            o = s.output_divide,
            dd = s.divide * s.output_divide,
            vco = s.vco_hz(fin_hz as f64) / 1e6,
            period_ps = (1e12 / fin_hz as f64).round() as u64,
        ),
        // As Project Trellis' `ecppll` writes it: fed back from CLKOP, the output shifted by
        // half a period as Lattice's tools do.
        Primitive::Ehxplll => format!(
            "    (* FREQUENCY_PIN_CLKI=\"{fin_mhz}\" *)
    (* FREQUENCY_PIN_CLKOP=\"{fout_mhz}\" *)
    (* ICP_CURRENT=\"12\" *) (* LPF_RESISTOR=\"8\" *) (* MFG_ENABLE_FILTEROPAMP=\"1\" *) (* MFG_GMCREF_SEL=\"2\" *)
    EHXPLLL #(
        .PLLRST_ENA(\"{rst_ena}\"), .INTFB_WAKE(\"DISABLED\"), .STDBY_ENABLE(\"DISABLED\"),
        .DPHASE_SOURCE(\"DISABLED\"), .OUTDIVIDER_MUXA(\"DIVA\"), .OUTDIVIDER_MUXB(\"DIVB\"),
        .OUTDIVIDER_MUXC(\"DIVC\"), .OUTDIVIDER_MUXD(\"DIVD\"),
        .CLKI_DIV({d}), .CLKFB_DIV({m}), .FEEDBK_PATH(\"CLKOP\"),
        .CLKOP_ENABLE(\"ENABLED\"), .CLKOP_DIV({o}), .CLKOP_CPHASE({cphase}), .CLKOP_FPHASE(0)
    ) pll (
        .RST({pll_reset}), .STDBY(1'b0), .CLKI(clk_ref), .CLKOP(clk_pll), .CLKFB(clk_pll),
        .CLKINTFB(), .PHASESEL0(1'b0), .PHASESEL1(1'b0), .PHASEDIR(1'b1), .PHASESTEP(1'b1),
        .PHASELOADREG(1'b1), .PLLWAKESYNC(1'b0), .ENCLKOP(1'b0), .LOCK(locked)
    );
",
            fin_mhz = mhz(fin_hz as f64),
            fout_mhz = mhz(s.output_hz(fin_hz as f64)),
            rst_ena = if pll_reset == "1'b0" { "DISABLED" } else { "ENABLED" },
            d = s.divide,
            m = s.multiply,
            o = s.output_divide,
            cphase = s.ehxplll_cphase(fin_hz as f64),
        ),
    }
}

/// A frequency in MHz as `ecppll` writes it: up to three decimals, no trailing zeros.
fn mhz(hz: f64) -> String {
    let s = format!("{:.3}", hz / 1e6);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The top level `module_name` for board `b`, with clock settings `s`, around the UART top
/// `core_top` (ports clock, uart_rx, uart_tx, idle).
pub fn top_verilog(b: &Board, s: &Settings, units: usize, module_name: &str, core_top: &str) -> String {
    let ps = ports(b);
    let list: Vec<&str> = ps.iter().map(|p| p.name.as_str()).collect();
    let decls: String = ps
        .iter()
        .map(|p| {
            format!(
                "    {} wire {};\n",
                if p.dir == Dir::In { "input" } else { "output" },
                p.name
            )
        })
        .collect();
    let xilinx = b.vendor() == Vendor::Xilinx;
    let clk_in = if b.clock.differential && b.family == Family::Virtexuplus {
        // UltraScale has no IBUFGDS (UG974): the plain differential buffer.
        "    IBUFDS ref_buf(.I(clk_p), .IB(clk_n), .O(clk_ref));\n".to_string()
    } else if b.clock.differential {
        "    IBUFGDS ref_buf(.I(clk_p), .IB(clk_n), .O(clk_ref));\n".to_string()
    } else if xilinx {
        "    IBUFG ref_buf(.I(clk), .O(clk_ref));\n".to_string()
    } else {
        "    assign clk_ref = clk;\n".to_string()
    };
    let ties: String = b
        .tie
        .iter()
        .map(|t| format!("    assign {} = 1'b{};\n", t.name, u8::from(t.high)))
        .collect();
    let pll_reset = match &b.reset {
        Some(r) if r.active_low => "~reset_n",
        Some(_) => "reset",
        None => "1'b0",
    };
    let buffers = match b.vendor() {
        Vendor::Xilinx => {
            "    // An ungated copy runs the start-up gate and the fan; the gated one the array.
    BUFG free_buf(.I(clk_pll), .O(clk_free));
    BUFGCE run_buf(.I(clk_pll), .CE(start[3]), .O(clk_run));
"
        }
        Vendor::Altera => {
            "    // An ungated copy runs the start-up gate and the fan; the gated one the array.
    assign clk_free = clk_pll;
    altclkctrl #(
        .intended_device_family(\"Stratix IV\"), .number_of_clocks(1), .clock_type(\"GLOBAL CLOCK\"),
        .ena_register_mode(\"falling edge\"), .lpm_type(\"altclkctrl\")
    ) run_buf (.inclk({3'b000, clk_pll}), .clkselect(2'b00), .ena(start[3]), .outclk(clk_run));
"
        }
        Vendor::Lattice => {
            "    // An ungated copy runs the start-up gate; the gated one (a global clock's DCC) the array.
    assign clk_free = clk_pll;
    DCCA run_buf(.CLKI(clk_pll), .CE(start[3]), .CLKO(clk_run));
"
        }
    };
    let fin = b.clock.hz as f64;
    format!(
        "// Board top for {name} ({part}): {fin_mhz:.3} MHz reference -> {prim} (divide {d},
// multiply {m}, output divide {o}; VCO {vco:.1} MHz) -> {fout:.3} MHz compute clock;
// {units} solver units behind the UART; {fan_note}.
module {module_name}({list});
{decls}
    wire clk_ref, clk_pll, clk_free, clk_run, locked;
{clk_in}{ties}{prim_inst}
    // Start-up gate: set asynchronously while the clock is not locked, released in step with
    // the clock four cycles after lock.
    reg [3:0] start = 4'b0000;
    always @(posedge clk_free or negedge locked)
        if (!locked) start <= 4'b0000;
        else start <= {{start[2:0], 1'b1}};
{buffers}
{fan}{flow}    wire idle;
    {core_top} core(.clock(clk_run), .uart_rx(uart_rx), .uart_tx(uart_tx), .idle(idle));
endmodule
",
        name = b.name,
        part = b.part,
        fin_mhz = fin / 1e6,
        prim = s.primitive.name(),
        d = s.divide,
        m = s.multiply,
        o = s.output_divide,
        vco = s.vco_hz(fin) / 1e6,
        fout = s.output_hz(fin) / 1e6,
        fan_note = match &b.fan {
            Some(f) => format!("fan at {:.0}% duty", f.duty * 100.0),
            None => "no fan".into(),
        },
        flow = if b.uart.rts.is_some() {
            "    // No flow control: the host's request to send is looped back as clear to send.
    assign uart_cts = uart_rts;
"
        } else {
            ""
        },
        list = list.join(", "),
        prim_inst = primitive(s, b.clock.hz, pll_reset),
        fan = fan_pwm(b, "clk_free"),
    )
}

/// The pins of the PCIe top (the lanes are placed by the XDMA IP's own constraints).
pub fn pcie_ports(b: &Board) -> Vec<Port> {
    let p = b.pcie.as_ref().expect("a board with a [pcie] table");
    let mut v = vec![
        port("pcie_refclk_p", Role::PcieRefClock, Dir::In, &p.refclk[0], ""),
        port("pcie_refclk_n", Role::PcieRefClock, Dir::In, &p.refclk[1], ""),
        port(
            "pcie_perst_n",
            Role::PcieReset,
            Dir::In,
            &p.perst,
            &p.perst_standard,
        ),
    ];
    if let Some(f) = &b.fan {
        v.push(port("fan_pwm", Role::Fan, Dir::Out, &f.pin, &f.standard));
    }
    v
}

/// The bytes of XDMA's AXI4-Stream beats on a board: 16 (128 bits) on the 7-series boards'
/// x8 Gen2 links, 64 (512 bits) for UltraScale+ at x16 Gen3 (the width XDMA takes there at
/// 250 MHz).
pub fn pcie_stream_bytes(b: &Board) -> u32 {
    match b.family {
        Family::Virtexuplus if b.pcie.as_ref().is_some_and(|p| p.lanes * p.gen >= 32) => 64,
        Family::Virtexuplus if b.pcie.as_ref().is_some_and(|p| p.lanes * p.gen >= 16) => 32,
        _ => 16,
    }
}

/// The PCIe top: Xilinx's XDMA IP (module `xdma_0`, generated by the build script with one
/// streaming channel each way at 250 MHz) feeding the stream top `stream_top` (128-bit
/// beats), through Xilinx's AXI4-Stream width converters (`axis_h2c_0`, `axis_c2h_0`, also
/// generated) where XDMA's beats are wider; the array runs on the IP's 250 MHz user clock.
pub fn pcie_top_verilog(b: &Board, units: usize, module_name: &str, stream_top: &str) -> String {
    let p = b.pcie.as_ref().expect("a board with a [pcie] table");
    let lanes = p.lanes;
    let hi = lanes - 1;
    let bytes = pcie_stream_bytes(b);
    let (wide, keep) = (bytes * 8 - 1, bytes - 1);
    let fan = b.fan.is_some();
    // UltraScale+: IBUFDS_GTE4, its O to the transceivers (sys_clk_gt) and its ODIV2 to the
    // IP's logic (sys_clk), as PG195 wires them.
    let (refclk, xdma_clk) = if b.family == Family::Virtexuplus {
        (
            "    wire refclk_gt;\n    IBUFDS_GTE4 refclk_buf(.I(pcie_refclk_p), .IB(pcie_refclk_n), .CEB(1'b0), .O(refclk_gt), .ODIV2(refclk));\n",
            ".sys_clk(refclk), .sys_clk_gt(refclk_gt)",
        )
    } else {
        (
            "    IBUFDS_GTE2 refclk_buf(.I(pcie_refclk_p), .IB(pcie_refclk_n), .CEB(1'b0), .O(refclk), .ODIV2());\n",
            ".sys_clk(refclk)",
        )
    };
    let converters = if bytes == 16 {
        "    // XDMA's beats are the stream top's: no converter.
    assign s_tdata = h2c_tdata; assign s_tkeep = h2c_tkeep; assign s_tvalid = h2c_tvalid;
    assign h2c_tready = s_tready; assign s_tlast = h2c_tlast;
    assign c2h_tdata = m_tdata; assign c2h_tkeep = m_tkeep; assign c2h_tvalid = m_tvalid;
    assign m_tready = c2h_tready; assign c2h_tlast = m_tlast;
"
        .to_string()
    } else {
        format!(
            "    // Xilinx's AXI4-Stream width converters ({bytes} bytes <-> 16), generated by build.tcl.
    axis_h2c_0 h2c_width(.aclk(clk), .aresetn(resetn),
        .s_axis_tdata(h2c_tdata), .s_axis_tkeep(h2c_tkeep), .s_axis_tvalid(h2c_tvalid),
        .s_axis_tready(h2c_tready), .s_axis_tlast(h2c_tlast),
        .m_axis_tdata(s_tdata), .m_axis_tkeep(s_tkeep), .m_axis_tvalid(s_tvalid),
        .m_axis_tready(s_tready), .m_axis_tlast(s_tlast));
    axis_c2h_0 c2h_width(.aclk(clk), .aresetn(resetn),
        .s_axis_tdata(m_tdata), .s_axis_tkeep(m_tkeep), .s_axis_tvalid(m_tvalid),
        .s_axis_tready(m_tready), .s_axis_tlast(m_tlast),
        .m_axis_tdata(c2h_tdata), .m_axis_tkeep(c2h_tkeep), .m_axis_tvalid(c2h_tvalid),
        .m_axis_tready(c2h_tready), .m_axis_tlast(c2h_tlast));
"
        )
    };
    format!(
        "// PCIe top for {name} ({part}): x{lanes} Gen{gen} through XDMA (AXI4-Stream, {bits}-bit,
// one channel each way); {units} solver units on the IP's 250 MHz user clock; {fan_note}.
module {module_name}(pcie_refclk_p, pcie_refclk_n, pcie_perst_n, pci_exp_txp, pci_exp_txn,
    pci_exp_rxp, pci_exp_rxn{fan_port});
    input wire pcie_refclk_p;
    input wire pcie_refclk_n;
    input wire pcie_perst_n;
    output wire [{hi}:0] pci_exp_txp;
    output wire [{hi}:0] pci_exp_txn;
    input wire [{hi}:0] pci_exp_rxp;
    input wire [{hi}:0] pci_exp_rxn;
{fan_decl}
    wire refclk, perst_n, clk, resetn, link_up;
{refclk}    IBUF perst_buf(.I(pcie_perst_n), .O(perst_n));

    wire [{wide}:0] h2c_tdata, c2h_tdata;
    wire [{keep}:0] h2c_tkeep, c2h_tkeep;
    wire h2c_tvalid, h2c_tready, h2c_tlast, c2h_tvalid, c2h_tready, c2h_tlast;
    xdma_0 xdma(
        {xdma_clk}, .sys_rst_n(perst_n), .user_lnk_up(link_up),
        .pci_exp_txp(pci_exp_txp), .pci_exp_txn(pci_exp_txn),
        .pci_exp_rxp(pci_exp_rxp), .pci_exp_rxn(pci_exp_rxn),
        .axi_aclk(clk), .axi_aresetn(resetn),
        .usr_irq_req(1'b0), .usr_irq_ack(), .msi_enable(), .msi_vector_width(),
        .m_axis_h2c_tdata_0(h2c_tdata), .m_axis_h2c_tkeep_0(h2c_tkeep),
        .m_axis_h2c_tvalid_0(h2c_tvalid), .m_axis_h2c_tready_0(h2c_tready),
        .m_axis_h2c_tlast_0(h2c_tlast),
        .s_axis_c2h_tdata_0(c2h_tdata), .s_axis_c2h_tkeep_0(c2h_tkeep),
        .s_axis_c2h_tvalid_0(c2h_tvalid), .s_axis_c2h_tready_0(c2h_tready),
        .s_axis_c2h_tlast_0(c2h_tlast));

    wire [127:0] s_tdata, m_tdata;
    wire [15:0] s_tkeep, m_tkeep;
    wire s_tvalid, s_tready, s_tlast, m_tvalid, m_tready, m_tlast;
{converters}
{fan}
    // The array keeps its work across a link reset: the host resends what it lost.
    wire idle;
    {stream_top} core(.clock(clk),
        .s_axis_tdata(s_tdata), .s_axis_tkeep(s_tkeep), .s_axis_tvalid(s_tvalid),
        .s_axis_tready(s_tready), .s_axis_tlast(s_tlast),
        .m_axis_tdata(m_tdata), .m_axis_tkeep(m_tkeep), .m_axis_tvalid(m_tvalid),
        .m_axis_tready(m_tready), .m_axis_tlast(m_tlast), .idle(idle));
endmodule
",
        name = b.name,
        part = b.part,
        gen = p.gen,
        bits = bytes * 8,
        fan_note = match &b.fan {
            Some(f) => format!("fan at {:.0}% duty", f.duty * 100.0),
            None => "no fan".into(),
        },
        fan_port = if fan { ", fan_pwm" } else { "" },
        fan_decl = if fan { "    output wire fan_pwm;\n" } else { "" },
        fan = fan_pwm(b, "clk"),
    )
}
