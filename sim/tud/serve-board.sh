#!/usr/bin/env bash
# Serves Queens@TUD's whole UART board (queens_uart: UART, input FIFO, unframer, 4 solvers,
# output FIFO, framer) live behind a TCP port: their VHDL under GHDL, its rx and tx pins
# bridged to one host connection at a time by our testbench (bridge_tb.vhdl, bridge.c).
# `queens board check tcp:127.0.0.1:PORT --n N` and `queens run N --link tcp:...` then talk
# to it as to a board on a serial line, only slower: the clock is 1.8432 MHz (16 cycles a
# bit at 115,200 baud) and GHDL runs it slower than real time. Runs until killed.
#
#   sim/tud/serve-board.sh [--no-cycles] [--n N] [PORT]   # PORT 7027 when not given, 0: any
#
# --no-cycles: results without the cycle counter (COUNT_CYCLES false). N defaults to 10.
# Q27 names a checkout of their VHDL (cloned into target/q27 when not given; commit c8df61d).
# Needs ghdl-llvm or ghdl-gcc (mcode cannot link bridge.c; Debian 12: 2.0.0) and a C compiler.
set -euo pipefail
cycles=true
n=10
port=7027
while [ $# -gt 0 ]; do
    case $1 in
    --no-cycles) cycles=false ;;
    --n) n=$2; shift ;;
    -*) echo "usage: $0 [--no-cycles] [--n N] [PORT]" >&2; exit 2 ;;
    *) port=$1 ;;
    esac
    shift
done
# shellcheck source=q27.sh
source "$(dirname "$0")/q27.sh" "${Q27:-}" src/vhdl/queens/queens_uart.vhdl serve-board.sh
backend=${GHDL_BACKEND:-}
if [ -z "$backend" ]; then
    for b in llvm gcc; do
        if command -v ghdl-$b >/dev/null 2>&1; then backend=$b; break; fi
    done
fi
if [ -z "$backend" ] || [ "$backend" = mcode ]; then
    echo "serve-board.sh: needs ghdl-llvm or ghdl-gcc: mcode cannot link bridge.c" >&2
    exit 127
fi
work=$root/target/tud-bridge-ghdl
# shellcheck source=uart-board.sh
source "$root/sim/tud/uart-board.sh"
ghdl_ -a "$root/sim/tud/bridge_tb.vhdl"
cc -O2 -c -o "$work/bridge.o" "$root/sim/tud/bridge.c"
(cd "$work" && ghdl_ -e -Wl,"$work/bridge.o" bridge_tb 2>/dev/null)
echo "GHDL ($backend): queens_uart N = $n, 4 solvers, COUNT_CYCLES $cycles, 1.8432 MHz" >&2
# The metavalue warnings of their design would flood stderr; the bridge's own lines stay.
cd "$work" && exec ./bridge_tb -gN="$n" -gCOUNT_CYCLES="$cycles" -gTCP_PORT="$port" \
    --ieee-asserts=disable
