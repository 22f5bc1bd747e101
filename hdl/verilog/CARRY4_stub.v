// Port list of the Xilinx CARRY4 primitive, read as a black box when checking our Verilog.
(* blackbox *)
module CARRY4 (output [3:0] CO, output [3:0] O, input CI, input CYINIT, input [3:0] DI, input [3:0] S);
endmodule
