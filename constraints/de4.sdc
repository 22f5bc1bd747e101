# de4 (EP4SGX230KF40C2): clocks of the board top `queens_board`.
create_clock -name clk_ref -period 20.000 [get_ports {clk}]
derive_pll_clocks
derive_clock_uncertainty
# UART, fan and reset are asynchronous to the compute clock.
set_false_path -from [get_ports {uart_rx uart_rts reset_n}]
set_false_path -to [get_ports {uart_tx uart_cts fan_pwm}]
