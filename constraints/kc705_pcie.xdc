# kc705 (xc7k325t-2-ffg900): pins and clock of the PCIe top `queens_pcie` (the XDMA IP places the lanes).
set_property PACKAGE_PIN U8 [get_ports pcie_refclk_p]
set_property PACKAGE_PIN U7 [get_ports pcie_refclk_n]
set_property -dict {PACKAGE_PIN G25 IOSTANDARD LVCMOS25} [get_ports pcie_perst_n]
set_property -dict {PACKAGE_PIN L26 IOSTANDARD LVCMOS25} [get_ports fan_pwm]
create_clock -period 10.000 -name clk_ref [get_ports pcie_refclk_p]
# UART, fan and reset are asynchronous to the compute clock.
set_false_path -from [get_ports {pcie_perst_n}]
set_false_path -to [get_ports {fan_pwm}]
