// The Xilinx block RAMs, true dual port as yosys maps memories onto them: the used ports of
// one width (1 to 18 bits, or 36 on a 36 Kbit RAM), byte write enables from width 9 up, the
// three write modes, the optional output register, the RAM and register resets, inverted pins.
// Another mode (SDP, ECC, cascading) or mixed widths stop the simulation rather than guess.
// Written from Xilinx's 7 Series FPGAs Memory Resources user guide (UG473); the UltraScale
// guide (UG573) describes the same behaviour for the E2 cells in these modes. yosys' own
// library declares RAMB18E1, RAMB36E1, RAMB18E2 and RAMB36E2 without behaviour; our wrappers
// of them (netlist/xc7.v, netlist/xcup.v) are thin, around QUEENS_RAMB, which has the
// 36 Kbit RAM's port widths and takes the RAM's size.
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
            $fatal(1, "RAMB%0d model: RAM_MODE %s (TDP only)", KBITS, RAM_MODE);
        if ((READ_WIDTH_A != 0 && READ_WIDTH_A != W) || (READ_WIDTH_B != 0 && READ_WIDTH_B != W)
                || (WRITE_WIDTH_A != 0 && WRITE_WIDTH_A != W) || (WRITE_WIDTH_B != 0 && WRITE_WIDTH_B != W)
                || !(W == 1 || W == 2 || W == 4 || W == 9 || W == 18 || W == 36 && KBITS == 36))
            $fatal(1, "RAMB%0d model: port widths %0d %0d %0d %0d (one width of 1 to %0d only)",
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

