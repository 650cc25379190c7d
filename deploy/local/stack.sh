#!/usr/bin/env bash
# The local stack: auth-service, validation-service, hero-catalog-service and the gateway on one
# machine, in the background, with CURVE between them. The Makefile's run/up/down/status/logs use it.
#
#   stack.sh up        --init each service, exchange keys, start them in order, wait until each is ready
#   stack.sh down      stop what `up` started (SIGTERM, then SIGKILL after STACK_STOP_SECONDS)
#   stack.sh status    each service's health (--check) and pid; exit 0 when every one takes work
#   stack.sh logs      the tail of each log (LOGS_FOLLOW=1 follows, LOGS_LINES lines)
#   stack.sh run       up, gateway-cli in the foreground, then down of what this run started
#   stack.sh keys      only --init and the key exchange (deploy/kubernetes/secrets.sh builds on it)
#
# Settings (environment):
#   STACK_DIR           state and logs (default ${XDG_STATE_HOME:-$HOME/.local/state}/reactive-login/stack):
#                       <service>/ is each process's --state-dir, logs/<service>.log its stderr,
#                       run/<service>.pid the pid of what the stack started
#   BIN_DIR             the executables (default <repository>/.build/release)
#   STACK_SERVICES      which services, any of "auth validation heroes gateway" (started in that order)
#   STACK_<S>_ENDPOINT  where service S listens (S = AUTH, VALIDATION, HEROES, GATEWAY); defaults
#                       tcp://127.0.0.1:5562, :5561, :5563, :5560
#   STACK_<S>_METRICS   where service S serves /metrics, /healthz and /readyz (--metrics-listen); defaults
#                       127.0.0.1:9562 (auth), :9561 (validation), :9563 (heroes), :9560 (gateway), each
#                       its endpoint's port plus 4000; `off` turns it off, port 0 takes a free port
#   STACK_<S>_ARGS      extra options for service S (split on spaces), e.g. STACK_AUTH_ARGS="--hash-cost test"
#   STACK_WAIT_SECONDS  how long each service may take to become ready (default 30)
#   STACK_STOP_SECONDS  how long `down` waits after SIGTERM before SIGKILL (default 15)
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repository=$(cd "$here/../.." && pwd)
STACK_DIR=${STACK_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/reactive-login/stack}
BIN_DIR=${BIN_DIR:-$repository/.build/release}
STACK_SERVICES=${STACK_SERVICES:-auth validation heroes gateway}
STACK_WAIT_SECONDS=${STACK_WAIT_SECONDS:-30}
STACK_STOP_SECONDS=${STACK_STOP_SECONDS:-15}
LOGS_LINES=${LOGS_LINES:-20}
LOGS_FOLLOW=${LOGS_FOLLOW:-0}

program=stack
wait_seconds=$STACK_WAIT_SECONDS
stop_seconds=$STACK_STOP_SECONDS
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

# Every service the stack knows, in start order.
all_services=(auth validation heroes gateway)

# The selected services in start order; an unknown name is a usage error.
selected=()
for name in $STACK_SERVICES; do
    case " ${all_services[*]} " in
    *" $name "*) ;;
    *)
        echo "stack: error: unknown service '$name' in STACK_SERVICES (known: ${all_services[*]})" >&2
        exit 64
        ;;
    esac
done
for name in "${all_services[@]}"; do
    case " $STACK_SERVICES " in *" $name "*) selected+=("$name") ;; esac
done
[ ${#selected[@]} -gt 0 ] || { echo "stack: error: STACK_SERVICES is empty" >&2; exit 64; }

is_selected() { case " ${selected[*]} " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

binary() {
    case $1 in
    auth) echo "$BIN_DIR/auth-service" ;;
    validation) echo "$BIN_DIR/validation-service" ;;
    heroes) echo "$BIN_DIR/hero-catalog-service" ;;
    gateway) echo "$BIN_DIR/gateway" ;;
    esac
}

endpoint() {
    case $1 in
    auth) echo "${STACK_AUTH_ENDPOINT:-tcp://127.0.0.1:5562}" ;;
    validation) echo "${STACK_VALIDATION_ENDPOINT:-tcp://127.0.0.1:5561}" ;;
    heroes) echo "${STACK_HEROES_ENDPOINT:-tcp://127.0.0.1:5563}" ;;
    gateway) echo "${STACK_GATEWAY_ENDPOINT:-tcp://127.0.0.1:5560}" ;;
    esac
}

metrics_address() {
    case $1 in
    auth) echo "${STACK_AUTH_METRICS:-127.0.0.1:9562}" ;;
    validation) echo "${STACK_VALIDATION_METRICS:-127.0.0.1:9561}" ;;
    heroes) echo "${STACK_HEROES_METRICS:-127.0.0.1:9563}" ;;
    gateway) echo "${STACK_GATEWAY_METRICS:-127.0.0.1:9560}" ;;
    esac
}

# Where running service $1's metrics listener is bound, from its last `listening` line (which has the
# port the system picked for port 0); nothing when it has none.
metrics_bound() {
    local log
    log=$(log_of "$1")
    [ -e "$log" ] || return 0
    grep ' msg=listening ' "$log" | tail -n 1 | grep -o ' metrics=[^ ]*' | cut -d= -f2
}

extra_args() {
    case $1 in
    auth) echo "${STACK_AUTH_ARGS:-}" ;;
    validation) echo "${STACK_VALIDATION_ARGS:-}" ;;
    heroes) echo "${STACK_HEROES_ARGS:-}" ;;
    gateway) echo "${STACK_GATEWAY_ARGS:-}" ;;
    esac
}

state_of() { echo "$STACK_DIR/$1"; }
log_of() { echo "$STACK_DIR/logs/$1.log"; }
pid_file_of() { echo "$STACK_DIR/run/$1.pid"; }

# The options that start service $1 (besides --state-dir): its endpoint, and where and as whom it
# reaches the services it calls. Every peer's public key is a file in the caller's own state directory,
# written by exchange_keys.
service_args() {
    local state
    state=$(state_of "$1")
    case $1 in
    auth) args=(--endpoint "$(endpoint auth)") ;;
    validation)
        args=(--endpoint "$(endpoint validation)" --auth-endpoint "$(endpoint auth)"
            --auth-public-key "$state/auth.pub")
        ;;
    heroes)
        args=(--endpoint "$(endpoint heroes)" --auth-endpoint "$(endpoint auth)"
            --auth-public-key "$state/auth.pub")
        ;;
    gateway)
        args=(--endpoint "$(endpoint gateway)"
            --auth-endpoint "$(endpoint auth)" --auth-public-key "$state/auth.pub"
            --validation-endpoint "$(endpoint validation)" --validation-public-key "$state/validation.pub"
            --heroes-endpoint "$(endpoint heroes)" --heroes-public-key "$state/heroes.pub")
        ;;
    esac
    local metrics extra
    metrics=$(metrics_address "$1")
    [ "$metrics" = off ] || args+=(--metrics-listen "$metrics")
    extra=$(extra_args "$1")
    # shellcheck disable=SC2206 # split on purpose: STACK_<S>_ARGS is a list of options
    [ -n "$extra" ] && args+=($extra)
    return 0
}

# Asks service $1 for its health; prints --check's line, returns its exit code.
check() {
    local bin
    bin=$(binary "$1")
    [ -x "$bin" ] || { echo "$bin not found"; return 2; }
    "$bin" --check --endpoint "$(endpoint "$1")" --state-dir "$(state_of "$1")" 2>&1
}

# --init: the state directory, both key pairs and allowed_clients, created where missing.
initialize() {
    local bin output
    bin=$(binary "$1")
    [ -x "$bin" ] || fail "$bin not found: build first (make build-release) or set BIN_DIR"
    output=$("$bin" --init --state-dir "$(state_of "$1")" 2>&1) || fail "$bin --init failed: $output"
    case $output in server_key=*" client_key="*) ;; *) fail "$bin --init printed '$output'" ;; esac
}

# Copies server $1's public key into client $2's state directory as $3, when both are selected.
give_server_key() {
    is_selected "$1" && is_selected "$2" || return 0
    local source target
    source="$(state_of "$1")/curve.pub"
    target="$(state_of "$2")/$3"
    cmp -s "$source" "$target" && return 0
    cp "$source" "$target.tmp.$$" && chmod 0644 "$target.tmp.$$" && mv -f "$target.tmp.$$" "$target" ||
        fail "cannot write $target"
}

# Lists client $1's client.pub in server $2's allowed_clients, labelled `stack:$1`. Idempotent: a
# line with the same key or label is replaced, other lines are kept; the file is rewritten only when
# it changes.
allow_client() {
    is_selected "$1" && is_selected "$2" || return 0
    local key label list temporary
    key=$(tr -d ' \t\r\n' <"$(state_of "$1")/client.pub")
    [ ${#key} -eq 40 ] || fail "$(state_of "$1")/client.pub does not hold a 40-character key"
    label="stack:$1"
    list="$(state_of "$2")/allowed_clients"
    temporary="$list.tmp.$$"
    (umask 077 && awk -v key="$key" -v label="$label" '$1 != key && $2 != label' "$list" >"$temporary" &&
        printf '%s %s\n' "$key" "$label" >>"$temporary") || fail "cannot write $temporary"
    if cmp -s "$temporary" "$list"; then rm -f "$temporary"; else mv -f "$temporary" "$list"; fi
}

exchange_keys() {
    give_server_key auth validation auth.pub
    give_server_key auth heroes auth.pub
    give_server_key auth gateway auth.pub
    give_server_key validation gateway validation.pub
    give_server_key heroes gateway heroes.pub
    allow_client validation auth
    allow_client heroes auth
    allow_client gateway auth
    allow_client gateway validation
    allow_client gateway heroes
}

# Starts service $1 in the background unless the stack already runs it.
start() {
    local pid bin log
    if pid=$(running_pid "$1"); then
        echo "$1: already running (pid $pid)"
        return 0
    fi
    bin=$(binary "$1")
    log=$(log_of "$1")
    service_args "$1"
    printf '\n==== %s start: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$bin" >>"$log"
    (close_inherited_fds && exec "$bin" --state-dir "$(state_of "$1")" "${args[@]}") >>"$log" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$(pid_file_of "$1")"
    started_now+=("$1")
    if ! wait_ready "$1" "$pid"; then
        return 1
    fi
    echo "$1: ready at $(endpoint "$1") (pid $pid)"
}

cmd_keys() {
    mkdir -p "$STACK_DIR/logs" "$STACK_DIR/run" || fail "cannot create $STACK_DIR"
    local name
    for name in "${selected[@]}"; do initialize "$name"; done
    exchange_keys
}

cmd_up() {
    cmd_keys
    local name
    started_now=()
    for name in "${selected[@]}"; do
        if ! start "$name"; then
            # Nothing half up: stop what this invocation started.
            [ ${#started_now[@]} -gt 0 ] && stop_processes --say-not-running "${started_now[@]}"
            exit 1
        fi
    done
    echo "logs: $STACK_DIR/logs/ (make logs, LOGS_FOLLOW=1 make logs); state: $STACK_DIR"
}

cmd_down() { stop_processes --say-not-running "${selected[@]}"; }

cmd_status() {
    local name pid line word owner metrics code=0
    for name in "${selected[@]}"; do
        if [ -d "$(state_of "$name")" ]; then line=$(check "$name"); else line="no state directory"; fi
        word=$(health_word "$line")
        metrics=""
        if pid=$(running_pid "$name"); then
            owner="pid $pid"
            metrics=$(metrics_bound "$name")
            [ -n "$metrics" ] && metrics="  metrics http://$metrics/metrics"
        elif [ "$word" = down ]; then
            owner="-"
        else
            owner="not started by the stack"
        fi
        printf '%-11s %-9s %-26s %s%s\n' "$name" "$word" "$owner" "$(endpoint "$name")" "$metrics"
        case $word in ready | degraded) ;; *) code=3 ;; esac
    done
    return $code
}

cmd_logs() {
    local name logs=()
    for name in "${selected[@]}"; do
        [ -e "$(log_of "$name")" ] && logs+=("$(log_of "$name")")
    done
    [ ${#logs[@]} -gt 0 ] || fail "no logs in $STACK_DIR/logs (is the stack up?)"
    if [ "$LOGS_FOLLOW" = 1 ]; then
        exec tail -n "$LOGS_LINES" -F "${logs[@]}"
    fi
    tail -n "$LOGS_LINES" "${logs[@]}"
}

cmd_run() {
    is_selected gateway || fail "run needs the gateway in STACK_SERVICES"
    local client="$BIN_DIR/gateway-cli" name before=()
    [ -x "$client" ] || fail "$client not found: build first (make build-release) or set BIN_DIR"
    for name in "${selected[@]}"; do running_pid "$name" >/dev/null && before+=("$name"); done
    # What this run starts, it stops when the client exits, also on Ctrl-C or SIGTERM.
    run_started=()
    for name in "${selected[@]}"; do
        case " ${before[*]} " in *" $name "*) ;; *) run_started+=("$name") ;; esac
    done
    if [ ${#run_started[@]} -gt 0 ]; then
        trap 'stop_processes --say-not-running "${run_started[@]}"' EXIT
        trap 'exit 130' INT
        trap 'exit 143' TERM
    else
        echo "the stack was already up: it stays up after gateway-cli exits"
    fi
    (cmd_up) || exit 1
    "$client" --endpoint "$(endpoint gateway)" --server-key "$(state_of gateway)/curve.pub"
    exit $?
}

case ${1:-} in
up) cmd_up ;;
down) cmd_down ;;
status) cmd_status ;;
logs) cmd_logs ;;
run) cmd_run ;;
keys) cmd_keys ;;
*)
    sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 64
    ;;
esac
