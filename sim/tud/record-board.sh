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
work=$root/target/tud-board-ghdl
# shellcheck source=uart-board.sh
source "$root/sim/tud/uart-board.sh"
ghdl_ -a "$root/sim/tud/board_tb.vhdl"
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
