// Simulation models for the ECP5 cells of our netlists that yosys' library leaves as black
// boxes (EHXPLLL, DCCA, DP16KD) and for nextpnr-ecp5's packed cells (TRELLIS_COMB,
// TRELLIS_RAMW), with the rest taken from yosys' own cells_sim.v. Written from Lattice's
// ECP5 sysCLOCK and sysMEM usage guides (TN1263, TN1264) and nextpnr-ecp5's packer, which
// decides how a packed cell's pins and INITVAL map back to the unpacked cells.
//
// Defines: EXPECT_CLKI_DIV, EXPECT_CLKFB_DIV, EXPECT_CLKOP_DIV: the clock solver's settings,
// which the PLL checks its parameters against.

// The PLL: the compute clock is the reference clock passed through (a simulation has no
// frequencies), and LOCK rises 64 reference cycles after the PLL leaves reset. Its dividers
// must be the ones the clock solver computed for the board.
module EHXPLLL(CLKI, CLKFB, PHASESEL1, PHASESEL0, PHASEDIR, PHASESTEP, PHASELOADREG, STDBY,
    PLLWAKESYNC, RST, ENCLKOP, ENCLKOS, ENCLKOS2, ENCLKOS3, CLKOP, CLKOS, CLKOS2, CLKOS3, LOCK,
    INTLOCK, REFCLK, CLKINTFB);
    input CLKI, CLKFB, PHASESEL1, PHASESEL0, PHASEDIR, PHASESTEP, PHASELOADREG, STDBY,
        PLLWAKESYNC, RST, ENCLKOP, ENCLKOS, ENCLKOS2, ENCLKOS3;
    output CLKOP, CLKOS, CLKOS2, CLKOS3, LOCK, INTLOCK, REFCLK, CLKINTFB;
    parameter CLKI_DIV = 1;
    parameter CLKFB_DIV = 1;
    parameter CLKOP_DIV = 8;
    parameter CLKOS_DIV = 8;
    parameter CLKOS2_DIV = 8;
    parameter CLKOS3_DIV = 8;
    parameter CLKOP_ENABLE = "ENABLED";
    parameter CLKOS_ENABLE = "DISABLED";
    parameter CLKOS2_ENABLE = "DISABLED";
    parameter CLKOS3_ENABLE = "DISABLED";
    parameter CLKOP_CPHASE = 0;
    parameter CLKOS_CPHASE = 0;
    parameter CLKOS2_CPHASE = 0;
    parameter CLKOS3_CPHASE = 0;
    parameter CLKOP_FPHASE = 0;
    parameter CLKOS_FPHASE = 0;
    parameter CLKOS2_FPHASE = 0;
    parameter CLKOS3_FPHASE = 0;
    parameter FEEDBK_PATH = "CLKOP";
    parameter CLKOP_TRIM_POL = "RISING";
    parameter CLKOP_TRIM_DELAY = 0;
    parameter CLKOS_TRIM_POL = "RISING";
    parameter CLKOS_TRIM_DELAY = 0;
    parameter OUTDIVIDER_MUXA = "DIVA";
    parameter OUTDIVIDER_MUXB = "DIVB";
    parameter OUTDIVIDER_MUXC = "DIVC";
    parameter OUTDIVIDER_MUXD = "DIVD";
    parameter PLL_LOCK_MODE = 0;
    parameter PLL_LOCK_DELAY = 200;
    parameter STDBY_ENABLE = "DISABLED";
    parameter REFIN_RESET = "DISABLED";
    parameter SYNC_ENABLE = "DISABLED";
    parameter INT_LOCK_STICKY = "ENABLED";
    parameter DPHASE_SOURCE = "DISABLED";
    parameter PLLRST_ENA = "DISABLED";
    parameter INTFB_WAKE = "DISABLED";

    initial begin
        if (CLKI_DIV != `EXPECT_CLKI_DIV || CLKFB_DIV != `EXPECT_CLKFB_DIV
                || CLKOP_DIV != `EXPECT_CLKOP_DIV) begin
            $display("EHXPLLL: CLKI_DIV %0d, CLKFB_DIV %0d, CLKOP_DIV %0d; the clock solver set %0d, %0d, %0d",
                CLKI_DIV, CLKFB_DIV, CLKOP_DIV, `EXPECT_CLKI_DIV, `EXPECT_CLKFB_DIV,
                `EXPECT_CLKOP_DIV);
            $fatal(1, "PLL settings differ from the clock solver's");
        end
    end

    reg [6:0] lock_count = 0;
    always @(posedge CLKI or posedge RST)
        if (RST) lock_count <= 0;
        else if (!lock_count[6]) lock_count <= lock_count + 1'b1;
    assign LOCK = lock_count[6];
    assign INTLOCK = LOCK;
    assign CLKOP = CLKI;
    assign CLKOS = 1'b0;
    assign CLKOS2 = 1'b0;
    assign CLKOS3 = 1'b0;
    assign REFCLK = CLKI;
    assign CLKINTFB = 1'b0;
endmodule

// A global clock buffer with a glitch-free enable: CE is taken while the clock is low.
module DCCA(CLKI, CE, CLKO);
    input CLKI, CE;
    output CLKO;
    reg enabled = 1'b0;
    always @(CLKI or CE)
        if (!CLKI) enabled = CE;
    assign CLKO = CLKI & enabled;
endmodule

// The 18 kbit block RAM, true dual port, as yosys maps memories onto it: both ports of one
// width (1, 2, 4, 9 or 18 bits; at 18, AD[1:0] are the byte write enables), with or without
// the output register, the three write modes, synchronous or asynchronous output reset, chip
// selects decoded. A configuration outside that stops the simulation rather than guess.
// Each input goes through its MUX setting as nextpnr leaves it after packing: the pin, "INV",
// or a constant "0" or "1" in place of a pin tied off (a control pin tied high stays the
// pin, which the netlist reader ties to 1).
module DP16KD(
    input DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0,
    input ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0,
    input CEA, OCEA, CLKA, WEA, RSTA,
    input CSA2, CSA1, CSA0,
    output DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0,
    input DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0,
    input ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0,
    input CEB, OCEB, CLKB, WEB, RSTB,
    input CSB2, CSB1, CSB0,
    output DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0
);
    parameter DATA_WIDTH_A = 18;
    parameter DATA_WIDTH_B = 18;
    parameter REGMODE_A = "NOREG";
    parameter REGMODE_B = "NOREG";
    parameter RESETMODE = "SYNC";
    parameter ASYNC_RESET_RELEASE = "SYNC";
    parameter CSDECODE_A = "0b000";
    parameter CSDECODE_B = "0b000";
    parameter WRITEMODE_A = "NORMAL";
    parameter WRITEMODE_B = "NORMAL";
    parameter GSR = "ENABLED";
    parameter DIA0MUX = "DIA0";
    parameter DIA1MUX = "DIA1";
    parameter DIA2MUX = "DIA2";
    parameter DIA3MUX = "DIA3";
    parameter DIA4MUX = "DIA4";
    parameter DIA5MUX = "DIA5";
    parameter DIA6MUX = "DIA6";
    parameter DIA7MUX = "DIA7";
    parameter DIA8MUX = "DIA8";
    parameter DIA9MUX = "DIA9";
    parameter DIA10MUX = "DIA10";
    parameter DIA11MUX = "DIA11";
    parameter DIA12MUX = "DIA12";
    parameter DIA13MUX = "DIA13";
    parameter DIA14MUX = "DIA14";
    parameter DIA15MUX = "DIA15";
    parameter DIA16MUX = "DIA16";
    parameter DIA17MUX = "DIA17";
    parameter ADA0MUX = "ADA0";
    parameter ADA1MUX = "ADA1";
    parameter ADA2MUX = "ADA2";
    parameter ADA3MUX = "ADA3";
    parameter ADA4MUX = "ADA4";
    parameter ADA5MUX = "ADA5";
    parameter ADA6MUX = "ADA6";
    parameter ADA7MUX = "ADA7";
    parameter ADA8MUX = "ADA8";
    parameter ADA9MUX = "ADA9";
    parameter ADA10MUX = "ADA10";
    parameter ADA11MUX = "ADA11";
    parameter ADA12MUX = "ADA12";
    parameter ADA13MUX = "ADA13";
    parameter CEAMUX = "CEA";
    parameter OCEAMUX = "OCEA";
    parameter CLKAMUX = "CLKA";
    parameter WEAMUX = "WEA";
    parameter RSTAMUX = "RSTA";
    parameter CSA0MUX = "CSA0";
    parameter CSA1MUX = "CSA1";
    parameter CSA2MUX = "CSA2";
    parameter DIB0MUX = "DIB0";
    parameter DIB1MUX = "DIB1";
    parameter DIB2MUX = "DIB2";
    parameter DIB3MUX = "DIB3";
    parameter DIB4MUX = "DIB4";
    parameter DIB5MUX = "DIB5";
    parameter DIB6MUX = "DIB6";
    parameter DIB7MUX = "DIB7";
    parameter DIB8MUX = "DIB8";
    parameter DIB9MUX = "DIB9";
    parameter DIB10MUX = "DIB10";
    parameter DIB11MUX = "DIB11";
    parameter DIB12MUX = "DIB12";
    parameter DIB13MUX = "DIB13";
    parameter DIB14MUX = "DIB14";
    parameter DIB15MUX = "DIB15";
    parameter DIB16MUX = "DIB16";
    parameter DIB17MUX = "DIB17";
    parameter ADB0MUX = "ADB0";
    parameter ADB1MUX = "ADB1";
    parameter ADB2MUX = "ADB2";
    parameter ADB3MUX = "ADB3";
    parameter ADB4MUX = "ADB4";
    parameter ADB5MUX = "ADB5";
    parameter ADB6MUX = "ADB6";
    parameter ADB7MUX = "ADB7";
    parameter ADB8MUX = "ADB8";
    parameter ADB9MUX = "ADB9";
    parameter ADB10MUX = "ADB10";
    parameter ADB11MUX = "ADB11";
    parameter ADB12MUX = "ADB12";
    parameter ADB13MUX = "ADB13";
    parameter CEBMUX = "CEB";
    parameter OCEBMUX = "OCEB";
    parameter CLKBMUX = "CLKB";
    parameter WEBMUX = "WEB";
    parameter RSTBMUX = "RSTB";
    parameter CSB0MUX = "CSB0";
    parameter CSB1MUX = "CSB1";
    parameter CSB2MUX = "CSB2";
    parameter INIT_DATA = "STATIC";
    parameter WID = 0;
    parameter [319:0] INITVAL_00 = 0, INITVAL_01 = 0, INITVAL_02 = 0, INITVAL_03 = 0,
        INITVAL_04 = 0, INITVAL_05 = 0, INITVAL_06 = 0, INITVAL_07 = 0, INITVAL_08 = 0,
        INITVAL_09 = 0, INITVAL_0A = 0, INITVAL_0B = 0, INITVAL_0C = 0, INITVAL_0D = 0,
        INITVAL_0E = 0, INITVAL_0F = 0, INITVAL_10 = 0, INITVAL_11 = 0, INITVAL_12 = 0,
        INITVAL_13 = 0, INITVAL_14 = 0, INITVAL_15 = 0, INITVAL_16 = 0, INITVAL_17 = 0,
        INITVAL_18 = 0, INITVAL_19 = 0, INITVAL_1A = 0, INITVAL_1B = 0, INITVAL_1C = 0,
        INITVAL_1D = 0, INITVAL_1E = 0, INITVAL_1F = 0, INITVAL_20 = 0, INITVAL_21 = 0,
        INITVAL_22 = 0, INITVAL_23 = 0, INITVAL_24 = 0, INITVAL_25 = 0, INITVAL_26 = 0,
        INITVAL_27 = 0, INITVAL_28 = 0, INITVAL_29 = 0, INITVAL_2A = 0, INITVAL_2B = 0,
        INITVAL_2C = 0, INITVAL_2D = 0, INITVAL_2E = 0, INITVAL_2F = 0, INITVAL_30 = 0,
        INITVAL_31 = 0, INITVAL_32 = 0, INITVAL_33 = 0, INITVAL_34 = 0, INITVAL_35 = 0,
        INITVAL_36 = 0, INITVAL_37 = 0, INITVAL_38 = 0, INITVAL_39 = 0, INITVAL_3A = 0,
        INITVAL_3B = 0, INITVAL_3C = 0, INITVAL_3D = 0, INITVAL_3E = 0, INITVAL_3F = 0;

    // Bits of the 18-bit word an address's lowest bits select, per width.
    function integer low_bits(input integer width);
        low_bits = width == 18 ? 4 : width == 9 ? 3 : width == 4 ? 2 : width == 2 ? 1 : 0;
    endfunction
    // A chip select decoded as the parameter string "0bXYZ" gives it.
    function [2:0] cs_decode(input [39:0] s);
        cs_decode = {s[23:16] == "1", s[15:8] == "1", s[7:0] == "1"};
    endfunction

    // 1,024 words of 18 bits; INITVAL_xx holds words 16xx..16xx+15, each in 20 bits.
    localparam [20479:0] INIT_ALL = {
        INITVAL_3F, INITVAL_3E, INITVAL_3D, INITVAL_3C, INITVAL_3B, INITVAL_3A, INITVAL_39, INITVAL_38,
        INITVAL_37, INITVAL_36, INITVAL_35, INITVAL_34, INITVAL_33, INITVAL_32, INITVAL_31, INITVAL_30,
        INITVAL_2F, INITVAL_2E, INITVAL_2D, INITVAL_2C, INITVAL_2B, INITVAL_2A, INITVAL_29, INITVAL_28,
        INITVAL_27, INITVAL_26, INITVAL_25, INITVAL_24, INITVAL_23, INITVAL_22, INITVAL_21, INITVAL_20,
        INITVAL_1F, INITVAL_1E, INITVAL_1D, INITVAL_1C, INITVAL_1B, INITVAL_1A, INITVAL_19, INITVAL_18,
        INITVAL_17, INITVAL_16, INITVAL_15, INITVAL_14, INITVAL_13, INITVAL_12, INITVAL_11, INITVAL_10,
        INITVAL_0F, INITVAL_0E, INITVAL_0D, INITVAL_0C, INITVAL_0B, INITVAL_0A, INITVAL_09, INITVAL_08,
        INITVAL_07, INITVAL_06, INITVAL_05, INITVAL_04, INITVAL_03, INITVAL_02, INITVAL_01, INITVAL_00};
    reg [17:0] mem [0:1023];
    integer i;
    initial begin
        if (DATA_WIDTH_A != DATA_WIDTH_B || low_bits(DATA_WIDTH_A) == 0 && DATA_WIDTH_A != 1)
            $fatal(1, "DP16KD model: ports of widths %0d and %0d", DATA_WIDTH_A, DATA_WIDTH_B);
        if (RESETMODE != "SYNC" && RESETMODE != "ASYNC")
            $fatal(1, "DP16KD model: RESETMODE %s", RESETMODE);
        for (i = 0; i < 1024; i = i + 1)
            mem[i] = INIT_ALL[i * 20 +: 18];
    end

    // Every input through its MUX setting.
    wire dia0_m = DIA0MUX == "1" ? 1'b1 : DIA0MUX == "0" ? 1'b0 : DIA0MUX == "INV" ? ~DIA0 : DIA0;
    wire dia1_m = DIA1MUX == "1" ? 1'b1 : DIA1MUX == "0" ? 1'b0 : DIA1MUX == "INV" ? ~DIA1 : DIA1;
    wire dia2_m = DIA2MUX == "1" ? 1'b1 : DIA2MUX == "0" ? 1'b0 : DIA2MUX == "INV" ? ~DIA2 : DIA2;
    wire dia3_m = DIA3MUX == "1" ? 1'b1 : DIA3MUX == "0" ? 1'b0 : DIA3MUX == "INV" ? ~DIA3 : DIA3;
    wire dia4_m = DIA4MUX == "1" ? 1'b1 : DIA4MUX == "0" ? 1'b0 : DIA4MUX == "INV" ? ~DIA4 : DIA4;
    wire dia5_m = DIA5MUX == "1" ? 1'b1 : DIA5MUX == "0" ? 1'b0 : DIA5MUX == "INV" ? ~DIA5 : DIA5;
    wire dia6_m = DIA6MUX == "1" ? 1'b1 : DIA6MUX == "0" ? 1'b0 : DIA6MUX == "INV" ? ~DIA6 : DIA6;
    wire dia7_m = DIA7MUX == "1" ? 1'b1 : DIA7MUX == "0" ? 1'b0 : DIA7MUX == "INV" ? ~DIA7 : DIA7;
    wire dia8_m = DIA8MUX == "1" ? 1'b1 : DIA8MUX == "0" ? 1'b0 : DIA8MUX == "INV" ? ~DIA8 : DIA8;
    wire dia9_m = DIA9MUX == "1" ? 1'b1 : DIA9MUX == "0" ? 1'b0 : DIA9MUX == "INV" ? ~DIA9 : DIA9;
    wire dia10_m = DIA10MUX == "1" ? 1'b1 : DIA10MUX == "0" ? 1'b0 : DIA10MUX == "INV" ? ~DIA10 : DIA10;
    wire dia11_m = DIA11MUX == "1" ? 1'b1 : DIA11MUX == "0" ? 1'b0 : DIA11MUX == "INV" ? ~DIA11 : DIA11;
    wire dia12_m = DIA12MUX == "1" ? 1'b1 : DIA12MUX == "0" ? 1'b0 : DIA12MUX == "INV" ? ~DIA12 : DIA12;
    wire dia13_m = DIA13MUX == "1" ? 1'b1 : DIA13MUX == "0" ? 1'b0 : DIA13MUX == "INV" ? ~DIA13 : DIA13;
    wire dia14_m = DIA14MUX == "1" ? 1'b1 : DIA14MUX == "0" ? 1'b0 : DIA14MUX == "INV" ? ~DIA14 : DIA14;
    wire dia15_m = DIA15MUX == "1" ? 1'b1 : DIA15MUX == "0" ? 1'b0 : DIA15MUX == "INV" ? ~DIA15 : DIA15;
    wire dia16_m = DIA16MUX == "1" ? 1'b1 : DIA16MUX == "0" ? 1'b0 : DIA16MUX == "INV" ? ~DIA16 : DIA16;
    wire dia17_m = DIA17MUX == "1" ? 1'b1 : DIA17MUX == "0" ? 1'b0 : DIA17MUX == "INV" ? ~DIA17 : DIA17;
    wire ada0_m = ADA0MUX == "1" ? 1'b1 : ADA0MUX == "0" ? 1'b0 : ADA0MUX == "INV" ? ~ADA0 : ADA0;
    wire ada1_m = ADA1MUX == "1" ? 1'b1 : ADA1MUX == "0" ? 1'b0 : ADA1MUX == "INV" ? ~ADA1 : ADA1;
    wire ada2_m = ADA2MUX == "1" ? 1'b1 : ADA2MUX == "0" ? 1'b0 : ADA2MUX == "INV" ? ~ADA2 : ADA2;
    wire ada3_m = ADA3MUX == "1" ? 1'b1 : ADA3MUX == "0" ? 1'b0 : ADA3MUX == "INV" ? ~ADA3 : ADA3;
    wire ada4_m = ADA4MUX == "1" ? 1'b1 : ADA4MUX == "0" ? 1'b0 : ADA4MUX == "INV" ? ~ADA4 : ADA4;
    wire ada5_m = ADA5MUX == "1" ? 1'b1 : ADA5MUX == "0" ? 1'b0 : ADA5MUX == "INV" ? ~ADA5 : ADA5;
    wire ada6_m = ADA6MUX == "1" ? 1'b1 : ADA6MUX == "0" ? 1'b0 : ADA6MUX == "INV" ? ~ADA6 : ADA6;
    wire ada7_m = ADA7MUX == "1" ? 1'b1 : ADA7MUX == "0" ? 1'b0 : ADA7MUX == "INV" ? ~ADA7 : ADA7;
    wire ada8_m = ADA8MUX == "1" ? 1'b1 : ADA8MUX == "0" ? 1'b0 : ADA8MUX == "INV" ? ~ADA8 : ADA8;
    wire ada9_m = ADA9MUX == "1" ? 1'b1 : ADA9MUX == "0" ? 1'b0 : ADA9MUX == "INV" ? ~ADA9 : ADA9;
    wire ada10_m = ADA10MUX == "1" ? 1'b1 : ADA10MUX == "0" ? 1'b0 : ADA10MUX == "INV" ? ~ADA10 : ADA10;
    wire ada11_m = ADA11MUX == "1" ? 1'b1 : ADA11MUX == "0" ? 1'b0 : ADA11MUX == "INV" ? ~ADA11 : ADA11;
    wire ada12_m = ADA12MUX == "1" ? 1'b1 : ADA12MUX == "0" ? 1'b0 : ADA12MUX == "INV" ? ~ADA12 : ADA12;
    wire ada13_m = ADA13MUX == "1" ? 1'b1 : ADA13MUX == "0" ? 1'b0 : ADA13MUX == "INV" ? ~ADA13 : ADA13;
    wire cea_m = CEAMUX == "1" ? 1'b1 : CEAMUX == "0" ? 1'b0 : CEAMUX == "INV" ? ~CEA : CEA;
    wire ocea_m = OCEAMUX == "1" ? 1'b1 : OCEAMUX == "0" ? 1'b0 : OCEAMUX == "INV" ? ~OCEA : OCEA;
    wire clka_m = CLKAMUX == "1" ? 1'b1 : CLKAMUX == "0" ? 1'b0 : CLKAMUX == "INV" ? ~CLKA : CLKA;
    wire wea_m = WEAMUX == "1" ? 1'b1 : WEAMUX == "0" ? 1'b0 : WEAMUX == "INV" ? ~WEA : WEA;
    wire rsta_m = RSTAMUX == "1" ? 1'b1 : RSTAMUX == "0" ? 1'b0 : RSTAMUX == "INV" ? ~RSTA : RSTA;
    wire csa0_m = CSA0MUX == "1" ? 1'b1 : CSA0MUX == "0" ? 1'b0 : CSA0MUX == "INV" ? ~CSA0 : CSA0;
    wire csa1_m = CSA1MUX == "1" ? 1'b1 : CSA1MUX == "0" ? 1'b0 : CSA1MUX == "INV" ? ~CSA1 : CSA1;
    wire csa2_m = CSA2MUX == "1" ? 1'b1 : CSA2MUX == "0" ? 1'b0 : CSA2MUX == "INV" ? ~CSA2 : CSA2;
    wire dib0_m = DIB0MUX == "1" ? 1'b1 : DIB0MUX == "0" ? 1'b0 : DIB0MUX == "INV" ? ~DIB0 : DIB0;
    wire dib1_m = DIB1MUX == "1" ? 1'b1 : DIB1MUX == "0" ? 1'b0 : DIB1MUX == "INV" ? ~DIB1 : DIB1;
    wire dib2_m = DIB2MUX == "1" ? 1'b1 : DIB2MUX == "0" ? 1'b0 : DIB2MUX == "INV" ? ~DIB2 : DIB2;
    wire dib3_m = DIB3MUX == "1" ? 1'b1 : DIB3MUX == "0" ? 1'b0 : DIB3MUX == "INV" ? ~DIB3 : DIB3;
    wire dib4_m = DIB4MUX == "1" ? 1'b1 : DIB4MUX == "0" ? 1'b0 : DIB4MUX == "INV" ? ~DIB4 : DIB4;
    wire dib5_m = DIB5MUX == "1" ? 1'b1 : DIB5MUX == "0" ? 1'b0 : DIB5MUX == "INV" ? ~DIB5 : DIB5;
    wire dib6_m = DIB6MUX == "1" ? 1'b1 : DIB6MUX == "0" ? 1'b0 : DIB6MUX == "INV" ? ~DIB6 : DIB6;
    wire dib7_m = DIB7MUX == "1" ? 1'b1 : DIB7MUX == "0" ? 1'b0 : DIB7MUX == "INV" ? ~DIB7 : DIB7;
    wire dib8_m = DIB8MUX == "1" ? 1'b1 : DIB8MUX == "0" ? 1'b0 : DIB8MUX == "INV" ? ~DIB8 : DIB8;
    wire dib9_m = DIB9MUX == "1" ? 1'b1 : DIB9MUX == "0" ? 1'b0 : DIB9MUX == "INV" ? ~DIB9 : DIB9;
    wire dib10_m = DIB10MUX == "1" ? 1'b1 : DIB10MUX == "0" ? 1'b0 : DIB10MUX == "INV" ? ~DIB10 : DIB10;
    wire dib11_m = DIB11MUX == "1" ? 1'b1 : DIB11MUX == "0" ? 1'b0 : DIB11MUX == "INV" ? ~DIB11 : DIB11;
    wire dib12_m = DIB12MUX == "1" ? 1'b1 : DIB12MUX == "0" ? 1'b0 : DIB12MUX == "INV" ? ~DIB12 : DIB12;
    wire dib13_m = DIB13MUX == "1" ? 1'b1 : DIB13MUX == "0" ? 1'b0 : DIB13MUX == "INV" ? ~DIB13 : DIB13;
    wire dib14_m = DIB14MUX == "1" ? 1'b1 : DIB14MUX == "0" ? 1'b0 : DIB14MUX == "INV" ? ~DIB14 : DIB14;
    wire dib15_m = DIB15MUX == "1" ? 1'b1 : DIB15MUX == "0" ? 1'b0 : DIB15MUX == "INV" ? ~DIB15 : DIB15;
    wire dib16_m = DIB16MUX == "1" ? 1'b1 : DIB16MUX == "0" ? 1'b0 : DIB16MUX == "INV" ? ~DIB16 : DIB16;
    wire dib17_m = DIB17MUX == "1" ? 1'b1 : DIB17MUX == "0" ? 1'b0 : DIB17MUX == "INV" ? ~DIB17 : DIB17;
    wire adb0_m = ADB0MUX == "1" ? 1'b1 : ADB0MUX == "0" ? 1'b0 : ADB0MUX == "INV" ? ~ADB0 : ADB0;
    wire adb1_m = ADB1MUX == "1" ? 1'b1 : ADB1MUX == "0" ? 1'b0 : ADB1MUX == "INV" ? ~ADB1 : ADB1;
    wire adb2_m = ADB2MUX == "1" ? 1'b1 : ADB2MUX == "0" ? 1'b0 : ADB2MUX == "INV" ? ~ADB2 : ADB2;
    wire adb3_m = ADB3MUX == "1" ? 1'b1 : ADB3MUX == "0" ? 1'b0 : ADB3MUX == "INV" ? ~ADB3 : ADB3;
    wire adb4_m = ADB4MUX == "1" ? 1'b1 : ADB4MUX == "0" ? 1'b0 : ADB4MUX == "INV" ? ~ADB4 : ADB4;
    wire adb5_m = ADB5MUX == "1" ? 1'b1 : ADB5MUX == "0" ? 1'b0 : ADB5MUX == "INV" ? ~ADB5 : ADB5;
    wire adb6_m = ADB6MUX == "1" ? 1'b1 : ADB6MUX == "0" ? 1'b0 : ADB6MUX == "INV" ? ~ADB6 : ADB6;
    wire adb7_m = ADB7MUX == "1" ? 1'b1 : ADB7MUX == "0" ? 1'b0 : ADB7MUX == "INV" ? ~ADB7 : ADB7;
    wire adb8_m = ADB8MUX == "1" ? 1'b1 : ADB8MUX == "0" ? 1'b0 : ADB8MUX == "INV" ? ~ADB8 : ADB8;
    wire adb9_m = ADB9MUX == "1" ? 1'b1 : ADB9MUX == "0" ? 1'b0 : ADB9MUX == "INV" ? ~ADB9 : ADB9;
    wire adb10_m = ADB10MUX == "1" ? 1'b1 : ADB10MUX == "0" ? 1'b0 : ADB10MUX == "INV" ? ~ADB10 : ADB10;
    wire adb11_m = ADB11MUX == "1" ? 1'b1 : ADB11MUX == "0" ? 1'b0 : ADB11MUX == "INV" ? ~ADB11 : ADB11;
    wire adb12_m = ADB12MUX == "1" ? 1'b1 : ADB12MUX == "0" ? 1'b0 : ADB12MUX == "INV" ? ~ADB12 : ADB12;
    wire adb13_m = ADB13MUX == "1" ? 1'b1 : ADB13MUX == "0" ? 1'b0 : ADB13MUX == "INV" ? ~ADB13 : ADB13;
    wire ceb_m = CEBMUX == "1" ? 1'b1 : CEBMUX == "0" ? 1'b0 : CEBMUX == "INV" ? ~CEB : CEB;
    wire oceb_m = OCEBMUX == "1" ? 1'b1 : OCEBMUX == "0" ? 1'b0 : OCEBMUX == "INV" ? ~OCEB : OCEB;
    wire clkb_m = CLKBMUX == "1" ? 1'b1 : CLKBMUX == "0" ? 1'b0 : CLKBMUX == "INV" ? ~CLKB : CLKB;
    wire web_m = WEBMUX == "1" ? 1'b1 : WEBMUX == "0" ? 1'b0 : WEBMUX == "INV" ? ~WEB : WEB;
    wire rstb_m = RSTBMUX == "1" ? 1'b1 : RSTBMUX == "0" ? 1'b0 : RSTBMUX == "INV" ? ~RSTB : RSTB;
    wire csb0_m = CSB0MUX == "1" ? 1'b1 : CSB0MUX == "0" ? 1'b0 : CSB0MUX == "INV" ? ~CSB0 : CSB0;
    wire csb1_m = CSB1MUX == "1" ? 1'b1 : CSB1MUX == "0" ? 1'b0 : CSB1MUX == "INV" ? ~CSB1 : CSB1;
    wire csb2_m = CSB2MUX == "1" ? 1'b1 : CSB2MUX == "0" ? 1'b0 : CSB2MUX == "INV" ? ~CSB2 : CSB2;
    wire [13:0] ada = {ada13_m, ada12_m, ada11_m, ada10_m, ada9_m, ada8_m, ada7_m, ada6_m, ada5_m, ada4_m, ada3_m, ada2_m, ada1_m, ada0_m};
    wire [13:0] adb = {adb13_m, adb12_m, adb11_m, adb10_m, adb9_m, adb8_m, adb7_m, adb6_m, adb5_m, adb4_m, adb3_m, adb2_m, adb1_m, adb0_m};
    wire [17:0] dia = {dia17_m, dia16_m, dia15_m, dia14_m, dia13_m, dia12_m, dia11_m, dia10_m, dia9_m, dia8_m, dia7_m, dia6_m, dia5_m, dia4_m, dia3_m, dia2_m, dia1_m, dia0_m};
    wire [17:0] dib = {dib17_m, dib16_m, dib15_m, dib14_m, dib13_m, dib12_m, dib11_m, dib10_m, dib9_m, dib8_m, dib7_m, dib6_m, dib5_m, dib4_m, dib3_m, dib2_m, dib1_m, dib0_m};
    wire csa = {csa2_m, csa1_m, csa0_m} == cs_decode(CSDECODE_A);
    wire csb = {csb2_m, csb1_m, csb0_m} == cs_decode(CSDECODE_B);

    // A port's access: the word, the data bits it covers (as a mask over the word), and
    // the data moved into place.
    function [17:0] lane_mask(input integer width, input [13:0] ad);
        case (width)
            18: lane_mask = {{9{ad[1]}}, {9{ad[0]}}};
            9: lane_mask = ad[3] ? 18'h3FE00 : 18'h001FF;
            4: lane_mask = 18'hF << (4 * ad[3:2]);
            2: lane_mask = 18'h3 << (2 * ad[3:1]);
            default: lane_mask = 18'h1 << ad[3:0];
        endcase
    endfunction
    function [4:0] lane_shift(input integer width, input [13:0] ad);
        case (width)
            18: lane_shift = 0;
            9: lane_shift = ad[3] ? 9 : 0;
            4: lane_shift = 4 * ad[3:2];
            2: lane_shift = 2 * ad[3:1];
            default: lane_shift = ad[3:0];
        endcase
    endfunction
    // Widths below 9 use 16 bits of each word (the two parity bits stay unused).
    wire [9:0] worda = ada[13:4];
    wire [9:0] wordb = adb[13:4];
    wire [17:0] wmaska = lane_mask(DATA_WIDTH_A, ada);
    wire [17:0] wmaskb = lane_mask(DATA_WIDTH_B, adb);
    wire [4:0] shifta = lane_shift(DATA_WIDTH_A, ada);
    wire [4:0] shiftb = lane_shift(DATA_WIDTH_B, adb);
    wire [17:0] rmaska = DATA_WIDTH_A == 18 ? 18'h3FFFF : wmaska;
    wire [17:0] rmaskb = DATA_WIDTH_B == 18 ? 18'h3FFFF : wmaskb;

    reg [17:0] lata = 0, latb = 0, rega = 0, regb = 0;
    wire ena = cea_m & csa, enb = ceb_m & csb;
    wire clka = clka_m, clkb = clkb_m;

    always @(posedge clka) if (ena) begin
        if (wea_m) mem[worda] <= (mem[worda] & ~wmaska) | ((dia << shifta) & wmaska);
    end
    always @(posedge clkb) if (enb) begin
        if (web_m) mem[wordb] <= (mem[wordb] & ~wmaskb) | ((dib << shiftb) & wmaskb);
    end

    // The output latch: the read word on a read, per write mode on a write; the reset clears
    // it whatever the enable (at the clock, or at once with RESETMODE "ASYNC").
    wire [17:0] nexta = !wea_m ? (mem[worda] & rmaska) >> shifta
        : WRITEMODE_A == "WRITETHROUGH" ? ((dia << shifta) & wmaska) >> shifta
        : WRITEMODE_A == "READBEFOREWRITE" ? (mem[worda] & rmaska) >> shifta : lata;
    wire [17:0] nextb = !web_m ? (mem[wordb] & rmaskb) >> shiftb
        : WRITEMODE_B == "WRITETHROUGH" ? ((dib << shiftb) & wmaskb) >> shiftb
        : WRITEMODE_B == "READBEFOREWRITE" ? (mem[wordb] & rmaskb) >> shiftb : latb;
    generate
        if (RESETMODE == "ASYNC") begin : async_reset
            always @(posedge clka or posedge rsta_m)
                if (rsta_m) lata <= 0; else if (ena) lata <= nexta;
            always @(posedge clkb or posedge rstb_m)
                if (rstb_m) latb <= 0; else if (enb) latb <= nextb;
        end else begin : sync_reset
            always @(posedge clka)
                if (rsta_m) lata <= 0; else if (ena) lata <= nexta;
            always @(posedge clkb)
                if (rstb_m) latb <= 0; else if (enb) latb <= nextb;
        end
    endgenerate
    always @(posedge clka) if (rsta_m) rega <= 0; else if (ocea_m) rega <= lata;
    always @(posedge clkb) if (rstb_m) regb <= 0; else if (oceb_m) regb <= latb;

    wire [17:0] doa = REGMODE_A == "OUTREG" ? rega : lata;
    wire [17:0] dob = REGMODE_B == "OUTREG" ? regb : latb;
    assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0} = doa;
    assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0} = dob;
endmodule

// nextpnr-ecp5's packed half slice, written for the cells of a routed netlist (renamed from
// TRELLIS_COMB when the netlist is read back). yosys' TRELLIS_COMB declares FCO again inside
// its CCU2 branch, so that its carry out drives nothing, and reads DPRAM at {A, C, B, D}
// against an INITVAL nextpnr writes in LUT order.
// - LOGIC: a LUT4 on A..D.
// - CCU2: one half of a CCU2C (the half's INIT, INJECT1 and carry in FCI, out FCO).
// - DPRAM: one bit of a TRELLIS_DPR16X4: nextpnr puts read address bit 0..3 on D, B, C, A
//   and the write port on WAD0..3, WD, WRE and WCK (from a TRELLIS_RAMW); INITVAL bit i
//   holds the word at the address whose bits 3, 1, 2, 0 are i's bits 0..3.
// - RAMW_BLOCK: a placeholder that holds the slice's other half for the RAM.
module QUEENS_COMB(
    input A, B, C, D, M,
    input FCI, F1, FXA, FXB,
    input WD,
    input WAD0, WAD1, WAD2, WAD3,
    input WRE, WCK,
    output F, FCO, OFX
);
    parameter MODE = "LOGIC";
    parameter [15:0] INITVAL = 16'h0;
    parameter CCU2_INJECT1 = "NO";
    parameter WREMUX = "WRE";
    parameter WCKMUX = "WCK";
    parameter IS_Z1 = 1'b0;

    wire lut = INITVAL[{D, C, B, A}];
    generate
        if (MODE == "LOGIC") begin : logic_mode
            assign F = lut;
            assign FCO = 1'b0;
        end else if (MODE == "CCU2") begin : ccu2_mode
            wire inject = CCU2_INJECT1 == "YES";
            wire lut2 = INITVAL[{B, A}];
            assign F = lut ^ (inject ? 1'b0 : FCI);
            assign FCO = lut ? FCI : (inject ? 1'b0 : lut2);
        end else if (MODE == "DPRAM") begin : dpram_mode
            reg [15:0] ram;
            integer i;
            initial
                for (i = 0; i < 16; i = i + 1)
                    ram[{i[0], i[2], i[1], i[3]}] = INITVAL[i];
            wire we = WREMUX == "INV" ? ~WRE : WRE;
            wire wck = WCKMUX == "INV" ? ~WCK : WCK;
            always @(posedge wck)
                if (we) ram[{WAD3, WAD2, WAD1, WAD0}] <= WD;
            assign F = ram[{A, C, B, D}];
            assign FCO = 1'b0;
        end else if (MODE == "RAMW_BLOCK") begin : ramw_block_mode
            assign F = 1'b0;
            assign FCO = 1'b0;
        end else begin : unknown_mode
            initial $fatal(1, "QUEENS_COMB: MODE %s has no model", MODE);
        end
    endgenerate
    // The slice's wide-function muxes: PFUMX (F1 when M, else F) and L6MUX21.
    assign OFX = IS_Z1 ? (M ? FXB : FXA) : (M ? F1 : F);
endmodule

// nextpnr-ecp5's write port of a slice RAM: it passes the write address and data of the RAM
// through to its COMB halves. Which input carries which bit is nextpnr's packer's choice
// (WAD0..3 on D0, B0, C0, A0; DI0..3 on C1, A1, D1, B1).
module TRELLIS_RAMW(
    input A0, B0, C0, D0, A1, B1, C1, D1,
    input WCK, WRE,
    output WDO0, WDO1, WDO2, WDO3, WADO0, WADO1, WADO2, WADO3
);
    assign {WADO3, WADO2, WADO1, WADO0} = {A0, C0, B0, D0};
    assign {WDO3, WDO2, WDO1, WDO0} = {B1, D1, A1, C1};
endmodule

// nextpnr-ecp5's packed flip-flop (renamed from TRELLIS_FF when a routed netlist is read
// back): SD picks its data, "1" the paired LUT's output on DI, "0" the M input that the
// packer moves DI to when no LUT of the slice drives it. The rest is yosys' TRELLIS_FF.
module QUEENS_FF(input CLK, LSR, CE, DI, M, output Q);
    parameter GSR = "ENABLED";
    parameter [127:0] CEMUX = "1";
    parameter CLKMUX = "CLK";
    parameter LSRMUX = "LSR";
    parameter SRMODE = "LSR_OVER_CE";
    parameter REGSET = "RESET";
    parameter [127:0] LSRMODE = "LSR";
    parameter SD = "0";
    initial
        if (LSRMODE == "PRLD")
            $fatal(1, "QUEENS_FF: LSRMODE PRLD shares M with the data; no model");
    TRELLIS_FF #(.GSR(GSR), .CEMUX(CEMUX), .CLKMUX(CLKMUX), .LSRMUX(LSRMUX), .SRMODE(SRMODE),
        .REGSET(REGSET), .LSRMODE(LSRMODE))
        ff(.CLK(CLK), .LSR(LSR), .CE(CE), .DI(SD == "1" ? DI : M), .M(1'b0), .Q(Q));
endmodule

// nextpnr-ecp5's I/O buffers (TRELLIS_IO cells of a routed netlist, renamed by direction
// when it is read back): yosys' model has one inout pad that it drives with Z on an input,
// which a simulator without tristates refuses on a top-level input. Plain inputs and outputs
// only: DDR and tristate settings stop the simulation.
module QUEENS_IB(input B, input I, input T, output O);
    parameter DIR = "INPUT";
    parameter DATAMUX_ODDR = "PADDO";
    parameter DATAMUX_MDDR = "PADDO";
    initial
        if (DATAMUX_ODDR != "PADDO" || DATAMUX_MDDR != "PADDO")
            $fatal(1, "QUEENS_IB: DDR settings have no model");
    assign O = B;
endmodule

module QUEENS_OB(output B, input I, input T, output O);
    parameter DIR = "OUTPUT";
    parameter DATAMUX_ODDR = "PADDO";
    parameter DATAMUX_MDDR = "PADDO";
    initial
        if (DATAMUX_ODDR != "PADDO" || DATAMUX_MDDR != "PADDO")
            $fatal(1, "QUEENS_OB: DDR settings have no model");
    assign B = I;
    assign O = 1'b0;
endmodule
