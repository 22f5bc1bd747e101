# Sourced by record-board.sh and serve-board.sh after q27.sh: analyses Queens@TUD's whole
# UART board design (queens_uart and the PoC units it uses) from the checkout `$q27` into
# the GHDL work directory `$work` (made empty first) with backend `$backend`, and defines
# ghdl_ for the caller's own testbench. Their warnings (hidden names, metavalues) are theirs.
rm -rf "$work" && mkdir -p "$work"
ghdl_() { GHDL_BACKEND=$backend ghdl "$1" --std=08 -frelaxed --workdir="$work" -P"$work" "${@:2}"; }
p=$q27/src/vhdl/PoC
ghdl_ -a --work=poc -Wno-hide "$p/common/my_config_KC705.vhdl" "$p/common/my_project.vhdl" \
    "$p/common/utils.vhdl" "$p/common/config.vhdl" "$p/common/strings.vhdl" \
    "$p/common/vectors.vhdl" "$p/common/physical.vhdl" "$p/common/components.vhdl" \
    "$p/arith/arith_counter_free.vhdl" "$p/ocram/ocram.pkg.vhdl" "$p/ocram/ocram_sdp.vhdl" \
    "$p/fifo/fifo.pkg.vhdl" "$p/fifo/fifo_glue.vhdl" "$p/fifo/fifo_cc_got.vhdl" \
    "$p/fifo/fifo_cc_got_tempput.vhdl" "$p/uart/uart.pkg.vhdl" "$p/uart/uart_rx.vhdl" \
    "$p/uart/uart_tx.vhdl" 2>/dev/null
q=$q27/src/vhdl/queens
ghdl_ -a "$q/arbit_forward.vhdl" "$q/queens_slice.vhdl" "$q/expand_blocking.vhdl" \
    "$q/msg_tap.vhdl" "$q/msg_funnel.vhdl" "$q/enframe.vhdl" "$q/unframe.vhdl" \
    "$q/queens_chain.vhdl" "$q/queens_uart.vhdl" 2>/dev/null
