#!/usr/bin/env bash
# The whole test suite, from a fresh clone on a fresh Debian machine: installs what the tests
# need when it is missing, then runs every test of the workspace and sums the results.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests use: yosys (synthesis checks and cost), iverilog (Verilog
# simulation), verilator with a C++ compiler and make (the emitted design as a simulated
# board), tclsh (vendor scripts).
need=()
command -v yosys >/dev/null || need+=(yosys)
command -v iverilog >/dev/null || need+=(iverilog)
command -v verilator >/dev/null || need+=(verilator)
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
command -v tclsh >/dev/null || need+=(tcl)
if ((${#need[@]})); then
    echo "installing: ${need[*]}"
    # apt's download sandbox user cannot always write /dev/null in containers; stay root.
    apt="apt-get -o APT::Sandbox::User=root"
    $apt update -qq || echo "apt-get update failed; trying the package lists at hand"
    DEBIAN_FRONTEND=noninteractive $apt install -y -qq "${need[@]}" >/dev/null
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
cargo test --workspace --locked "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
# One closing line for the whole suite (cargo prints one per test binary).
awk '/^test result:/ { p += $4; f += $6 } END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
