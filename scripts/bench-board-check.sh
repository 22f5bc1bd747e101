#!/usr/bin/env bash
# The bring-up check's sweep: `queens board check` against healthy simulated boards across N,
# units and clocks, each case RUNS times (default 5), optionally with both cores kept busy
# (BUSY=1); then a board at half its clock, which must fail. Prints one line per case and
# exits non-zero if any healthy board failed or the slow one passed.
#
#   scripts/bench-board-check.sh            # release build of queens on PATH or in target/
#   RUNS=1 NS="10 12" scripts/bench-board-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
Q=${QUEENS:-target/release/queens}
[ -x "$Q" ] || cargo build --release -p queens-host --bin queens
RUNS=${RUNS:-5}
NS=${NS:-8 10 12 14 17}
CLOCKS=${CLOCKS:-20kHz 1MHz 250MHz}
UNITS=${UNITS:-4 12}
port=7600
busy=()
if [ "${BUSY:-0}" = 1 ]; then
    for _ in 1 2; do (while :; do :; done) & busy+=($!); done
fi
board() { # N UNITS CLOCK EXTRA...: starts a board, sets $link and $pid
    local n=$1 u=$2 c=$3; shift 3
    port=$((port + 1))
    "$Q" sim board --n "$n" --solvers "$u" --clock "$c" --listen "127.0.0.1:$port" "$@" >/dev/null 2>&1 &
    pid=$!
    link="tcp:127.0.0.1:$port"
    sleep 0.3
}
bad=0
for n in $NS; do for u in $UNITS; do for c in $CLOCKS; do
    pass=0
    for _ in $(seq "$RUNS"); do
        board "$n" "$u" "$c"
        if "$Q" board check "$link" --n "$n" >/tmp/bench-board-check.$$ 2>&1; then pass=$((pass + 1)); fi
        kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
    done
    printf 'N = %-2s %2s units %-7s %d of %d passed   %s\n' "$n" "$u" "$c" "$pass" "$RUNS" \
        "$(grep -m1 'clock:' /tmp/bench-board-check.$$ | sed 's/^ *//')"
    [ "$pass" = "$RUNS" ] || { bad=1; cat /tmp/bench-board-check.$$; }
done; done; done
board 12 4 20kHz --claim-clock 40kHz
if "$Q" board check "$link" --n 12 >/tmp/bench-board-check.$$ 2>&1; then
    echo "a board at half its clock PASSED"; bad=1
else
    echo "a board at half its clock fails: $(grep -m1 'likely cause' /tmp/bench-board-check.$$ | sed 's/^ *//')"
fi
kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
for p in "${busy[@]}"; do kill "$p"; done
rm -f /tmp/bench-board-check.$$
exit $bad
