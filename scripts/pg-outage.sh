#!/usr/bin/env bash
# A PostgreSQL outage against the lease length: two hosts share one campaign on a throwaway
# server (scripts/test-postgres.sh), each with a simulated board; a third of the way through
# the database goes away for OUTAGE seconds:
#   crash   the server is stopped at once, as a crash stops it, and started again: both hosts
#           lose it;
#   cut     host 2 reaches the server through a relay whose connections are cut, as a pulled
#           cable or a network fault cuts them: host 1 goes on.
# Prints, per host, what it solved and how much of it was work done twice: results for
# entries the other host had solved meanwhile (its lease had lapsed and the other host took
# the block; compared, not counted again) and results the server refused (for blocks the
# other host holds now); and the total against Q(N).
#
#   scripts/pg-outage.sh MODE N LEASE OUTAGE [SIM_CLOCK] [UNITS]
#   scripts/pg-outage.sh cut 13 10 30 25kHz 8
#
# QUEENS names the binary (default: target/release/queens, `cargo build --release`).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?crash or cut}
n=${2:?N}
lease=${3:?LEASE seconds}
outage=${4:?OUTAGE seconds}
clock=${5:-25kHz}
units=${6:-8}
queens=${QUEENS:-target/release/queens}

eval "$(scripts/test-postgres.sh start)"
dir=$QUEENS_TEST_POSTGRES_DIR
logs=$(mktemp -d)
relay=
cleanup() {
    [[ -z $relay ]] || kill "$relay" 2>/dev/null || true
    scripts/test-postgres.sh stop "$dir"
    rm -rf "$logs"
}
trap cleanup EXIT
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
as=()
[[ $(id -u) != 0 ]] || as=(runuser -u postgres --)
url=$QUEENS_TEST_POSTGRES
port=${url##*:}
port=${port%%/*}

# Host 2's way to the server: a relay that drops every connection, and refuses new ones,
# while the file $logs/cut exists.
python3 - "$port" "$logs/cut" "$logs/relay-port" <<'EOF' &
import os, socket, sys, threading
target, flag, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
lsock = socket.socket(); lsock.bind(("127.0.0.1", 0)); lsock.listen(64)
open(out + ".tmp", "w").write(str(lsock.getsockname()[1])); os.rename(out + ".tmp", out)
live = []
def pump(a, b):
    try:
        while (d := a.recv(65536)):
            b.sendall(d)
    except OSError:
        pass
    for s in (a, b):
        try: s.shutdown(socket.SHUT_RDWR)
        except OSError: pass
def watch():
    import time
    while True:
        if os.path.exists(flag):
            for s in live:
                try: s.shutdown(socket.SHUT_RDWR)
                except OSError: pass
            live.clear()
        time.sleep(0.05)
threading.Thread(target=watch, daemon=True).start()
while True:
    c, _ = lsock.accept()
    if os.path.exists(flag):
        c.close(); continue
    try:
        s = socket.create_connection(("127.0.0.1", target))
    except OSError:
        c.close(); continue
    live.extend([c, s])
    threading.Thread(target=pump, args=(c, s), daemon=True).start()
    threading.Thread(target=pump, args=(s, c), daemon=True).start()
EOF
relay=$!
while [[ ! -s $logs/relay-port ]]; do sleep 0.1; done
via="postgres://queens@127.0.0.1:$(cat "$logs/relay-port")/${url##*/}"

# One host ahead, so that the campaign exists before the second one asks for it.
for h in 1 2; do
    to=$url
    [[ $h == 1 || $mode == crash ]] || to=$via
    "$queens" run "$n" --campaign "$to" --lease "$lease" --link "sim:$units" \
        --sim-clock "$clock" --accept-unconfirmed --json >"$logs/host$h.json" 2>"$logs/host$h.log" &
    eval "pid$h=$!"
    sleep 2
done
total=$("$queens" subproblems "$n" --stats --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["preplacements"])')
while :; do
    solved=$("$queens" db stats "$url" --json 2>/dev/null |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["solved"])' || echo 0)
    ((solved * 3 < total)) || break
    sleep 0.5
done
echo "$mode: the database gone at $solved of $total solved, for $outage s (lease $lease s)"
if [[ $mode == crash ]]; then
    "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null
    sleep "$outage"
    "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c ssl=on -c ssl_cert_file=$dir/server.crt -c ssl_key_file=$dir/server.key" \
        start >/dev/null
else
    touch "$logs/cut"
    sleep "$outage"
    rm "$logs/cut"
fi
echo "back"
wait "$pid1" "$pid2" || true
for h in 1 2; do
    python3 - "$logs/host$h.json" "$logs/host$h.log" "$h" <<'EOF'
import json, re, sys
log = open(sys.argv[2]).read()
try:
    r = json.load(open(sys.argv[1]))
except ValueError:
    sys.exit(f"host {sys.argv[3]} gave no report:\n{log[-2000:]}")
refused = sum(int(x) for x in re.findall(r"refused=(\d+)", log))
dropped = sum(int(x) for x in re.findall(r"dropped=(\d+)", log))
x = r["cross_checked"]
print(f"host {sys.argv[3]}: solved {r['solved']} in {r['seconds']:.0f} s; of them "
      f"{x['agreed']} already solved by the other host (same count, not counted again), "
      f"{x['disputed']} disputed, {refused} refused (lease lost); {dropped} queued entries "
      f"of lost leases dropped; total {r['total']}, complete {r['complete']}")
EOF
done
echo "Q($n) by software: $("$queens" count "$n" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')"
