# vc707 (xc7vx485t-2-ffg1761): pins and clock of the board top `queens_board`.
set_property -dict {PACKAGE_PIN E19 IOSTANDARD LVDS} [get_ports clk_p]
set_property -dict {PACKAGE_PIN E18 IOSTANDARD LVDS} [get_ports clk_n]
set_property -dict {PACKAGE_PIN AU33 IOSTANDARD LVCMOS18} [get_ports uart_rx]
set_property -dict {PACKAGE_PIN AU36 IOSTANDARD LVCMOS18} [get_ports uart_tx]
set_property -dict {PACKAGE_PIN AT32 IOSTANDARD LVCMOS18} [get_ports uart_rts]
set_property -dict {PACKAGE_PIN AR34 IOSTANDARD LVCMOS18} [get_ports uart_cts]
set_property -dict {PACKAGE_PIN BA37 IOSTANDARD LVCMOS18} [get_ports fan_pwm]
create_clock -period 5.000 -name clk_ref [get_ports clk_p]
# UART, fan and reset are asynchronous to the compute clock.
set_false_path -from [get_ports {uart_rx uart_rts}]
set_false_path -to [get_ports {uart_tx uart_cts fan_pwm}]
