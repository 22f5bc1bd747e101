// Behavioural model of the Lattice ECP5 CCU2C cell (two halves of a carry chain), for
// simulating the ccu2c arbiter outside the vendor tools (iverilog, Verilator). Not for
// synthesis: yosys' ECP5 library has the cell. Each half: its LUT4 (INIT) is the propagate,
// the LUT2 of A and B on INIT[3:0] the generate; with INJECT1 "YES" the half ignores the
// carry in. Semantics as the ECP5 family data sheet and yosys' cell model give them.
module CCU2C #(
    parameter [15:0] INIT0 = 16'h0000,
    parameter [15:0] INIT1 = 16'h0000,
    parameter INJECT1_0 = "YES",
    parameter INJECT1_1 = "YES"
) (
    input CIN,
    input A0, input B0, input C0, input D0,
    input A1, input B1, input C1, input D1,
    output S0, output S1, output COUT
);
    wire p0 = INIT0[{D0, C0, B0, A0}];
    wire g0 = INIT0[{B0, A0}];
    wire c0 = (INJECT1_0 == "YES") ? 1'b0 : CIN;
    wire co0 = p0 ? CIN : ((INJECT1_0 == "YES") ? 1'b0 : g0);
    assign S0 = p0 ^ c0;
    wire p1 = INIT1[{D1, C1, B1, A1}];
    wire g1 = INIT1[{B1, A1}];
    wire c1 = (INJECT1_1 == "YES") ? 1'b0 : co0;
    assign S1 = p1 ^ c1;
    assign COUT = p1 ? co0 : ((INJECT1_1 == "YES") ? 1'b0 : g1);
endmodule
