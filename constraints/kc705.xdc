# kc705 (xc7k325t-2-ffg900): pins and clock of the board top `queens_board`.
set_property -dict {PACKAGE_PIN AD12 IOSTANDARD LVDS} [get_ports clk_p]
set_property -dict {PACKAGE_PIN AD11 IOSTANDARD LVDS} [get_ports clk_n]
set_property -dict {PACKAGE_PIN M19 IOSTANDARD LVCMOS25} [get_ports uart_rx]
set_property -dict {PACKAGE_PIN K24 IOSTANDARD LVCMOS25} [get_ports uart_tx]
set_property -dict {PACKAGE_PIN K23 IOSTANDARD LVCMOS25} [get_ports uart_rts]
set_property -dict {PACKAGE_PIN L27 IOSTANDARD LVCMOS25} [get_ports uart_cts]
set_property -dict {PACKAGE_PIN L26 IOSTANDARD LVCMOS25} [get_ports fan_pwm]
create_clock -period 5.000 -name clk_ref [get_ports clk_p]
# UART, fan and reset are asynchronous to the compute clock.
set_false_path -from [get_ports {uart_rx uart_rts}]
set_false_path -to [get_ports {uart_tx uart_cts fan_pwm}]
