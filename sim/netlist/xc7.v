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
