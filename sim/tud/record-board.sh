#!/usr/bin/env bash
# Records sim/tud/board/: Queens@TUD's whole UART board (queens_uart: UART, input FIFO,
# unframer, 4 solvers, output FIFO, framer) for N = 10, simulated by GHDL from their VHDL and
# driven through its rx and tx pins by our testbench (board_tb.vhdl) with the stimulus that
# board.py writes; the model sim/src/tud_board.rs must replay it (sim/tests/tud_board.rs).
#
#   sim/tud/record-board.sh [Q27_CHECKOUT]
#
# Q27_CHECKOUT as for generate.sh (cloned into target/q27 when not given; commit c8df61d).
# Needs ghdl (Debian: ghdl, 2.0.0; ghdl-llvm makes it about twice as fast), python3 and a
# release build of `queens` (QUEENS to override). About 5 minutes with ghdl-llvm.
set -euo pipefail
# shellcheck source=q27.sh
source "$(dirname "$0")/q27.sh" "${1:-}" src/vhdl/queens/queens_uart.vhdl record-board.sh
backend=${GHDL_BACKEND:-}
if [ -z "$backend" ] && command -v ghdl-llvm >/dev/null 2>&1; then
    backend=llvm
fi
v=$q27/src/vhdl
work=$root/target/tud-board-ghdl
rm -rf "$work" && mkdir -p "$work"
ghdl_() { GHDL_BACKEND=$backend ghdl "$1" --std=08 -frelaxed --workdir="$work" -P"$work" "${@:2}"; }
p=$v/PoC
ghdl_ -a --work=poc -Wno-hide "$p/common/my_config_KC705.vhdl" "$p/common/my_project.vhdl" \
    "$p/common/utils.vhdl" "$p/common/config.vhdl" "$p/common/strings.vhdl" \
    "$p/common/vectors.vhdl" "$p/common/physical.vhdl" "$p/common/components.vhdl" \
    "$p/arith/arith_counter_free.vhdl" "$p/ocram/ocram.pkg.vhdl" "$p/ocram/ocram_sdp.vhdl" \
    "$p/fifo/fifo.pkg.vhdl" "$p/fifo/fifo_glue.vhdl" "$p/fifo/fifo_cc_got.vhdl" \
    "$p/fifo/fifo_cc_got_tempput.vhdl" "$p/uart/uart.pkg.vhdl" "$p/uart/uart_rx.vhdl" \
    "$p/uart/uart_tx.vhdl" 2>/dev/null
q=$v/queens
ghdl_ -a "$q/arbit_forward.vhdl" "$q/queens_slice.vhdl" "$q/expand_blocking.vhdl" \
    "$q/msg_tap.vhdl" "$q/msg_funnel.vhdl" "$q/enframe.vhdl" "$q/unframe.vhdl" \
    "$q/queens_chain.vhdl" "$q/queens_uart.vhdl" "$root/sim/tud/board_tb.vhdl" 2>/dev/null
(cd "$work" && ghdl_ -e board_tb 2>/dev/null)

out=$root/sim/tud/board
mkdir -p "$out"
# 1.8432 MHz: 16 cycles a bit at 115,200 baud; one paced frame every 3,200 cycles (a result
# frame with cycle counters takes 19 bytes, 3,040 cycles).
"$queens" subproblems 10 | python3 "$root/sim/tud/board.py" stimulus 10 3200 >"$out/stimulus.txt"
for c in true false; do
    (cd "$work" && ghdl_ -r board_tb -gCLK_FREQ=1843200 -gCOUNT_CYCLES=$c -gSTIMULUS="$out/stimulus.txt" \
        -gRECORDING="recording-$c.txt" --ieee-asserts=disable >/dev/null)
done
python3 "$root/sim/tud/board.py" frames 17 160 <"$work/recording-true.txt" >"$out/frames-cycles.txt"
python3 "$root/sim/tud/board.py" frames 11 160 <"$work/recording-false.txt" >"$out/frames-plain.txt"
echo "wrote $out: $(grep -vc '^#' "$out/frames-cycles.txt") frames with cycle counters, $(grep -vc '^#' "$out/frames-plain.txt") without"
