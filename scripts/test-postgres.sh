#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: a fresh cluster in a temporary directory that
# listens on 127.0.0.1 only, with password login for the role "queens", and TLS with a
# certificate for 127.0.0.1 signed by a throwaway CA (QUEENS_TEST_POSTGRES_CA).
#   eval "$(scripts/test-postgres.sh start)"   # exports QUEENS_TEST_POSTGRES, PGPASSWORD, ...
#   scripts/test-postgres.sh stop "$QUEENS_TEST_POSTGRES_DIR"
# The URL carries no password: the tests log in through PGPASSWORD, as users should.
set -euo pipefail

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [[ -z "$bin" || ! -x "$bin/pg_ctl" ]]; then
    echo "no PostgreSQL server installed (Debian package: postgresql)" >&2
    exit 1
fi
# The server refuses to run as root: run it as the postgres user the package creates.
as=()
if [[ $(id -u) == 0 ]]; then
    as=(runuser -u postgres --)
    # Some containers give /dev/null mode 755; initdb's shell commands write to it.
    if ! runuser -u postgres -- sh -c ': >/dev/null' 2>/dev/null; then
        chmod a+rw /dev/null
    fi
fi

case "${1:-}" in
start)
    dir=$(mktemp -d /tmp/queens-pg.XXXXXX)
    head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$dir/pw"
    # A CA and a server certificate for 127.0.0.1 (the tests verify it, as users should).
    openssl req -x509 -newkey rsa:2048 -nodes -days 3 -subj "/CN=queens test CA" \
        -keyout "$dir/ca.key" -out "$dir/ca.crt" >/dev/null 2>&1
    openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
        -keyout "$dir/server.key" -out "$dir/server.csr" >/dev/null 2>&1
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$dir/san.ext"
    openssl x509 -req -days 3 -in "$dir/server.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" \
        -CAcreateserial -extfile "$dir/san.ext" -out "$dir/server.crt" >/dev/null 2>&1
    chmod 600 "$dir/server.key"
    chmod 644 "$dir/ca.crt"
    [[ ${#as[@]} == 0 ]] || chown -R postgres "$dir"
    "${as[@]}" "$bin/initdb" -D "$dir/data" -U queens --pwfile="$dir/pw" \
        --auth=scram-sha-256 --encoding=UTF8 --no-instructions >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; exit 1; }
    for attempt in 1 2 3 4 5; do
        port=$((20000 + RANDOM % 20000))
        if "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
            -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c ssl=on -c ssl_cert_file=$dir/server.crt -c ssl_key_file=$dir/server.key" \
            start >/dev/null; then
            echo "export QUEENS_TEST_POSTGRES=postgres://queens@127.0.0.1:$port/postgres"
            echo "export QUEENS_TEST_POSTGRES_DIR=$dir"
            echo "export QUEENS_TEST_POSTGRES_CA=$dir/ca.crt"
            echo "export PGPASSWORD=$(cat "$dir/pw")"
            exit 0
        fi
    done
    cat "$dir/server.log" >&2
    exit 1
    ;;
stop)
    dir=${2:?usage: $0 stop DIR}
    "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
*)
    echo "usage: $0 start | stop DIR" >&2
    exit 2
    ;;
esac
