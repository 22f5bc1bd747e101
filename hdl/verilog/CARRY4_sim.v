// Behavioural model of the Xilinx CARRY4 primitive, for simulating the carry4 arbiter outside
// the vendor tools (iverilog, Verilator). Not for synthesis: the vendor library has the cell.
module CARRY4 (output [3:0] CO, output [3:0] O, input CI, input CYINIT, input [3:0] DI, input [3:0] S);
    wire c0 = CI | CYINIT;
    assign CO[0] = S[0] ? c0 : DI[0];
    assign CO[1] = S[1] ? CO[0] : DI[1];
    assign CO[2] = S[2] ? CO[1] : DI[2];
    assign CO[3] = S[3] ? CO[2] : DI[3];
    assign O = S ^ {CO[2:0], c0};
endmodule
