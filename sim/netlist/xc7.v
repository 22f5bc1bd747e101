// Simulation models for the Xilinx 7-series cells of our board tops that yosys' library
// keeps as black boxes (cells_xtra.v): the differential clock input, the gated global
// buffer and the two clock primitives. The rest of a netlist (LUT*, CARRY4, FD*, RAMB*,
// RAM32M, SRL*, BUFG, IBUFG) runs on yosys' own cells_sim.v.
//
// Defines: EXPECT_DIVIDE, EXPECT_MULTIPLY, EXPECT_OUTPUT_DIVIDE: the clock solver's settings,
// which the clock primitive checks its parameters against.

module IBUFGDS(O, I, IB);
    parameter CAPACITANCE = "DONT_CARE";
    parameter DIFF_TERM = "FALSE";
    parameter IBUF_DELAY_VALUE = "0";
    parameter IBUF_LOW_PWR = "TRUE";
    parameter IOSTANDARD = "DEFAULT";
    output O;
    input I, IB;
    assign O = I;
endmodule

// A global buffer with a glitch-free enable: CE is taken while the clock is low.
module BUFGCE(O, CE, I);
    parameter CE_TYPE = "SYNC";
    parameter [0:0] IS_CE_INVERTED = 1'b0;
    parameter [0:0] IS_I_INVERTED = 1'b0;
    parameter SIM_DEVICE = "7SERIES";
    parameter STARTUP_SYNC = "FALSE";
    output O;
    input CE, I;
    reg enabled = 1'b0;
    always @(I or CE)
        if (!I) enabled = CE ^ IS_CE_INVERTED;
    assign O = I & enabled;
endmodule

// The clock primitives: the compute clock is the reference clock passed through (a
// simulation has no frequencies), LOCKED rises 64 cycles after reset, and the dividers must
// be the ones the clock solver computed for the board.
module PLLE2_BASE(CLKFBOUT, CLKOUT0, CLKOUT1, CLKOUT2, CLKOUT3, CLKOUT4, CLKOUT5, LOCKED,
    CLKFBIN, CLKIN1, PWRDWN, RST);
    parameter BANDWIDTH = "OPTIMIZED";
    parameter integer CLKFBOUT_MULT = 5;
    parameter real CLKFBOUT_PHASE = 0.0;
    parameter real CLKIN1_PERIOD = 0.0;
    parameter integer CLKOUT0_DIVIDE = 1;
    parameter real CLKOUT0_DUTY_CYCLE = 0.5;
    parameter real CLKOUT0_PHASE = 0.0;
    parameter integer CLKOUT1_DIVIDE = 1;
    parameter integer CLKOUT2_DIVIDE = 1;
    parameter integer CLKOUT3_DIVIDE = 1;
    parameter integer CLKOUT4_DIVIDE = 1;
    parameter integer CLKOUT5_DIVIDE = 1;
    parameter integer DIVCLK_DIVIDE = 1;
    parameter real REF_JITTER1 = 0.01;
    parameter STARTUP_WAIT = "FALSE";
    output CLKFBOUT, CLKOUT0, CLKOUT1, CLKOUT2, CLKOUT3, CLKOUT4, CLKOUT5, LOCKED;
    input CLKFBIN, CLKIN1, PWRDWN, RST;
    initial
        if (DIVCLK_DIVIDE != `EXPECT_DIVIDE || CLKFBOUT_MULT != `EXPECT_MULTIPLY
                || CLKOUT0_DIVIDE != `EXPECT_OUTPUT_DIVIDE) begin
            $display("PLLE2_BASE: DIVCLK_DIVIDE %0d, CLKFBOUT_MULT %0d, CLKOUT0_DIVIDE %0d; the clock solver set %0d, %0d, %0d",
                DIVCLK_DIVIDE, CLKFBOUT_MULT, CLKOUT0_DIVIDE, `EXPECT_DIVIDE, `EXPECT_MULTIPLY,
                `EXPECT_OUTPUT_DIVIDE);
            $fatal(1, "clock primitive settings differ from the clock solver's");
        end
    reg [6:0] lock_count = 0;
    always @(posedge CLKIN1 or posedge RST)
        if (RST) lock_count <= 0;
        else if (!lock_count[6]) lock_count <= lock_count + 1'b1;
    assign LOCKED = lock_count[6];
    assign CLKOUT0 = CLKIN1;
    assign CLKFBOUT = CLKIN1;
    assign {CLKOUT1, CLKOUT2, CLKOUT3, CLKOUT4, CLKOUT5} = 5'b0;
endmodule

module MMCM_BASE(CLKFBOUT, CLKFBOUTB, CLKOUT0, CLKOUT0B, CLKOUT1, CLKOUT1B, CLKOUT2, CLKOUT2B,
    CLKOUT3, CLKOUT3B, CLKOUT4, CLKOUT5, CLKOUT6, LOCKED, CLKFBIN, CLKIN1, PWRDWN, RST);
    parameter BANDWIDTH = "OPTIMIZED";
    parameter real CLKFBOUT_MULT_F = 5.0;
    parameter real CLKFBOUT_PHASE = 0.0;
    parameter real CLKIN1_PERIOD = 0.0;
    parameter real CLKOUT0_DIVIDE_F = 1.0;
    parameter real CLKOUT0_DUTY_CYCLE = 0.5;
    parameter real CLKOUT0_PHASE = 0.0;
    parameter integer CLKOUT1_DIVIDE = 1;
    parameter integer CLKOUT2_DIVIDE = 1;
    parameter integer CLKOUT3_DIVIDE = 1;
    parameter integer CLKOUT4_DIVIDE = 1;
    parameter integer CLKOUT5_DIVIDE = 1;
    parameter integer CLKOUT6_DIVIDE = 1;
    parameter CLKOUT4_CASCADE = "FALSE";
    parameter integer DIVCLK_DIVIDE = 1;
    parameter real REF_JITTER1 = 0.01;
    parameter STARTUP_WAIT = "FALSE";
    output CLKFBOUT, CLKFBOUTB, CLKOUT0, CLKOUT0B, CLKOUT1, CLKOUT1B, CLKOUT2, CLKOUT2B,
        CLKOUT3, CLKOUT3B, CLKOUT4, CLKOUT5, CLKOUT6, LOCKED;
    input CLKFBIN, CLKIN1, PWRDWN, RST;
    initial
        if (DIVCLK_DIVIDE != `EXPECT_DIVIDE || CLKFBOUT_MULT_F != `EXPECT_MULTIPLY
                || CLKOUT0_DIVIDE_F != `EXPECT_OUTPUT_DIVIDE) begin
            $display("MMCM_BASE: DIVCLK_DIVIDE %0d, CLKFBOUT_MULT_F %f, CLKOUT0_DIVIDE_F %f; the clock solver set %0d, %0d, %0d",
                DIVCLK_DIVIDE, CLKFBOUT_MULT_F, CLKOUT0_DIVIDE_F, `EXPECT_DIVIDE,
                `EXPECT_MULTIPLY, `EXPECT_OUTPUT_DIVIDE);
            $fatal(1, "clock primitive settings differ from the clock solver's");
        end
    reg [6:0] lock_count = 0;
    always @(posedge CLKIN1 or posedge RST)
        if (RST) lock_count <= 0;
        else if (!lock_count[6]) lock_count <= lock_count + 1'b1;
    assign LOCKED = lock_count[6];
    assign CLKOUT0 = CLKIN1;
    assign CLKFBOUT = CLKIN1;
    assign {CLKFBOUTB, CLKOUT0B, CLKOUT1, CLKOUT1B, CLKOUT2, CLKOUT2B, CLKOUT3, CLKOUT3B,
        CLKOUT4, CLKOUT5, CLKOUT6} = 11'b0;
endmodule

// The block RAMs, true dual port as yosys maps memories onto them: the used ports of one
// width (1 to 18 bits, or 36 on the RAMB36E1), byte write enables from width 9 up, the three
// write modes, the optional output register, the RAM and register resets, inverted pins.
// Another mode (SDP, ECC, cascading) or mixed widths stop the simulation rather than guess.
// Written from Xilinx's 7 Series FPGAs Memory Resources user guide (UG473); yosys' own
// cells_sim.v declares these two without behaviour. RAMB18E1 and RAMB36E1 are thin wrappers
// around QUEENS_RAMB, which has the RAMB36E1's port widths and takes the RAM's size.
module QUEENS_RAMB(CLKARDCLK, CLKBWRCLK, ENARDEN, ENBWREN, REGCEAREGCE, REGCEB, RSTRAMARSTRAM, RSTRAMB, RSTREGARSTREG, RSTREGB, ADDRARDADDR, ADDRBWRADDR, DIADI, DIBDI, DIPADIP, DIPBDIP, WEA, WEBWE, DOADO, DOBDO, DOPADOP, DOPBDOP);
    // 18 or 36 (kbit).
    parameter integer KBITS = 36;
    input CLKARDCLK, CLKBWRCLK, ENARDEN, ENBWREN, REGCEAREGCE, REGCEB;
    input RSTRAMARSTRAM, RSTRAMB, RSTREGARSTREG, RSTREGB;
    input [15:0] ADDRARDADDR, ADDRBWRADDR;
    input [31:0] DIADI, DIBDI;
    input [3:0] DIPADIP, DIPBDIP;
    input [3:0] WEA;
    input [7:0] WEBWE;
    output [31:0] DOADO, DOBDO;
    output [3:0] DOPADOP, DOPBDOP;
    parameter integer DOA_REG = 0;
    parameter integer DOB_REG = 0;
    parameter RAM_MODE = "TDP";
    parameter WRITE_MODE_A = "WRITE_FIRST";
    parameter WRITE_MODE_B = "WRITE_FIRST";
    parameter RDADDR_COLLISION_HWCONFIG = "DELAYED_WRITE";
    parameter RSTREG_PRIORITY_A = "RSTREG";
    parameter RSTREG_PRIORITY_B = "RSTREG";
    parameter SIM_COLLISION_CHECK = "ALL";
    parameter SIM_DEVICE = "7SERIES";
    parameter INIT_FILE = "NONE";
    parameter integer READ_WIDTH_A = 0;
    parameter integer READ_WIDTH_B = 0;
    parameter integer WRITE_WIDTH_A = 0;
    parameter integer WRITE_WIDTH_B = 0;
    // {parity, data}: bits 35:32 and 31:0.
    parameter [35:0] INIT_A = 0;
    parameter [35:0] INIT_B = 0;
    parameter [35:0] SRVAL_A = 0;
    parameter [35:0] SRVAL_B = 0;
    parameter [0:0] IS_CLKARDCLK_INVERTED = 1'b0;
    parameter [0:0] IS_CLKBWRCLK_INVERTED = 1'b0;
    parameter [0:0] IS_ENARDEN_INVERTED = 1'b0;
    parameter [0:0] IS_ENBWREN_INVERTED = 1'b0;
    parameter [0:0] IS_RSTRAMARSTRAM_INVERTED = 1'b0;
    parameter [0:0] IS_RSTRAMB_INVERTED = 1'b0;
    parameter [0:0] IS_RSTREGARSTREG_INVERTED = 1'b0;
    parameter [0:0] IS_RSTREGB_INVERTED = 1'b0;
    // Every data (parity) bit's initial value, bit i at i.
    parameter [32767:0] DATA_INIT = 0;
    parameter [4095:0] PARITY_INIT = 0;

    // The one width of the used ports, its data and parity bits per word, the address bits
    // below the word, and the highest address bit (the RAMB36E1's bit 15 is its cascade's).
    localparam integer W = READ_WIDTH_A != 0 ? READ_WIDTH_A : READ_WIDTH_B != 0 ? READ_WIDTH_B
        : WRITE_WIDTH_A != 0 ? WRITE_WIDTH_A : WRITE_WIDTH_B;
    localparam integer D = W >= 9 ? W / 9 * 8 : W;
    localparam integer P = W >= 9 ? W / 9 : 1;
    localparam integer DEPTH = KBITS * 1024 * 8 / 9 / D;
    localparam integer LOW = W == 36 ? 5 : W == 18 ? 4 : W == 9 ? 3 : W == 4 ? 2 : W == 2 ? 1 : 0;
    localparam integer AH = KBITS == 36 ? 14 : 13;

    reg [D-1:0] data [0:DEPTH-1];
    reg [P-1:0] parity [0:DEPTH-1];
    integer i;
    initial begin
        if (RAM_MODE != "TDP")
            $fatal(1, "RAMB%0dE1 model: RAM_MODE %s (TDP only)", KBITS, RAM_MODE);
        if ((READ_WIDTH_A != 0 && READ_WIDTH_A != W) || (READ_WIDTH_B != 0 && READ_WIDTH_B != W)
                || (WRITE_WIDTH_A != 0 && WRITE_WIDTH_A != W) || (WRITE_WIDTH_B != 0 && WRITE_WIDTH_B != W)
                || !(W == 1 || W == 2 || W == 4 || W == 9 || W == 18 || W == 36 && KBITS == 36))
            $fatal(1, "RAMB%0dE1 model: port widths %0d %0d %0d %0d (one width of 1 to %0d only)",
                KBITS, READ_WIDTH_A, READ_WIDTH_B, WRITE_WIDTH_A, WRITE_WIDTH_B, KBITS);
        for (i = 0; i < DEPTH; i = i + 1) begin
            data[i] = DATA_INIT[i * D +: D];
            parity[i] = W >= 9 ? PARITY_INIT[i * P +: P] : 0;
        end
    end

    // Port A.
    wire clk_a = CLKARDCLK ^ IS_CLKARDCLK_INVERTED;
    wire en_a = ENARDEN ^ IS_ENARDEN_INVERTED;
    wire rstram_a = RSTRAMARSTRAM ^ IS_RSTRAMARSTRAM_INVERTED;
    wire rstreg_a = RSTREGARSTREG ^ IS_RSTREGARSTREG_INVERTED;
    wire [14:0] addr_a = ADDRARDADDR[AH:0] >> LOW;
    // A byte enable per byte and its parity bit from width 9 up; one for the word below.
    wire [D-1:0] dmask_a;
    wire [P-1:0] pmask_a;
    genvar k_a;
    generate for (k_a = 0; k_a < D; k_a = k_a + 1) begin : dm_a
        assign dmask_a[k_a] = W >= 9 ? WEA[k_a / 8] : WEA[0];
    end endgenerate
    generate for (k_a = 0; k_a < P; k_a = k_a + 1) begin : pm_a
        assign pmask_a[k_a] = W >= 9 ? WEA[k_a] : 1'b0;
    end endgenerate
    wire write_a = |WEA[(W >= 9 ? P : 1) - 1:0];
    wire [D-1:0] old_d_a = data[addr_a];
    wire [P-1:0] old_p_a = parity[addr_a];
    wire [D-1:0] new_d_a = (old_d_a & ~dmask_a) | (DIADI[D-1:0] & dmask_a);
    wire [P-1:0] new_p_a = (old_p_a & ~pmask_a) | (DIPADIP[P-1:0] & pmask_a);
    reg [31:0] lat_d_a = INIT_A[31:0], reg_d_a = INIT_A[31:0];
    reg [3:0] lat_p_a = INIT_A[35:32], reg_p_a = INIT_A[35:32];
    always @(posedge clk_a) if (en_a) begin
        if (write_a) begin
            data[addr_a] <= new_d_a;
            parity[addr_a] <= new_p_a;
        end
        if (rstram_a) begin
            lat_d_a <= SRVAL_A[31:0];
            lat_p_a <= SRVAL_A[35:32];
        end else if (!write_a || WRITE_MODE_A == "READ_FIRST") begin
            lat_d_a <= old_d_a;
            lat_p_a <= W >= 9 ? old_p_a : 0;
        end else if (WRITE_MODE_A == "WRITE_FIRST") begin
            lat_d_a <= new_d_a;
            lat_p_a <= W >= 9 ? new_p_a : 0;
        end
    end
    // The output register: its reset over its enable, or under it with RSTREG_PRIORITY "REGCE".
    always @(posedge clk_a)
        if (rstreg_a && (RSTREG_PRIORITY_A == "RSTREG" || REGCEAREGCE)) begin
            reg_d_a <= SRVAL_A[31:0];
            reg_p_a <= SRVAL_A[35:32];
        end else if (REGCEAREGCE) begin
            reg_d_a <= lat_d_a;
            reg_p_a <= lat_p_a;
        end
    assign DOADO = DOA_REG ? reg_d_a : lat_d_a;
    assign DOPADOP = DOA_REG ? reg_p_a : lat_p_a;

    // Port B.
    wire clk_b = CLKBWRCLK ^ IS_CLKBWRCLK_INVERTED;
    wire en_b = ENBWREN ^ IS_ENBWREN_INVERTED;
    wire rstram_b = RSTRAMB ^ IS_RSTRAMB_INVERTED;
    wire rstreg_b = RSTREGB ^ IS_RSTREGB_INVERTED;
    wire [14:0] addr_b = ADDRBWRADDR[AH:0] >> LOW;
    // A byte enable per byte and its parity bit from width 9 up; one for the word below.
    wire [D-1:0] dmask_b;
    wire [P-1:0] pmask_b;
    genvar k_b;
    generate for (k_b = 0; k_b < D; k_b = k_b + 1) begin : dm_b
        assign dmask_b[k_b] = W >= 9 ? WEBWE[k_b / 8] : WEBWE[0];
    end endgenerate
    generate for (k_b = 0; k_b < P; k_b = k_b + 1) begin : pm_b
        assign pmask_b[k_b] = W >= 9 ? WEBWE[k_b] : 1'b0;
    end endgenerate
    wire write_b = |WEBWE[(W >= 9 ? P : 1) - 1:0];
    wire [D-1:0] old_d_b = data[addr_b];
    wire [P-1:0] old_p_b = parity[addr_b];
    wire [D-1:0] new_d_b = (old_d_b & ~dmask_b) | (DIBDI[D-1:0] & dmask_b);
    wire [P-1:0] new_p_b = (old_p_b & ~pmask_b) | (DIPBDIP[P-1:0] & pmask_b);
    reg [31:0] lat_d_b = INIT_B[31:0], reg_d_b = INIT_B[31:0];
    reg [3:0] lat_p_b = INIT_B[35:32], reg_p_b = INIT_B[35:32];
    always @(posedge clk_b) if (en_b) begin
        if (write_b) begin
            data[addr_b] <= new_d_b;
            parity[addr_b] <= new_p_b;
        end
        if (rstram_b) begin
            lat_d_b <= SRVAL_B[31:0];
            lat_p_b <= SRVAL_B[35:32];
        end else if (!write_b || WRITE_MODE_B == "READ_FIRST") begin
            lat_d_b <= old_d_b;
            lat_p_b <= W >= 9 ? old_p_b : 0;
        end else if (WRITE_MODE_B == "WRITE_FIRST") begin
            lat_d_b <= new_d_b;
            lat_p_b <= W >= 9 ? new_p_b : 0;
        end
    end
    // The output register: its reset over its enable, or under it with RSTREG_PRIORITY "REGCE".
    always @(posedge clk_b)
        if (rstreg_b && (RSTREG_PRIORITY_B == "RSTREG" || REGCEB)) begin
            reg_d_b <= SRVAL_B[31:0];
            reg_p_b <= SRVAL_B[35:32];
        end else if (REGCEB) begin
            reg_d_b <= lat_d_b;
            reg_p_b <= lat_p_b;
        end
    assign DOBDO = DOB_REG ? reg_d_b : lat_d_b;
    assign DOPBDOP = DOB_REG ? reg_p_b : lat_p_b;

endmodule

module RAMB18E1(CLKARDCLK, CLKBWRCLK, ENARDEN, ENBWREN, REGCEAREGCE, REGCEB, RSTRAMARSTRAM, RSTRAMB, RSTREGARSTREG, RSTREGB, ADDRARDADDR, ADDRBWRADDR, DIADI, DIBDI, DIPADIP, DIPBDIP, WEA, WEBWE, DOADO, DOBDO, DOPADOP, DOPBDOP);
    input CLKARDCLK, CLKBWRCLK, ENARDEN, ENBWREN, REGCEAREGCE, REGCEB;
    input RSTRAMARSTRAM, RSTRAMB, RSTREGARSTREG, RSTREGB;
    input [13:0] ADDRARDADDR, ADDRBWRADDR;
    input [15:0] DIADI, DIBDI;
    input [1:0] DIPADIP, DIPBDIP;
    input [1:0] WEA;
    input [3:0] WEBWE;
    output [15:0] DOADO, DOBDO;
    output [1:0] DOPADOP, DOPBDOP;
    parameter integer DOA_REG = 0;
    parameter integer DOB_REG = 0;
    parameter RAM_MODE = "TDP";
    parameter WRITE_MODE_A = "WRITE_FIRST";
    parameter WRITE_MODE_B = "WRITE_FIRST";
    parameter RDADDR_COLLISION_HWCONFIG = "DELAYED_WRITE";
    parameter RSTREG_PRIORITY_A = "RSTREG";
    parameter RSTREG_PRIORITY_B = "RSTREG";
    parameter SIM_COLLISION_CHECK = "ALL";
    parameter SIM_DEVICE = "7SERIES";
    parameter INIT_FILE = "NONE";
    parameter integer READ_WIDTH_A = 0;
    parameter integer READ_WIDTH_B = 0;
    parameter integer WRITE_WIDTH_A = 0;
    parameter integer WRITE_WIDTH_B = 0;
    parameter [17:0] INIT_A = 0;
    parameter [17:0] INIT_B = 0;
    parameter [17:0] SRVAL_A = 0;
    parameter [17:0] SRVAL_B = 0;
    parameter [0:0] IS_CLKARDCLK_INVERTED = 1'b0;
    parameter [0:0] IS_CLKBWRCLK_INVERTED = 1'b0;
    parameter [0:0] IS_ENARDEN_INVERTED = 1'b0;
    parameter [0:0] IS_ENBWREN_INVERTED = 1'b0;
    parameter [0:0] IS_RSTRAMARSTRAM_INVERTED = 1'b0;
    parameter [0:0] IS_RSTRAMB_INVERTED = 1'b0;
    parameter [0:0] IS_RSTREGARSTREG_INVERTED = 1'b0;
    parameter [0:0] IS_RSTREGB_INVERTED = 1'b0;
    parameter [255:0] INIT_00, INIT_01, INIT_02, INIT_03, INIT_04, INIT_05, INIT_06, INIT_07, INIT_08, INIT_09, INIT_0A, INIT_0B, INIT_0C, INIT_0D, INIT_0E, INIT_0F, INIT_10, INIT_11, INIT_12, INIT_13, INIT_14, INIT_15, INIT_16, INIT_17, INIT_18, INIT_19, INIT_1A, INIT_1B, INIT_1C, INIT_1D, INIT_1E, INIT_1F, INIT_20, INIT_21, INIT_22, INIT_23, INIT_24, INIT_25, INIT_26, INIT_27, INIT_28, INIT_29, INIT_2A, INIT_2B, INIT_2C, INIT_2D, INIT_2E, INIT_2F, INIT_30, INIT_31, INIT_32, INIT_33, INIT_34, INIT_35, INIT_36, INIT_37, INIT_38, INIT_39, INIT_3A, INIT_3B, INIT_3C, INIT_3D, INIT_3E, INIT_3F = 0;
    parameter [255:0] INITP_00, INITP_01, INITP_02, INITP_03, INITP_04, INITP_05, INITP_06, INITP_07 = 0;
    localparam [16383:0] DATA_INIT = {
        INIT_3F, INIT_3E, INIT_3D, INIT_3C, INIT_3B, INIT_3A, INIT_39, INIT_38,
        INIT_37, INIT_36, INIT_35, INIT_34, INIT_33, INIT_32, INIT_31, INIT_30,
        INIT_2F, INIT_2E, INIT_2D, INIT_2C, INIT_2B, INIT_2A, INIT_29, INIT_28,
        INIT_27, INIT_26, INIT_25, INIT_24, INIT_23, INIT_22, INIT_21, INIT_20,
        INIT_1F, INIT_1E, INIT_1D, INIT_1C, INIT_1B, INIT_1A, INIT_19, INIT_18,
        INIT_17, INIT_16, INIT_15, INIT_14, INIT_13, INIT_12, INIT_11, INIT_10,
        INIT_0F, INIT_0E, INIT_0D, INIT_0C, INIT_0B, INIT_0A, INIT_09, INIT_08,
        INIT_07, INIT_06, INIT_05, INIT_04, INIT_03, INIT_02, INIT_01, INIT_00};
    localparam [255:0] PARITY_INIT = {
        INITP_07, INITP_06, INITP_05, INITP_04, INITP_03, INITP_02, INITP_01, INITP_00};
    wire [31:0] doa, dob;
    wire [3:0] dopa, dopb;
    assign {DOADO, DOBDO, DOPADOP, DOPBDOP} = {doa[15:0], dob[15:0], dopa[1:0], dopb[1:0]};
    QUEENS_RAMB #(.KBITS(18), .DOA_REG(DOA_REG), .DOB_REG(DOB_REG), .RAM_MODE(RAM_MODE), .WRITE_MODE_A(WRITE_MODE_A), .WRITE_MODE_B(WRITE_MODE_B), .RDADDR_COLLISION_HWCONFIG(RDADDR_COLLISION_HWCONFIG), .RSTREG_PRIORITY_A(RSTREG_PRIORITY_A), .RSTREG_PRIORITY_B(RSTREG_PRIORITY_B), .SIM_COLLISION_CHECK(SIM_COLLISION_CHECK), .SIM_DEVICE(SIM_DEVICE), .INIT_FILE(INIT_FILE),
        .READ_WIDTH_A(READ_WIDTH_A), .READ_WIDTH_B(READ_WIDTH_B), .WRITE_WIDTH_A(WRITE_WIDTH_A), .WRITE_WIDTH_B(WRITE_WIDTH_B), .INIT_A({INIT_A[17:16], 16'h0, INIT_A[15:0]}), .INIT_B({INIT_B[17:16], 16'h0, INIT_B[15:0]}), .SRVAL_A({SRVAL_A[17:16], 16'h0, SRVAL_A[15:0]}), .SRVAL_B({SRVAL_B[17:16], 16'h0, SRVAL_B[15:0]}),
        .IS_CLKARDCLK_INVERTED(IS_CLKARDCLK_INVERTED), .IS_CLKBWRCLK_INVERTED(IS_CLKBWRCLK_INVERTED), .IS_ENARDEN_INVERTED(IS_ENARDEN_INVERTED), .IS_ENBWREN_INVERTED(IS_ENBWREN_INVERTED), .IS_RSTRAMARSTRAM_INVERTED(IS_RSTRAMARSTRAM_INVERTED), .IS_RSTRAMB_INVERTED(IS_RSTRAMB_INVERTED), .IS_RSTREGARSTREG_INVERTED(IS_RSTREGARSTREG_INVERTED), .IS_RSTREGB_INVERTED(IS_RSTREGB_INVERTED),
        .DATA_INIT(DATA_INIT), .PARITY_INIT(PARITY_INIT)) ram(
        .CLKARDCLK(CLKARDCLK), .CLKBWRCLK(CLKBWRCLK), .ENARDEN(ENARDEN), .ENBWREN(ENBWREN), .REGCEAREGCE(REGCEAREGCE), .REGCEB(REGCEB), .RSTRAMARSTRAM(RSTRAMARSTRAM), .RSTRAMB(RSTRAMB), .RSTREGARSTREG(RSTREGARSTREG), .RSTREGB(RSTREGB), .ADDRARDADDR({2'b0, ADDRARDADDR}), .ADDRBWRADDR({2'b0, ADDRBWRADDR}), .DIADI({16'b0, DIADI}), .DIBDI({16'b0, DIBDI}), .DIPADIP({2'b0, DIPADIP}), .DIPBDIP({2'b0, DIPBDIP}), .WEA({2'b0, WEA}), .WEBWE({4'b0, WEBWE}), .DOADO(doa), .DOBDO(dob), .DOPADOP(dopa), .DOPBDOP(dopb));
endmodule

module RAMB36E1(CLKARDCLK, CLKBWRCLK, ENARDEN, ENBWREN, REGCEAREGCE, REGCEB, RSTRAMARSTRAM, RSTRAMB, RSTREGARSTREG, RSTREGB, ADDRARDADDR, ADDRBWRADDR, DIADI, DIBDI, DIPADIP, DIPBDIP, WEA, WEBWE, DOADO, DOBDO, DOPADOP, DOPBDOP, CASCADEINA, CASCADEINB, CASCADEOUTA, CASCADEOUTB, INJECTDBITERR, INJECTSBITERR, ECCPARITY, RDADDRECC, SBITERR, DBITERR);
    input CLKARDCLK, CLKBWRCLK, ENARDEN, ENBWREN, REGCEAREGCE, REGCEB;
    input RSTRAMARSTRAM, RSTRAMB, RSTREGARSTREG, RSTREGB;
    input [15:0] ADDRARDADDR, ADDRBWRADDR;
    input [31:0] DIADI, DIBDI;
    input [3:0] DIPADIP, DIPBDIP;
    input [3:0] WEA;
    input [7:0] WEBWE;
    output [31:0] DOADO, DOBDO;
    output [3:0] DOPADOP, DOPBDOP;
    input CASCADEINA, CASCADEINB, INJECTDBITERR, INJECTSBITERR;
    output CASCADEOUTA, CASCADEOUTB, SBITERR, DBITERR;
    output [7:0] ECCPARITY;
    output [8:0] RDADDRECC;
    assign {CASCADEOUTA, CASCADEOUTB, SBITERR, DBITERR, ECCPARITY, RDADDRECC} = 0;
    parameter integer DOA_REG = 0;
    parameter integer DOB_REG = 0;
    parameter RAM_MODE = "TDP";
    parameter WRITE_MODE_A = "WRITE_FIRST";
    parameter WRITE_MODE_B = "WRITE_FIRST";
    parameter RDADDR_COLLISION_HWCONFIG = "DELAYED_WRITE";
    parameter RSTREG_PRIORITY_A = "RSTREG";
    parameter RSTREG_PRIORITY_B = "RSTREG";
    parameter SIM_COLLISION_CHECK = "ALL";
    parameter SIM_DEVICE = "7SERIES";
    parameter INIT_FILE = "NONE";
    parameter EN_ECC_READ = "FALSE";
    parameter EN_ECC_WRITE = "FALSE";
    parameter RAM_EXTENSION_A = "NONE";
    parameter RAM_EXTENSION_B = "NONE";
    parameter integer READ_WIDTH_A = 0;
    parameter integer READ_WIDTH_B = 0;
    parameter integer WRITE_WIDTH_A = 0;
    parameter integer WRITE_WIDTH_B = 0;
    parameter [35:0] INIT_A = 0;
    parameter [35:0] INIT_B = 0;
    parameter [35:0] SRVAL_A = 0;
    parameter [35:0] SRVAL_B = 0;
    parameter [0:0] IS_CLKARDCLK_INVERTED = 1'b0;
    parameter [0:0] IS_CLKBWRCLK_INVERTED = 1'b0;
    parameter [0:0] IS_ENARDEN_INVERTED = 1'b0;
    parameter [0:0] IS_ENBWREN_INVERTED = 1'b0;
    parameter [0:0] IS_RSTRAMARSTRAM_INVERTED = 1'b0;
    parameter [0:0] IS_RSTRAMB_INVERTED = 1'b0;
    parameter [0:0] IS_RSTREGARSTREG_INVERTED = 1'b0;
    parameter [0:0] IS_RSTREGB_INVERTED = 1'b0;
    parameter [255:0] INIT_00, INIT_01, INIT_02, INIT_03, INIT_04, INIT_05, INIT_06, INIT_07, INIT_08, INIT_09, INIT_0A, INIT_0B, INIT_0C, INIT_0D, INIT_0E, INIT_0F, INIT_10, INIT_11, INIT_12, INIT_13, INIT_14, INIT_15, INIT_16, INIT_17, INIT_18, INIT_19, INIT_1A, INIT_1B, INIT_1C, INIT_1D, INIT_1E, INIT_1F, INIT_20, INIT_21, INIT_22, INIT_23, INIT_24, INIT_25, INIT_26, INIT_27, INIT_28, INIT_29, INIT_2A, INIT_2B, INIT_2C, INIT_2D, INIT_2E, INIT_2F, INIT_30, INIT_31, INIT_32, INIT_33, INIT_34, INIT_35, INIT_36, INIT_37, INIT_38, INIT_39, INIT_3A, INIT_3B, INIT_3C, INIT_3D, INIT_3E, INIT_3F, INIT_40, INIT_41, INIT_42, INIT_43, INIT_44, INIT_45, INIT_46, INIT_47, INIT_48, INIT_49, INIT_4A, INIT_4B, INIT_4C, INIT_4D, INIT_4E, INIT_4F, INIT_50, INIT_51, INIT_52, INIT_53, INIT_54, INIT_55, INIT_56, INIT_57, INIT_58, INIT_59, INIT_5A, INIT_5B, INIT_5C, INIT_5D, INIT_5E, INIT_5F, INIT_60, INIT_61, INIT_62, INIT_63, INIT_64, INIT_65, INIT_66, INIT_67, INIT_68, INIT_69, INIT_6A, INIT_6B, INIT_6C, INIT_6D, INIT_6E, INIT_6F, INIT_70, INIT_71, INIT_72, INIT_73, INIT_74, INIT_75, INIT_76, INIT_77, INIT_78, INIT_79, INIT_7A, INIT_7B, INIT_7C, INIT_7D, INIT_7E, INIT_7F = 0;
    parameter [255:0] INITP_00, INITP_01, INITP_02, INITP_03, INITP_04, INITP_05, INITP_06, INITP_07, INITP_08, INITP_09, INITP_0A, INITP_0B, INITP_0C, INITP_0D, INITP_0E, INITP_0F = 0;
    initial
        if (EN_ECC_READ != "FALSE" || EN_ECC_WRITE != "FALSE" || RAM_EXTENSION_A != "NONE" || RAM_EXTENSION_B != "NONE")
            $fatal(1, "RAMB36E1 model: ECC or cascading");
    localparam [32767:0] DATA_INIT = {
        INIT_7F, INIT_7E, INIT_7D, INIT_7C, INIT_7B, INIT_7A, INIT_79, INIT_78,
        INIT_77, INIT_76, INIT_75, INIT_74, INIT_73, INIT_72, INIT_71, INIT_70,
        INIT_6F, INIT_6E, INIT_6D, INIT_6C, INIT_6B, INIT_6A, INIT_69, INIT_68,
        INIT_67, INIT_66, INIT_65, INIT_64, INIT_63, INIT_62, INIT_61, INIT_60,
        INIT_5F, INIT_5E, INIT_5D, INIT_5C, INIT_5B, INIT_5A, INIT_59, INIT_58,
        INIT_57, INIT_56, INIT_55, INIT_54, INIT_53, INIT_52, INIT_51, INIT_50,
        INIT_4F, INIT_4E, INIT_4D, INIT_4C, INIT_4B, INIT_4A, INIT_49, INIT_48,
        INIT_47, INIT_46, INIT_45, INIT_44, INIT_43, INIT_42, INIT_41, INIT_40,
        INIT_3F, INIT_3E, INIT_3D, INIT_3C, INIT_3B, INIT_3A, INIT_39, INIT_38,
        INIT_37, INIT_36, INIT_35, INIT_34, INIT_33, INIT_32, INIT_31, INIT_30,
        INIT_2F, INIT_2E, INIT_2D, INIT_2C, INIT_2B, INIT_2A, INIT_29, INIT_28,
        INIT_27, INIT_26, INIT_25, INIT_24, INIT_23, INIT_22, INIT_21, INIT_20,
        INIT_1F, INIT_1E, INIT_1D, INIT_1C, INIT_1B, INIT_1A, INIT_19, INIT_18,
        INIT_17, INIT_16, INIT_15, INIT_14, INIT_13, INIT_12, INIT_11, INIT_10,
        INIT_0F, INIT_0E, INIT_0D, INIT_0C, INIT_0B, INIT_0A, INIT_09, INIT_08,
        INIT_07, INIT_06, INIT_05, INIT_04, INIT_03, INIT_02, INIT_01, INIT_00};
    localparam [511:0] PARITY_INIT = {
        INITP_0F, INITP_0E, INITP_0D, INITP_0C, INITP_0B, INITP_0A, INITP_09, INITP_08,
        INITP_07, INITP_06, INITP_05, INITP_04, INITP_03, INITP_02, INITP_01, INITP_00};
    QUEENS_RAMB #(.KBITS(36), .DOA_REG(DOA_REG), .DOB_REG(DOB_REG), .RAM_MODE(RAM_MODE), .WRITE_MODE_A(WRITE_MODE_A), .WRITE_MODE_B(WRITE_MODE_B), .RDADDR_COLLISION_HWCONFIG(RDADDR_COLLISION_HWCONFIG), .RSTREG_PRIORITY_A(RSTREG_PRIORITY_A), .RSTREG_PRIORITY_B(RSTREG_PRIORITY_B), .SIM_COLLISION_CHECK(SIM_COLLISION_CHECK), .SIM_DEVICE(SIM_DEVICE), .INIT_FILE(INIT_FILE),
        .READ_WIDTH_A(READ_WIDTH_A), .READ_WIDTH_B(READ_WIDTH_B), .WRITE_WIDTH_A(WRITE_WIDTH_A), .WRITE_WIDTH_B(WRITE_WIDTH_B), .INIT_A(INIT_A), .INIT_B(INIT_B), .SRVAL_A(SRVAL_A), .SRVAL_B(SRVAL_B),
        .IS_CLKARDCLK_INVERTED(IS_CLKARDCLK_INVERTED), .IS_CLKBWRCLK_INVERTED(IS_CLKBWRCLK_INVERTED), .IS_ENARDEN_INVERTED(IS_ENARDEN_INVERTED), .IS_ENBWREN_INVERTED(IS_ENBWREN_INVERTED), .IS_RSTRAMARSTRAM_INVERTED(IS_RSTRAMARSTRAM_INVERTED), .IS_RSTRAMB_INVERTED(IS_RSTRAMB_INVERTED), .IS_RSTREGARSTREG_INVERTED(IS_RSTREGARSTREG_INVERTED), .IS_RSTREGB_INVERTED(IS_RSTREGB_INVERTED),
        .DATA_INIT(DATA_INIT), .PARITY_INIT(PARITY_INIT)) ram(
        .CLKARDCLK(CLKARDCLK), .CLKBWRCLK(CLKBWRCLK), .ENARDEN(ENARDEN), .ENBWREN(ENBWREN), .REGCEAREGCE(REGCEAREGCE), .REGCEB(REGCEB), .RSTRAMARSTRAM(RSTRAMARSTRAM), .RSTRAMB(RSTRAMB), .RSTREGARSTREG(RSTREGARSTREG), .RSTREGB(RSTREGB), .ADDRARDADDR(ADDRARDADDR), .ADDRBWRADDR(ADDRBWRADDR), .DIADI(DIADI), .DIBDI(DIBDI), .DIPADIP(DIPADIP), .DIPBDIP(DIPBDIP), .WEA(WEA), .WEBWE(WEBWE), .DOADO(DOADO), .DOBDO(DOBDO), .DOPADOP(DOPADOP), .DOPBDOP(DOPBDOP));
endmodule
