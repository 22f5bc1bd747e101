#!/usr/bin/env bash
# The whole test suite, from a fresh clone on a fresh Debian machine: installs what the tests
# need when it is missing, then runs every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests use (later: verilator, yosys, iverilog).
need=()
command -v tclsh >/dev/null || need+=(tcl)
if ((${#need[@]})); then
    echo "installing: ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

cargo test --workspace --locked "$@"
