# u55c (xcu55c-fsvh2892-2L-e): pins and clock of the PCIe top `queens_pcie` (the XDMA IP places the lanes).
set_property PACKAGE_PIN AR15 [get_ports pcie_refclk_p]
set_property PACKAGE_PIN AR14 [get_ports pcie_refclk_n]
set_property -dict {PACKAGE_PIN BF41 IOSTANDARD LVCMOS18} [get_ports pcie_perst_n]
create_clock -period 10.000 -name clk_ref [get_ports pcie_refclk_p]
# UART, fan and reset are asynchronous to the compute clock.
set_false_path -from [get_ports {pcie_perst_n}]
