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
    parameter CLKAMUX = "CLKA";
    parameter CLKBMUX = "CLKB";
    parameter WEAMUX = "WEA";
    parameter WEBMUX = "WEB";
    parameter CEAMUX = "CEA";
    parameter CEBMUX = "CEB";
    parameter OCEAMUX = "OCEA";
    parameter OCEBMUX = "OCEB";
    parameter RSTAMUX = "RSTA";
    parameter RSTBMUX = "RSTB";
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
        if (CLKAMUX != "CLKA" || CLKBMUX != "CLKB" || WEAMUX != "WEA" || WEBMUX != "WEB"
                || CEAMUX != "CEA" || CEBMUX != "CEB" || OCEAMUX != "OCEA" || OCEBMUX != "OCEB"
                || RSTAMUX != "RSTA" || RSTBMUX != "RSTB")
            $fatal(1, "DP16KD model: an inverted control pin");
        for (i = 0; i < 1024; i = i + 1)
            mem[i] = INIT_ALL[i * 20 +: 18];
    end

    wire [13:0] ada = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0};
    wire [13:0] adb = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0};
    wire [17:0] dia = {DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0};
    wire [17:0] dib = {DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0};
    wire csa = {CSA2, CSA1, CSA0} == cs_decode(CSDECODE_A);
    wire csb = {CSB2, CSB1, CSB0} == cs_decode(CSDECODE_B);

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
    wire ena = CEA & csa, enb = CEB & csb;
    wire clka = CLKA, clkb = CLKB;

    always @(posedge clka) if (ena) begin
        if (WEA) mem[worda] <= (mem[worda] & ~wmaska) | ((dia << shifta) & wmaska);
    end
    always @(posedge clkb) if (enb) begin
        if (WEB) mem[wordb] <= (mem[wordb] & ~wmaskb) | ((dib << shiftb) & wmaskb);
    end

    // The output latch: the read word on a read, per write mode on a write; the reset clears
    // it whatever the enable (at the clock, or at once with RESETMODE "ASYNC").
    wire [17:0] nexta = !WEA ? (mem[worda] & rmaska) >> shifta
        : WRITEMODE_A == "WRITETHROUGH" ? ((dia << shifta) & wmaska) >> shifta
        : WRITEMODE_A == "READBEFOREWRITE" ? (mem[worda] & rmaska) >> shifta : lata;
    wire [17:0] nextb = !WEB ? (mem[wordb] & rmaskb) >> shiftb
        : WRITEMODE_B == "WRITETHROUGH" ? ((dib << shiftb) & wmaskb) >> shiftb
        : WRITEMODE_B == "READBEFOREWRITE" ? (mem[wordb] & rmaskb) >> shiftb : latb;
    generate
        if (RESETMODE == "ASYNC") begin : async_reset
            always @(posedge clka or posedge RSTA)
                if (RSTA) lata <= 0; else if (ena) lata <= nexta;
            always @(posedge clkb or posedge RSTB)
                if (RSTB) latb <= 0; else if (enb) latb <= nextb;
        end else begin : sync_reset
            always @(posedge clka)
                if (RSTA) lata <= 0; else if (ena) lata <= nexta;
            always @(posedge clkb)
                if (RSTB) latb <= 0; else if (enb) latb <= nextb;
        end
    endgenerate
    always @(posedge clka) if (RSTA) rega <= 0; else if (OCEA) rega <= lata;
    always @(posedge clkb) if (RSTB) regb <= 0; else if (OCEB) regb <= latb;

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
    // The slice's wide-function muxes (PFUMX, L6MUX21).
    assign OFX = IS_Z1 ? (M ? FXB : FXA) : (M ? F : F1);
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
