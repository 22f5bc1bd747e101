//! Our models of the cells a netlist runs on, against yosys' models of the cells they stand
//! for: nextpnr-ecp5's packed half slices (carry, LUT-RAM with its write port, wide-function
//! mux) and flip-flop against CCU2C, TRELLIS_DPR16X4, PFUMX and TRELLIS_FF, driven with
//! random inputs under Verilator; the clock primitives refusing settings the clock solver did
//! not compute; and our UltraScale+ block RAMs against a plain memory. Needs Verilator and
//! the pinned yosys (scripts/test.sh installs both).

use queens_sim::netlist::{cell_models, Flow};
use std::path::Path;
use std::process::Command;

/// The packed cells and the cells they came from, side by side on the same inputs; `bad`
/// rises on the first difference.
const PACKED_VS_UNPACKED: &str = r#"
module tb(input clk, input [31:0] r0, input [31:0] r1, output reg bad);
    // A CCU2C against two packed halves.
    wire s0a, s1a, couta, s0b, s1b, coutb, mid;
    CCU2C #(.INIT0(16'h6a5c), .INIT1(16'h9933), .INJECT1_0("NO"), .INJECT1_1("YES")) ccu2c (
        .CIN(r0[8]), .A0(r0[0]), .B0(r0[1]), .C0(r0[2]), .D0(r0[3]), .A1(r0[4]), .B1(r0[5]),
        .C1(r0[6]), .D1(r0[7]), .S0(s0a), .S1(s1a), .COUT(couta));
    QUEENS_COMB #(.MODE("CCU2"), .INITVAL(16'h6a5c), .CCU2_INJECT1("NO")) h0(.A(r0[0]),
        .B(r0[1]), .C(r0[2]), .D(r0[3]), .FCI(r0[8]), .F(s0b), .FCO(mid));
    QUEENS_COMB #(.MODE("CCU2"), .INITVAL(16'h9933), .CCU2_INJECT1("YES")) h1(.A(r0[4]),
        .B(r0[5]), .C(r0[6]), .D(r0[7]), .FCI(mid), .F(s1b), .FCO(coutb));
    // A LUT4 pair and its PFUMX against a packed half with the other LUT on F1.
    wire la, lb, muxa, fb, muxb;
    LUT4 #(.INIT(16'hbeef)) lut_a(.A(r0[9]), .B(r0[10]), .C(r0[11]), .D(r0[12]), .Z(la));
    LUT4 #(.INIT(16'h1234)) lut_b(.A(r0[9]), .B(r0[10]), .C(r0[11]), .D(r0[12]), .Z(lb));
    PFUMX pfumx(.ALUT(la), .BLUT(lb), .C0(r0[13]), .Z(muxa));
    QUEENS_COMB #(.INITVAL(16'h1234)) logic_b(.A(r0[9]), .B(r0[10]), .C(r0[11]), .D(r0[12]),
        .F1(la), .M(r0[13]), .F(fb), .OFX(muxb));
    // A TRELLIS_DPR16X4 against a RAMW and four DPRAM halves, wired as nextpnr packs them.
    wire [3:0] di = r1[3:0], wad = r1[7:4], rad = r1[11:8];
    wire [3:0] doa, dob, wado, wdo;
    TRELLIS_DPR16X4 #(.INITVAL(64'h0123456789abcdef)) dpr (.DI(di), .WAD(wad), .WRE(r1[12]),
        .WCK(clk), .RAD(rad), .DO(doa));
    TRELLIS_RAMW ramw(.D0(wad[0]), .B0(wad[1]), .C0(wad[2]), .A0(wad[3]), .C1(di[0]),
        .A1(di[1]), .D1(di[2]), .B1(di[3]), .WADO0(wado[0]), .WADO1(wado[1]), .WADO2(wado[2]),
        .WADO3(wado[3]), .WDO0(wdo[0]), .WDO1(wdo[1]), .WDO2(wdo[2]), .WDO3(wdo[3]));
    // nextpnr's INITVAL of bit k: word p at LUT index i, p = {i0, i2, i1, i3}.
    function [15:0] packed_init(input [63:0] v, input integer k);
        integer i;
        for (i = 0; i < 16; i = i + 1) packed_init[i] = v[4 * {i[0], i[2], i[1], i[3]} + k];
    endfunction
    genvar k;
    generate for (k = 0; k < 4; k = k + 1) begin : bits
        QUEENS_COMB #(.MODE("DPRAM"), .INITVAL(packed_init(64'h0123456789abcdef, k))) c(
            .D(rad[0]), .B(rad[1]), .C(rad[2]), .A(rad[3]), .WAD0(wado[0]), .WAD1(wado[1]),
            .WAD2(wado[2]), .WAD3(wado[3]), .WD(wdo[k]), .WRE(r1[12]), .WCK(clk), .F(dob[k]));
    end endgenerate
    // A flip-flop with asynchronous set against packed ones taking D through DI and M.
    wire qa, qb, qc;
    TRELLIS_FF #(.CEMUX("CE"), .REGSET("SET"), .SRMODE("ASYNC")) ff(.CLK(clk), .LSR(r1[13]),
        .CE(r1[14]), .DI(r1[15]), .Q(qa));
    QUEENS_FF #(.CEMUX("CE"), .REGSET("SET"), .SRMODE("ASYNC"), .SD("1")) ff_di(.CLK(clk),
        .LSR(r1[13]), .CE(r1[14]), .DI(r1[15]), .M(r1[16]), .Q(qb));
    QUEENS_FF #(.CEMUX("CE"), .REGSET("SET"), .SRMODE("ASYNC"), .SD("0")) ff_m(.CLK(clk),
        .LSR(r1[13]), .CE(r1[14]), .DI(r1[16]), .M(r1[15]), .Q(qc));
    initial bad = 0;
    always @(negedge clk)
        if ({s0a, s1a, couta} != {s0b, s1b, coutb} || muxa != muxb || lb != fb || doa != dob
                || qa != qb || qa != qc)
            bad <= 1;
endmodule
"#;

const RANDOM_MAIN: &str = r#"
#include "Vtb.h"
#include <cstdio>
int main() {
    Vtb t;
    unsigned long long x = 88172645463325252ull;
    auto rnd = [&] { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return unsigned(x); };
    for (int i = 0; i < 100000; i++) {
        t.r0 = rnd(); t.r1 = rnd();
        t.clk = 0; t.eval(); t.clk = 1; t.eval();
        if (t.bad) { printf("differ at step %d: r0 %08x r1 %08x\n", i, t.r0, t.r1); return 1; }
    }
    t.clk = 0; t.eval();
    printf("agree\n");
    return 0;
}
"#;

/// Builds `tb` (with the cell models of `flow` and `main`) in `dir` and runs it: its output
/// and whether it succeeded.
fn run(dir: &Path, flow: Flow, tb: &str, main: &str) -> (bool, String) {
    let models = cell_models(flow).expect("the pinned yosys and its cell library");
    std::fs::write(dir.join("tb.v"), format!("{tb}\n{models}")).unwrap();
    std::fs::write(dir.join("main.cpp"), main).unwrap();
    let build = Command::new("verilator")
        .current_dir(dir)
        .args([
            "--cc",
            "--exe",
            "--build",
            "-j",
            "2",
            "--top-module",
            "tb",
            "--no-timing",
        ])
        .args([
            "-Wno-fatal",
            "-Wno-lint",
            "-Wno-style",
            "-Wno-MULTIDRIVEN",
            "-o",
            "vtb",
        ])
        .args(["tb.v", "main.cpp"])
        .output()
        .expect("verilator is installed (scripts/test.sh installs it)");
    assert!(
        build.status.success(),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let out = Command::new(dir.join("obj_dir/vtb")).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

/// The settings the clock primitives check theirs against.
const ECP5_SETTINGS: &str =
    "`define EXPECT_CLKI_DIV 1\n`define EXPECT_CLKFB_DIV 4\n`define EXPECT_CLKOP_DIV 6\n";

#[test]
fn packed_ecp5_cells_behave_as_the_cells_nextpnr_packed() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, text) = run(
        dir.path(),
        Flow::Ecp5Routed,
        &format!("{ECP5_SETTINGS}{PACKED_VS_UNPACKED}"),
        RANDOM_MAIN,
    );
    assert!(ok && text.contains("agree"), "{text}");
}

#[test]
fn the_test_tells_a_wrong_packed_model() {
    // The same bench with the carry's two halves swapped: it must see the difference.
    let dir = tempfile::tempdir().unwrap();
    let swapped = PACKED_VS_UNPACKED.replace(
        ".INITVAL(16'h6a5c), .CCU2_INJECT1(\"NO\")) h0",
        ".INITVAL(16'h9933), .CCU2_INJECT1(\"NO\")) h0",
    );
    assert_ne!(swapped, PACKED_VS_UNPACKED);
    let (ok, text) = run(
        dir.path(),
        Flow::Ecp5Routed,
        &format!("{ECP5_SETTINGS}{swapped}"),
        RANDOM_MAIN,
    );
    assert!(!ok && text.contains("differ at step"), "{text}");
}

const PLL_MAIN: &str = r#"
#include "Vtb.h"
int main() {
    Vtb t;
    for (int i = 0; i < 200; i++) { t.clk = i & 1; t.eval(); }
    return t.locked ? 0 : 1;
}
"#;

#[test]
fn a_clock_primitive_refuses_settings_the_solver_did_not_compute() {
    let pll = |div: u32| {
        format!(
            "{ECP5_SETTINGS}module tb(input clk, output locked);
    wire clkop;
    EHXPLLL #(.CLKI_DIV(1), .CLKFB_DIV(4), .CLKOP_DIV({div})) pll(.CLKI(clk), .CLKFB(clkop),
        .RST(1'b0), .CLKOP(clkop), .LOCK(locked));
endmodule
"
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let (ok, text) = run(dir.path(), Flow::Ecp5Routed, &pll(6), PLL_MAIN);
    assert!(ok, "the solver's settings lock: {text}");
    let dir = tempfile::tempdir().unwrap();
    let (ok, text) = run(dir.path(), Flow::Ecp5Routed, &pll(5), PLL_MAIN);
    assert!(
        !ok && text.contains("CLKOP_DIV 5") && text.contains("clock solver"),
        "{text}"
    );

    let mmcm = |mult: &str| {
        format!(
            "`define EXPECT_DIVIDE 9\n`define EXPECT_MULTIPLY 64\n`define EXPECT_OUTPUT_DIVIDE 5\n
module tb(input clk, output locked);
    wire fb, out;
    PLLE2_BASE #(.DIVCLK_DIVIDE(9), .CLKFBOUT_MULT({mult}), .CLKOUT0_DIVIDE(5)) pll(
        .CLKIN1(clk), .CLKFBIN(fb), .CLKFBOUT(fb), .CLKOUT0(out), .LOCKED(locked),
        .PWRDWN(1'b0), .RST(1'b0));
endmodule
"
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let (ok, text) = run(dir.path(), Flow::Xc7Synthesized, &mmcm("64"), PLL_MAIN);
    assert!(ok, "{text}");
    let dir = tempfile::tempdir().unwrap();
    let (ok, text) = run(dir.path(), Flow::Xc7Synthesized, &mmcm("63"), PLL_MAIN);
    assert!(!ok && text.contains("CLKFBOUT_MULT 63"), "{text}");
}

/// The tally's increment on CCU2C cells against its generic form, 8 bits wide, on random
/// words, forwarded words, choices and clears.
fn increment_bench() -> String {
    use queens_hdl::emit::increment_verilog;
    use queens_hdl::ArbiterKind;
    let ours = increment_verilog(8, ArbiterKind::Ccu2c, "inc_ccu2c");
    let generic = increment_verilog(8, ArbiterKind::Adder, "inc_generic");
    format!(
        r#"{ours}
{generic}
module tb(input clk, input [31:0] r0, input [31:0] r1, output reg bad);
    wire [7:0] a, b;
    // Words near a carry's ends come often: all ones, all zeros.
    wire [7:0] w = r0[20] ? 8'hff : r0[21] ? 8'h00 : r0[7:0];
    inc_ccu2c x(.word(w), .fwd_word(r0[15:8]), .fwd(r0[16]), .clr(r0[17] & r0[18]), .sum(a));
    inc_generic y(.word(w), .fwd_word(r0[15:8]), .fwd(r0[16]), .clr(r0[17] & r0[18]), .sum(b));
    initial bad = 0;
    always @(posedge clk) if (a != b) bad <= 1;
endmodule
"#
    )
}

#[test]
fn the_tallys_ccu2c_increment_is_its_generic_form() {
    let dir = tempfile::tempdir().unwrap();
    // (The cell library's clock primitive wants its expected settings defined.)
    let bench = format!("{ECP5_SETTINGS}{}", increment_bench());
    let (ok, text) = run(dir.path(), Flow::Ecp5Routed, &bench, RANDOM_MAIN);
    assert!(ok && text.contains("agree"), "{text}");
    // And the bench sees a wrong cell: a bit half that ignores the forwarded bit.
    let wrong = bench.replacen("16'hCA00", "16'hAA00", 1);
    let (ok, text) = run(dir.path(), Flow::Ecp5Routed, &wrong, RANDOM_MAIN);
    assert!(!ok && text.contains("differ at step"), "{text}");
}

/// Our RAMB18E2 and RAMB36E2 against a memory written out plainly, as yosys maps a memory
/// onto them: port A writes with byte enables, port B reads the word before the write
/// (READ_FIRST), no output register; 16 words of each, from their INIT and INITP.
const BLOCK_RAMS: &str = r#"
module tb(input clk, input [31:0] r0, input [31:0] r1, input [31:0] r2, input [31:0] r3,
        output reg bad);
    localparam [255:0] D18 = 256'h0123456789abcdeffedcba9876543210_00112233445566778899aabbccddeeff;
    localparam [255:0] P18 = 256'hc3a5;
    localparam [255:0] D36 = 256'h89abcdef01234567_76543210fedcba98_a5a5a5a55a5a5a5a_0f0f0f0ff0f0f0f0;
    localparam [255:0] P36 = 256'h1234567890abcdef;
    wire [3:0] wa = r1[3:0], ra = r1[7:4];
    wire [15:0] do18;
    wire [1:0] dop18;
    RAMB18E2 #(.READ_WIDTH_B(18), .WRITE_WIDTH_A(18), .WRITE_MODE_A("READ_FIRST"),
        .WRITE_MODE_B("READ_FIRST"), .DOA_REG(0), .DOB_REG(0), .INIT_00(D18), .INITP_00(P18))
        r18(.CLKARDCLK(clk), .CLKBWRCLK(clk), .ENARDEN(r0[0]), .ENBWREN(r0[1]),
        .REGCEAREGCE(1'b0), .REGCEB(1'b0), .RSTRAMARSTRAM(1'b0), .RSTRAMB(1'b0),
        .RSTREGARSTREG(1'b0), .RSTREGB(1'b0), .ADDRENA(1'b1), .ADDRENB(1'b1), .SLEEP(1'b0),
        .ADDRARDADDR({6'b0, wa, r1[11:8]}), .ADDRBWRADDR({6'b0, ra, r1[15:12]}),
        .DINADIN(r2[15:0]), .DINPADINP(r2[17:16]), .WEA(r0[3:2]), .WEBWE(4'b0),
        .DOUTBDOUT(do18), .DOUTPBDOUTP(dop18));
    wire [31:0] do36;
    wire [3:0] dop36;
    RAMB36E2 #(.READ_WIDTH_B(36), .WRITE_WIDTH_A(36), .WRITE_MODE_A("READ_FIRST"),
        .WRITE_MODE_B("READ_FIRST"), .DOA_REG(0), .DOB_REG(0), .INIT_00(D36), .INIT_01(D36),
        .INITP_00(P36)) r36(.CLKARDCLK(clk), .CLKBWRCLK(clk), .ENARDEN(r0[4]),
        .ENBWREN(r0[5]), .REGCEAREGCE(1'b0), .REGCEB(1'b0), .RSTRAMARSTRAM(1'b0),
        .RSTRAMB(1'b0), .RSTREGARSTREG(1'b0), .RSTREGB(1'b0), .ADDRENA(1'b1), .ADDRENB(1'b1),
        .SLEEP(1'b0), .ADDRARDADDR({6'b0, wa, r1[20:16]}), .ADDRBWRADDR({6'b0, ra, r1[25:21]}),
        .DINADIN(r3), .DINPADINP(r2[23:20]), .WEA(r0[9:6]), .WEBWE(8'b0),
        .DOUTBDOUT(do36), .DOUTPBDOUTP(dop36));

    // The plain memories: {parity, data} a word.
    reg [17:0] m18 [0:15];
    reg [35:0] m36 [0:15];
    reg [17:0] q18 = 0;
    reg [35:0] q36 = 0;
    integer i;
    initial begin
        for (i = 0; i < 16; i = i + 1) begin
            m18[i] = {P18[2 * i +: 2], D18[16 * i +: 16]};
            m36[i] = {P36[4 * i +: 4], i < 8 ? D36[32 * i +: 32] : D36[32 * (i - 8) +: 32]};
        end
        bad = 0;
    end
    always @(posedge clk) begin
        if (r0[1]) q18 <= m18[ra];
        if (r0[0]) for (i = 0; i < 2; i = i + 1) if (r0[2 + i]) begin
            m18[wa][8 * i +: 8] <= r2[8 * i +: 8];
            m18[wa][16 + i] <= r2[16 + i];
        end
        if (r0[5]) q36 <= m36[ra];
        if (r0[4]) for (i = 0; i < 4; i = i + 1) if (r0[6 + i]) begin
            m36[wa][8 * i +: 8] <= r3[8 * i +: 8];
            m36[wa][32 + i] <= r2[20 + i];
        end
    end
    always @(negedge clk)
        if ({dop18, do18} != q18 || {dop36, do36} != q36) bad <= 1;
endmodule
"#;

const FOUR_WORDS_MAIN: &str = r#"
#include "Vtb.h"
#include <cstdio>
int main() {
    Vtb t;
    unsigned long long x = 88172645463325252ull;
    auto rnd = [&] { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return unsigned(x); };
    for (int i = 0; i < 100000; i++) {
        t.r0 = rnd(); t.r1 = rnd(); t.r2 = rnd(); t.r3 = rnd();
        t.clk = 0; t.eval(); t.clk = 1; t.eval();
        if (t.bad) { printf("differ at step %d\n", i); return 1; }
    }
    t.clk = 0; t.eval();
    printf("agree\n");
    return 0;
}
"#;

#[test]
fn the_ultrascale_block_ram_models_agree_with_a_plain_memory() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, text) = run(dir.path(), Flow::XcupSynthesized, BLOCK_RAMS, FOUR_WORDS_MAIN);
    assert!(ok && text.contains("agree"), "{text}");
    // Read addresses one word off: told apart.
    let wrong = BLOCK_RAMS.replace("q18 <= m18[ra]", "q18 <= m18[ra + 4'd1]");
    let dir = tempfile::tempdir().unwrap();
    let (ok, text) = run(dir.path(), Flow::XcupSynthesized, &wrong, FOUR_WORDS_MAIN);
    assert!(!ok && text.contains("differ at step"), "{text}");
    // A cascade is not modelled: the simulation stops rather than guess.
    let cascade = BLOCK_RAMS.replace(
        ".DOA_REG(0), .DOB_REG(0), .INIT_00(D18)",
        ".DOA_REG(0), .DOB_REG(0), .CASCADE_ORDER_A(\"FIRST\"), .INIT_00(D18)",
    );
    let dir = tempfile::tempdir().unwrap();
    let (ok, text) = run(dir.path(), Flow::XcupSynthesized, &cascade, FOUR_WORDS_MAIN);
    assert!(!ok && text.contains("RAMB18E2 model: cascading"), "{text}");
}
