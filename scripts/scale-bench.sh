#!/usr/bin/env bash
# The campaign file at scale: for each N given (default 20 22 24), create a campaign, open it
# as a run does (clean stop, then after a SIGKILL), answer `db stats`, recount it, and check
# every entry; print seconds and peak resident memory of each step, and both per billion
# entries, so that growth faster than the entries shows.
#
#   scripts/scale-bench.sh [--dir DIR] [N ...]      e.g. scripts/scale-bench.sh 20 22 24 27
#
# Needs the release binary (cargo build --release -p queens-host) and GNU time. N = 27 needs
# 33 GB free in DIR (default: target/scale-bench), N = 28 49 GB; each campaign is deleted
# after its row.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/scale-bench
if [[ ${1:-} == --dir ]]; then
    dir=$2
    shift 2
fi
ns=("$@")
((${#ns[@]})) || ns=(20 22 24)
queens=$PWD/target/release/queens
[[ -x $queens ]] || { echo "build it first: cargo build --release -p queens-host" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "GNU time is needed: apt-get install time" >&2; exit 1; }
mkdir -p "$dir"

# Runs a step under GNU time; prints "seconds peak-RSS-MB".
measure() {
    local out
    out=$(mktemp)
    /usr/bin/time -f '%e %M' -o "$out" "$@" >/dev/null 2>>"$dir/log" || true
    # The last line: GNU time puts "Command exited with non-zero status" before it.
    tail -1 "$out" | awk '{ printf "%s %.0f", $1, $2 / 1024 }'
    rm -f "$out"
}

# A run stopped as soon as its first subproblems have gone out: the seconds it says that
# took (from its start, the campaign opened on the way), and its peak resident memory.
first_send() {
    local c=$1 n=$2 line secs=
    coproc RUN { exec /usr/bin/time -f '%e %M' -o "$dir/run.time" "$queens" run "$n" --campaign "$c" \
        --link sim:8 --sim-clock 250MHz 2>&1; }
    while IFS= read -r line <&"${RUN[0]}"; do
        echo "$line" >>"$dir/log"
        if [[ $line == "first subproblems sent "* ]]; then
            secs=${line#first subproblems sent }
            secs=${secs%% *}
            break
        fi
    done
    # GNU time ignores SIGINT: the run under it is stopped.
    pkill -INT -P "$RUN_PID" 2>/dev/null || true
    wait "$RUN_PID" 2>/dev/null || true
    tail -1 "$dir/run.time" | awk -v s="${secs:-nan}" '{ printf "%s %.0f", s, $2 / 1024 }'
}

printf '%-3s %14s  %-22s %-22s %-22s %-22s %-22s %-22s\n' N entries create open open-after-kill \
    stats stats-recount verify-entries
for n in "${ns[@]}"; do
    c=$dir/q$n.campaign
    rm -f "$c" "$c".*
    create=$(measure "$queens" subproblems "$n" --out "$c")
    entries=$(($(stat -c %s "$c") / 16))
    open=$(first_send "$c" "$n")
    # A run killed while it holds work: its open blocks are read again at the next start.
    "$queens" run "$n" --campaign "$c" --link sim:8 --sim-clock 250MHz >/dev/null 2>&1 &
    pid=$!
    sleep 3
    kill -9 $pid 2>/dev/null || true
    wait $pid 2>/dev/null || true
    killed=$(first_send "$c" "$n")
    stats=$(measure "$queens" db stats "$c")
    recount=$(measure "$queens" db stats --recount "$c")
    verify=$(measure "$queens" db verify --entries "$c")
    per() { # "seconds MB" -> "seconds (s/G) MB"
        awk -v e="$entries" '{ printf "%6.1f s %6.1f s/G %5d MB", $1, $1 * 1e9 / e, $2 }' <<<"$1"
    }
    printf '%-3s %14s  %-22s %-22s %-22s %-22s %-22s %-22s\n' "$n" "$entries" "$(per "$create")" \
        "$(per "$open")" "$(per "$killed")" "$(per "$stats")" "$(per "$recount")" "$(per "$verify")"
    rm -f "$c" "$c".*
done
