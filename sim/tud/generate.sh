#!/usr/bin/env bash
# Regenerates sim/tud/cycles.txt: Queens@TUD's solver unit, simulated from its own VHDL by
# GHDL, on sets of subproblems; sim/src/tud.rs must reproduce every line (sim/tests/tud.rs).
#
#   sim/tud/generate.sh [Q27_CHECKOUT]
#
# Q27_CHECKOUT is a checkout of https://github.com/preusser/q27 (cloned into target/q27 when
# not given); commit c8df61d is used. Needs ghdl (Debian: ghdl, 2.0.0) and a release build of
# `queens` (QUEENS to override). Prints each set's total cycles: all of N = 12 and 13 and the
# first 1,337 of N = 17 are the totals sim/src/cycles.rs states as Queens@TUD's.
set -euo pipefail
# shellcheck source=q27.sh
source "$(dirname "$0")/q27.sh" "${1:-}" src/vhdl/queens/queens_slice.vhdl generate.sh
vhdl=$q27/src/vhdl
work=$root/target/tud-ghdl
rm -rf "$work" && mkdir -p "$work"
ghdl_() { ghdl "$1" --std=08 --workdir="$work" -P"$work" "${@:2}"; }
# PoC's utils (log2ceil) reads a board configuration package; any board's will do.
ghdl_ -a --work=poc -Wno-hide "$vhdl/PoC/common/my_config_KC705.vhdl" "$vhdl/PoC/common/my_project.vhdl" \
    "$vhdl/PoC/common/utils.vhdl"
ghdl_ -a "$vhdl/queens/arbit_forward.vhdl" "$vhdl/queens/queens_slice.vhdl" \
    "$vhdl/queens/expand_blocking.vhdl" "$root/sim/tud/cycles_tb.vhdl"
ghdl_ -e cycles_tb

out=$root/sim/tud/cycles.txt
{
    echo "# Queens@TUD's queens_slice (preusser/q27 $commit, L = 2) under $(ghdl --version | head -1)"
    echo "# made by sim/tud/generate.sh; one subproblem per line:"
    echo "# N  wire word (hex)  cycles  solutions"
} >"$out"

# run SET_NAME N KEEP_EVERY: the words on stdin through the unit; every KEEP_EVERY-th line kept.
run() {
    local name=$1 n=$2 keep=$3
    awk '{print $NF}' >"$work/words.txt"
    (cd "$work" && ghdl_ -r cycles_tb -gN="$n" -gWORDS=words.txt -gRESULTS=results.txt >/dev/null)
    paste -d' ' "$work/words.txt" "$work/results.txt" |
        awk -v n="$n" -v k="$keep" '(NR - 1) % k == 0 {print n, $1, $2, $3}' >>"$out"
    awk -v name="$name" -v n="$n" '{c += $1; s += $2; k++}
        END {printf "N = %d, %s: %d subproblems, %d cycles, %d solutions\n", n, name, k, c, s}' "$work/results.txt"
}

for n in 8 9 10; do "$queens" subproblems $n | run all $n 1; done
for n in 11 12 13; do "$queens" subproblems $n | run all $n 10; done
"$queens" subproblems 17 | awk 'NR <= 1337' | run "first 1,337" 17 1
"$queens" subproblems 17 --spread 300 | run "300 spread" 17 1
"$queens" subproblems 20 --spread 30 | run "30 spread" 20 1
echo "wrote $out ($(grep -vc '^#' "$out") subproblems)"
