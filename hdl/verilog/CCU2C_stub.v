// Port list of the Lattice ECP5 CCU2C cell as a black box, for checks outside the vendor tools.
(* blackbox *)
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
endmodule
