#!/usr/bin/env bash
# The system on several "hosts" of one machine (deploy/local/hosts.sh): a throwaway PostgreSQL on the
# bridge, CLUSTER_AUTH_REPLICAS auth-service replicas sharing it, each on a host of its own, then
# validation-service, hero-catalog-service and the gateway on a host each, all with CURVE and the keys
# exchanged as the local stack does. Callers get every auth replica's endpoint. Needs root. The
# Makefile's cluster-up/cluster-down/cluster-status use it.
#
#   cluster.sh up      hosts, PostgreSQL, keys, then auth replicas -> validation, heroes -> gateway,
#                      each waited for until its --check answers
#   cluster.sh down    stop what `up` started (SIGTERM, then SIGKILL after CLUSTER_STOP_SECONDS), stop
#                      and delete the PostgreSQL cluster, delete the hosts; idempotent
#   cluster.sh status  what runs where: each process's host, endpoint, health and pid; the hosts
#
# Settings (environment):
#   CLUSTER_DIR            keys, state and logs (default ${XDG_STATE_HOME:-$HOME/.local/state}/reactive-login/cluster):
#                          <process>/ is each process's --state-dir (auth-1, auth-2, ... share auth/'s keys
#                          and device.key), logs/<process>.log, run/<process>.pid as in stack.sh
#   BIN_DIR                the executables (default <repository>/.build/release)
#   CLUSTER_AUTH_REPLICAS  auth-service replicas (default 3): hosts rl-h1..rl-hN; validation, heroes and
#                          the gateway on the next three
#   CLUSTER_AUTH_ARGS      extra options for every auth replica, e.g. "--hash-cost test"
#   CLUSTER_CPU            a CPU quota for every process (hosts.sh run --cpu), e.g. 0.5; none by default
#   CLUSTER_PG_PORT        PostgreSQL's port on the bridge address (default 55432)
#   CLUSTER_WAIT_SECONDS   how long each process may take to become ready (default 30)
#   CLUSTER_STOP_SECONDS   how long `down` waits after SIGTERM before SIGKILL (default 15)
#   HOSTS_NET              the hosts' network (hosts.sh; default 10.77.0: the bridge is .1, host i .(10+i))
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repository=$(cd "$here/../.." && pwd)
hosts="$here/hosts.sh"
CLUSTER_DIR=${CLUSTER_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/reactive-login/cluster}
BIN_DIR=${BIN_DIR:-$repository/.build/release}
CLUSTER_AUTH_REPLICAS=${CLUSTER_AUTH_REPLICAS:-3}
CLUSTER_AUTH_ARGS=${CLUSTER_AUTH_ARGS:-}
CLUSTER_CPU=${CLUSTER_CPU:-}
CLUSTER_PG_PORT=${CLUSTER_PG_PORT:-55432}
CLUSTER_WAIT_SECONDS=${CLUSTER_WAIT_SECONDS:-30}
CLUSTER_STOP_SECONDS=${CLUSTER_STOP_SECONDS:-15}
HOSTS_NET=${HOSTS_NET:-10.77.0}
export HOSTS_NET

program=cluster
wait_seconds=$CLUSTER_WAIT_SECONDS
stop_seconds=$CLUSTER_STOP_SECONDS
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

case $CLUSTER_AUTH_REPLICAS in
'' | *[!0-9]* | 0*) echo "cluster: error: CLUSTER_AUTH_REPLICAS must be a positive number" >&2; exit 64 ;;
esac
replicas=$CLUSTER_AUTH_REPLICAS

# Every process in start order: auth-1..auth-N, validation, heroes, gateway.
processes=()
for ((i = 1; i <= replicas; i++)); do processes+=("auth-$i"); done
processes+=(validation heroes gateway)

service_of() { case $1 in auth-*) echo auth ;; *) echo "$1" ;; esac; }

binary() {
    case $(service_of "$1") in
    auth) echo "$BIN_DIR/auth-service" ;;
    validation) echo "$BIN_DIR/validation-service" ;;
    heroes) echo "$BIN_DIR/hero-catalog-service" ;;
    gateway) echo "$BIN_DIR/gateway" ;;
    esac
}

# The host number process $1 runs on.
host_of() {
    case $1 in
    auth-*) echo "${1#auth-}" ;;
    validation) echo $((replicas + 1)) ;;
    heroes) echo $((replicas + 2)) ;;
    gateway) echo $((replicas + 3)) ;;
    esac
}

address_of() { echo "$HOSTS_NET.$((10 + $(host_of "$1")))"; }

port_of() {
    case $(service_of "$1") in auth) echo 5562 ;; validation) echo 5561 ;; heroes) echo 5563 ;; gateway) echo 5560 ;; esac
}

endpoint() { echo "tcp://$(address_of "$1"):$(port_of "$1")"; }

# Every auth replica's endpoint, separated by commas: what the callers' --auth-endpoint takes.
auth_endpoints() {
    local i list=""
    for ((i = 1; i <= replicas; i++)); do list="$list${list:+,}$(endpoint "auth-$i")"; done
    echo "$list"
}

state_of() { echo "$CLUSTER_DIR/$1"; }
log_of() { echo "$CLUSTER_DIR/logs/$1.log"; }
pid_file_of() { echo "$CLUSTER_DIR/run/$1.pid"; }
postgres_record="$CLUSTER_DIR/run/postgres.dir"

database_url() { echo "postgresql://postgres@$HOSTS_NET.1:$CLUSTER_PG_PORT/postgres"; }

service_args() {
    local state
    state=$(state_of "$1")
    case $(service_of "$1") in
    auth)
        args=(--endpoint "$(endpoint "$1")" --database "$(database_url)")
        # shellcheck disable=SC2206 # split on purpose: a list of options
        [ -n "$CLUSTER_AUTH_ARGS" ] && args+=($CLUSTER_AUTH_ARGS)
        ;;
    validation | heroes)
        args=(--endpoint "$(endpoint "$1")" --auth-endpoint "$(auth_endpoints)" --auth-public-key "$state/auth.pub")
        ;;
    gateway)
        args=(--endpoint "$(endpoint gateway)"
            --auth-endpoint "$(auth_endpoints)" --auth-public-key "$state/auth.pub"
            --validation-endpoint "$(endpoint validation)" --validation-public-key "$state/validation.pub"
            --heroes-endpoint "$(endpoint heroes)" --heroes-public-key "$state/heroes.pub")
        ;;
    esac
    return 0
}

# --check from the process's own host: prints its line, returns its exit code.
check() {
    "$hosts" run "$(host_of "$1")" "$(binary "$1")" --check --endpoint "$(endpoint "$1")" \
        --state-dir "$(state_of "$1")" 2>&1
}

start() {
    local pid cpu=()
    if pid=$(running_pid "$1"); then
        echo "$1: already running on ${HOSTS_PREFIX:-rl-}h$(host_of "$1") (pid $pid)"
        return 0
    fi
    service_args "$1"
    [ -n "$CLUSTER_CPU" ] && cpu=(--cpu "$CLUSTER_CPU")
    printf '\n==== %s start on %sh%s: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "${HOSTS_PREFIX:-rl-}" "$(host_of "$1")" "$(binary "$1")" >>"$(log_of "$1")"
    # hosts.sh run and ip netns exec both exec: the pid recorded is the service's own.
    (close_inherited_fds && exec "$hosts" run "$(host_of "$1")" "${cpu[@]}" "$(binary "$1")" \
        --state-dir "$(state_of "$1")" "${args[@]}") >>"$(log_of "$1")" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$(pid_file_of "$1")"
    wait_ready "$1" "$pid" || return 1
    echo "$1: ready at $(endpoint "$1") on ${HOSTS_PREFIX:-rl-}h$(host_of "$1") (pid $pid)"
}

# The keys: stack.sh's --init and exchange in CLUSTER_DIR (auth/, validation/, heroes/, gateway/), one
# device-token secret for all auth replicas, and auth/'s key files copied into every replica's directory.
prepare_keys() {
    STACK_DIR=$CLUSTER_DIR BIN_DIR=$BIN_DIR "$here/stack.sh" keys || fail "the key exchange failed"
    local template secret i file
    template=$(state_of auth)
    if [ ! -s "$template/device.key" ]; then
        secret=$(head -c 32 /dev/urandom | base64 -w 0 | tr '+/' '-_' | tr -d '=')
        (umask 077 && printf '%s\n' "$secret" >"$template/device.key") || fail "cannot write $template/device.key"
    fi
    for ((i = 1; i <= replicas; i++)); do
        mkdir -p "$(state_of "auth-$i")" && chmod 0700 "$(state_of "auth-$i")" || fail "cannot create $(state_of "auth-$i")"
        for file in curve.key curve.pub client.key client.pub allowed_clients device.key; do
            cmp -s "$template/$file" "$(state_of "auth-$i")/$file" ||
                install -m 0600 "$template/$file" "$(state_of "auth-$i")/$file" || fail "cannot copy $file"
        done
    done
}

start_postgres() {
    local directory
    if [ -r "$postgres_record" ]; then
        directory=$(cat "$postgres_record")
    else
        # Outside CLUSTER_DIR: the postgres user must reach it (a home directory is often 0700).
        directory=$(mktemp -d /tmp/rl-cluster-pg.XXXXXX) || fail "mktemp failed"
        chmod 0755 "$directory"
        echo "$directory" >"$postgres_record"
    fi
    PG_LISTEN=$HOSTS_NET.1 PG_PORT=$CLUSTER_PG_PORT PG_ALLOW=$HOSTS_NET.0/24 \
        "$here/pg-cluster.sh" start "$directory/pg" >/dev/null || fail "PostgreSQL did not start"
    echo "postgres: ready at $(database_url) (data in $directory/pg)"
}

stop_postgres() {
    [ -r "$postgres_record" ] || return 0
    local directory
    directory=$(cat "$postgres_record")
    case $directory in
    /tmp/rl-cluster-pg.*)
        "$here/pg-cluster.sh" remove "$directory/pg" && rmdir "$directory" 2>/dev/null
        echo "postgres: stopped and deleted"
        ;;
    *) echo "cluster: warning: $postgres_record names $directory, not a cluster directory: left alone" >&2 ;;
    esac
    rm -f "$postgres_record"
}

cmd_up() {
    [ "$(id -u)" -eq 0 ] || fail "needs root (network namespaces)"
    local name
    for name in auth validation heroes gateway; do
        [ -x "$(binary "$name")" ] || fail "$(binary "$name") not found: build first (make build-release) or set BIN_DIR"
    done
    mkdir -p "$CLUSTER_DIR/logs" "$CLUSTER_DIR/run" || fail "cannot create $CLUSTER_DIR"
    "$hosts" up $((replicas + 3)) >/dev/null || fail "hosts.sh up failed"
    start_postgres
    prepare_keys
    for name in "${processes[@]}"; do
        if ! start "$name"; then
            echo "cluster: stopping what started (cluster.sh down)" >&2
            cmd_down >&2
            exit 1
        fi
    done
    echo "logs: $CLUSTER_DIR/logs/; gateway: $(endpoint gateway) (key $(state_of gateway)/curve.pub)"
}

cmd_down() {
    [ "$(id -u)" -eq 0 ] || fail "needs root (network namespaces)"
    # Replicas of an earlier, larger cluster: every auth-<i> with a pid file.
    local file
    for file in "$CLUSTER_DIR"/run/auth-*.pid; do
        [ -e "$file" ] || continue
        file=${file##*/auth-}
        file=${file%.pid}
        [ "$file" -gt "$replicas" ] 2>/dev/null && replicas=$file
    done
    processes=()
    for ((i = 1; i <= replicas; i++)); do processes+=("auth-$i"); done
    processes+=(validation heroes gateway)
    stop_processes "${processes[@]}"
    stop_postgres
    "$hosts" down
}

cmd_status() {
    local name pid line word owner code=0
    printf '%-11s %-6s %-24s %-9s %s\n' PROCESS HOST ENDPOINT HEALTH PID
    for name in "${processes[@]}"; do
        if pid=$(running_pid "$name"); then
            owner=$pid
            line=$(check "$name")
            word=$(health_word "$line")
        else
            owner="-"
            word=down
        fi
        printf '%-11s %-6s %-24s %-9s %s\n' "$name" "${HOSTS_PREFIX:-rl-}h$(host_of "$name")" "$(endpoint "$name")" "$word" "$owner"
        case $word in ready | degraded) ;; *) code=3 ;; esac
    done
    if [ -r "$postgres_record" ]; then
        echo "postgres: $(database_url) (data in $(cat "$postgres_record")/pg)"
    else
        echo "postgres: not started"
        code=3
    fi
    "$hosts" status
    return $code
}

case ${1:-} in
up) cmd_up ;;
down) cmd_down ;;
status) cmd_status ;;
*)
    sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 64
    ;;
esac
