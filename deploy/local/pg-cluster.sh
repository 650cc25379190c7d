#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster in a directory of its own, for tests, benchmarks and
# development (docs/storage/postgresql.md, "A throwaway cluster").
#
#   pg-cluster.sh start DIR   create DIR if needed, initdb DIR/data if it has none, start the server
#                             listening on the unix socket in DIR/socket (and on TCP only with
#                             PG_LISTEN); prints the connection URL on stdout
#   pg-cluster.sh stop DIR    stop it at once (pg_ctl stop -m immediate: like a crash; the data stays)
#   pg-cluster.sh remove DIR  stop it if it runs, then delete DIR
#   pg-cluster.sh url DIR     print the connection URL
#
# PostgreSQL refuses to run as root: started by root, initdb and pg_ctl run as the `postgres` user
# (runuser), and DIR is handed to that user; anyone else runs them as themselves. The server logs to
# DIR/server.log. PG_BIN (default /usr/lib/postgresql/15/bin) picks other binaries; PG_OPTIONS adds
# server options (e.g. "-c fsync=off").
#
# PG_LISTEN=ADDRESS also listens on TCP at ADDRESS:PG_PORT (default 5432), trusting connections from
# PG_ALLOW (a CIDR, default ADDRESS/32) without a password: for a private network such as the bridge of
# deploy/local/hosts.sh, never a shared one. The URL printed is then postgresql://postgres@ADDRESS:PG_PORT/postgres.
set -euo pipefail

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_OPTIONS=${PG_OPTIONS:-}
PG_LISTEN=${PG_LISTEN:-}
PG_PORT=${PG_PORT:-5432}
PG_ALLOW=${PG_ALLOW:-${PG_LISTEN:+$PG_LISTEN/32}}

usage() {
    echo "usage: $0 start|stop|remove|url DIR" >&2
    exit 2
}

[ $# -eq 2 ] || usage
command=$1
dir=$2
[ -n "$dir" ] || usage
case "$dir" in /*) ;; *) dir="$PWD/$dir" ;; esac

as_owner() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

url() {
    if [ -n "$PG_LISTEN" ]; then
        echo "postgresql://postgres@$PG_LISTEN:$PG_PORT/postgres"
    else
        echo "postgresql:///postgres?host=$dir/socket&user=postgres"
    fi
}

running() {
    [ -f "$dir/data/postmaster.pid" ] && as_owner "$PG_BIN/pg_ctl" -D "$dir/data" status >/dev/null 2>&1
}

case "$command" in
start)
    if [ ! -x "$PG_BIN/initdb" ]; then
        echo "error: $PG_BIN/initdb not found (apt-get install postgresql-15, or set PG_BIN)" >&2
        exit 1
    fi
    mkdir -p "$dir/socket"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir" "$dir/socket"; fi
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        as_owner "$PG_BIN/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C --no-sync \
            >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    if [ -n "$PG_ALLOW" ] && ! grep -q "^host all all $PG_ALLOW trust\$" "$dir/data/pg_hba.conf"; then
        echo "host all all $PG_ALLOW trust" | as_owner tee -a "$dir/data/pg_hba.conf" >/dev/null
    fi
    if ! running; then
        as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
            -o "-c listen_addresses='$PG_LISTEN' -p $PG_PORT -c unix_socket_directories='$dir/socket' $PG_OPTIONS" start >/dev/null 2>"$dir/pg_ctl.log" \
            || { cat "$dir/pg_ctl.log" >&2; tail -n 20 "$dir/server.log" >&2; exit 1; }
    fi
    url
    ;;
stop)
    if running; then as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null; fi
    ;;
remove)
    if running; then as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null; fi
    # Only a directory this script made: it holds data/PG_VERSION or at least socket/.
    if [ -f "$dir/data/PG_VERSION" ] || [ -d "$dir/socket" ]; then rm -rf -- "$dir"; fi
    ;;
url)
    url
    ;;
*)
    usage
    ;;
esac
