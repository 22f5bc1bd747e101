# vc707 (xc7vx485t-2-ffg1761): pins and clock of the PCIe top `queens_pcie` (the XDMA IP places the lanes).
set_property PACKAGE_PIN AB8 [get_ports pcie_refclk_p]
set_property PACKAGE_PIN AB7 [get_ports pcie_refclk_n]
set_property -dict {PACKAGE_PIN AV35 IOSTANDARD LVCMOS18} [get_ports pcie_perst_n]
set_property -dict {PACKAGE_PIN BA37 IOSTANDARD LVCMOS18} [get_ports fan_pwm]
create_clock -period 10.000 -name clk_ref [get_ports pcie_refclk_p]
# UART, fan and reset are asynchronous to the compute clock.
set_false_path -from [get_ports {pcie_perst_n}]
set_false_path -to [get_ports {fan_pwm}]
