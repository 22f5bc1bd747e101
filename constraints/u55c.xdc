# u55c (xcu55c-fsvh2892-2L-e): pins and clock of the board top `queens_board`.
set_property -dict {PACKAGE_PIN BK43 IOSTANDARD LVDS} [get_ports clk_p]
set_property -dict {PACKAGE_PIN BK44 IOSTANDARD LVDS} [get_ports clk_n]
set_property -dict {PACKAGE_PIN BK41 IOSTANDARD LVCMOS18} [get_ports uart_rx]
set_property -dict {PACKAGE_PIN BJ41 IOSTANDARD LVCMOS18} [get_ports uart_tx]
create_clock -period 10.000 -name clk_ref [get_ports clk_p]
# UART, fan and reset are asynchronous to the compute clock.
set_false_path -from [get_ports {uart_rx}]
set_false_path -to [get_ports {uart_tx}]
