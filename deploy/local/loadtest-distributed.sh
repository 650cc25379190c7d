#!/usr/bin/env bash
# Many auth-loadtest generators on hosts of this machine (deploy/local/hosts.sh), merged exactly, side
# by side with one generator alone on the same CPU quota: does the load scale with the generators?
# Needs root. `make loadtest-distributed` runs it (docs/LOADTEST.md, "Many machines").
#
#   loadtest-distributed.sh    hosts for the server and the generators; then LOADTEST_ROUNDS rounds, each
#                              (a) one generator alone (--shard 0/1) and (b) LOADTEST_GENERATORS at once,
#                              each with --shard I/N and --json, merged with `auth-loadtest merge`
#                              (in turn: (a) first in odd rounds, (b) first in even ones); prints each
#                              round, the medians side by side and the median of the rounds' ratios of
#                              (b) to N × (a); removes the hosts at the end, also on failure or Ctrl-C
#
# Host 1 is the server's, hosts 2..N+1 the generators' (the one alone runs on host 2), each generator
# under `hosts.sh run --cpu LOADTEST_CPU`, all in the closed model with the same requests in flight
# each, so that a generator's CPU quota is what bounds it. The server they load (LOADTEST_SERVER):
#   stub   (default) one `auth-loadtest stub` per generator on host 1, without a quota: generator I loads
#          stub I (the one alone stub 0), so that no stub serves more than one generator; a stub costs
#          about as much CPU per request as its generator, so N × LOADTEST_CPU × 2 should fit the cores
#   stack  the auth-service of the local stack, listening on every interface
#          (`make up STACK_AUTH_ENDPOINT=tcp://0.0.0.0:5562`): reached from the hosts at the bridge's
#          address HOSTS_NET.1, CURVE keys from LOADTEST_STACK_STATE_DIR (its curve.pub and auth's own
#          client key, always admitted). The service, not the generators, may then be the bottleneck.
#
# Settings (environment; the generators themselves get none of the LOADTEST_ variables, only flags):
#   LOADTEST_GENERATORS    N, the generators that run at once (default 3; 1 to 32)
#   LOADTEST_CPU           each generator's CPU quota, in CPUs (default 0.2)
#   LOADTEST_CONCURRENCY   requests in flight per generator (default 64): the one alone gets it as
#                          --concurrency, each of the N gets N × it with --shard I/N (which takes 1/N)
#   LOADTEST_DURATION      each run's measured time (default 5s), LOADTEST_WARMUP its warm-up (default 1s)
#   LOADTEST_ROUNDS        rounds of (a) and (b) (default 5)
#   LOADTEST_PIN           1 (the default on 2 cores or more): every generator on CPU 0 and the stubs on
#                          the others (taskset), so that the generators' quotas share one core the stubs
#                          never take; 0: anywhere, bounded by their quotas alone. Unpinned, a generator
#                          alone spreads its threads over every core and spends more CPU per request
#                          than it does beside others, by as much as the neighbours' load decides: the
#                          baseline swings and the ratio with it (docs/BENCHMARKS.md, "Distributed load
#                          generation")
#   LOADTEST_SERVER        stub (default) or stack, as above
#   LOADTEST_WORKLOAD      the scenario options of every generator (split on spaces; default
#                          "--scenario exists --users 300"; the stub answers only auth.exists)
#   LOADTEST_STACK_PORT    with stack: auth-service's port (default 5562)
#   LOADTEST_STACK_STATE_DIR  with stack: its state directory (default STACK_DIR/auth, STACK_DIR as
#                          stack.sh resolves it)
#   LOADTEST_RESULTS       where the result files and logs go (default <repository>/.build/loadtest-distributed):
#                          round-R/one.json, round-R/shard-I.json, round-R/merged.json, their .log
#   BIN_DIR                where auth-loadtest is (default <repository>/.build/release)
#   HOSTS_PREFIX, HOSTS_NET  the hosts' names and network (default rld- and 10.88.0: apart from the
#                          default rig's, cluster-up's, the tests' and bench-scale's)
#   LOADTEST_WAIT_SECONDS  how long a stub may take to listen (default 10)
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repository=$(cd "$here/../.." && pwd)
program=loadtest-distributed

usage_error() {
    echo "$program: error: $*" >&2
    exit 64
}

fail() {
    echo "$program: error: $*" >&2
    exit 1
}

generators=${LOADTEST_GENERATORS:-3}
cpu=${LOADTEST_CPU:-0.2}
concurrency=${LOADTEST_CONCURRENCY:-64}
duration=${LOADTEST_DURATION:-5s}
warmup=${LOADTEST_WARMUP:-1s}
rounds=${LOADTEST_ROUNDS:-5}
server=${LOADTEST_SERVER:-stub}
workload=${LOADTEST_WORKLOAD:---scenario exists --users 300}
stack_port=${LOADTEST_STACK_PORT:-5562}
stack_state=${LOADTEST_STACK_STATE_DIR:-${STACK_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/reactive-login/stack}/auth}
results=${LOADTEST_RESULTS:-$repository/.build/loadtest-distributed}
bin=${BIN_DIR:-$repository/.build/release}
wait_seconds=${LOADTEST_WAIT_SECONDS:-10}
cores=$(nproc)
pin=${LOADTEST_PIN:-$([ "$cores" -ge 2 ] && echo 1 || echo 0)}
export HOSTS_PREFIX=${HOSTS_PREFIX:-rld-}
export HOSTS_NET=${HOSTS_NET:-10.88.0}
export PATH="$PATH:/usr/sbin:/sbin"
hosts="$here/hosts.sh"

# Every setting is checked before anything is made.
positive() { case $1 in '' | *[!0-9]* | 0*) return 1 ;; esac; }
positive "$generators" && [ "$generators" -le 32 ] ||
    usage_error "LOADTEST_GENERATORS must be a whole number from 1 to 32, not '$generators'"
awk -v c="$cpu" 'BEGIN { exit !(c ~ /^[0-9]*\.?[0-9]+$/ && c + 0 > 0) }' ||
    usage_error "LOADTEST_CPU must be a positive number of CPUs (0.25, 0.5, 1), not '$cpu'"
positive "$concurrency" || usage_error "LOADTEST_CONCURRENCY must be a positive whole number, not '$concurrency'"
positive "$rounds" || usage_error "LOADTEST_ROUNDS must be a positive whole number, not '$rounds'"
for pair in "LOADTEST_DURATION=$duration" "LOADTEST_WARMUP=$warmup"; do
    [[ ${pair#*=} =~ ^[0-9]+(\.[0-9]+)?(ms|s|m)$ ]] ||
        usage_error "${pair%%=*} must be a duration such as 5s, 500ms or 1m, not '${pair#*=}'"
done
case $server in stub | stack) ;; *) usage_error "LOADTEST_SERVER must be stub or stack, not '$server'" ;; esac
positive "$stack_port" && [ "$stack_port" -le 65535 ] ||
    usage_error "LOADTEST_STACK_PORT must be a port number, not '$stack_port'"
positive "$wait_seconds" || usage_error "LOADTEST_WAIT_SECONDS must be a positive whole number"
case $pin in 0) ;; 1) [ "$cores" -ge 2 ] || usage_error "LOADTEST_PIN=1 needs 2 cores or more" ;; *) usage_error "LOADTEST_PIN must be 0 or 1, not '$pin'" ;; esac
read -r -a workload_arguments <<<"$workload"
# auth-loadtest reads some LOADTEST_ variables itself (LOADTEST_ENDPOINT, LOADTEST_SHARD, ...): the
# generators get only the flags below.
unset "${!LOADTEST_@}"

[ "$(id -u)" -eq 0 ] || fail "needs root (hosts.sh makes network namespaces and CPU cgroups)"
loadtest="$bin/auth-loadtest"
[ -x "$loadtest" ] || fail "no $loadtest (swift build -c release --product auth-loadtest, or BIN_DIR)"
command -v python3 >/dev/null || fail "python3 not found (it reads the result files)"
if [ "$server" = stack ]; then
    [ -r "$stack_state/curve.pub" ] ||
        fail "no $stack_state/curve.pub: start the stack (make up STACK_AUTH_ENDPOINT=tcp://0.0.0.0:$stack_port) or set LOADTEST_STACK_STATE_DIR"
fi
# What the quotas must fit for the generators to be what bounds the load: pinned, N quotas on CPU 0
# and the stubs (about as much again) on the others; unpinned, both on all the cores.
if [ "$server" = stub ] && awk -v n="$generators" -v c="$cpu" -v k="$cores" -v p="$pin" \
    'BEGIN { exit !(p == 1 ? (n * c > 1 || n * c > k - 1) : 2 * n * c > k) }'; then
    echo "$program: warning: $generators × $cpu CPU for the generators and about as much for the stubs do not fit" \
        "$([ "$pin" = 1 ] && echo "CPU 0 and the other cores" || echo "the $cores cores"): the quotas may no longer be what bounds the generators" >&2
fi
generator_pin=()
stub_pin=()
pin_text=""
if [ "$pin" = 1 ]; then
    command -v taskset >/dev/null || fail "taskset (util-linux) not found; LOADTEST_PIN=0 runs without it"
    generator_pin=(taskset -c 0)
    others=1
    [ "$cores" -eq 2 ] || others="1-$((cores - 1))"
    stub_pin=(taskset -c "$others")
    pin_text=", generators on CPU 0"
    [ "$server" = stub ] && pin_text="$pin_text and stubs on CPU $others"
fi
mkdir -p "$results" || fail "cannot make $results"

# Whatever happens from here on, the processes this script started are stopped by their pids and the
# hosts are removed.
started=()
cleanup() {
    local status=$? pid
    trap - EXIT INT TERM
    for pid in "${started[@]}"; do kill -TERM "$pid" 2>/dev/null; done
    for pid in "${started[@]}"; do wait "$pid" 2>/dev/null; done
    "$hosts" down >/dev/null 2>&1 || echo "$program: warning: hosts.sh down failed (HOSTS_PREFIX=$HOSTS_PREFIX)" >&2
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$hosts" up $((generators + 1)) >"$results/hosts.log" 2>&1 || { cat "$results/hosts.log" >&2; fail "hosts.sh up failed"; }
server_host=$("$hosts" address 1)

# The endpoint generator $1 loads.
endpoint_of() {
    if [ "$server" = stub ]; then echo "tcp://$server_host:$((5600 + $1))"; else echo "tcp://$HOSTS_NET.1:$stack_port"; fi
}

if [ "$server" = stub ]; then
    for ((i = 0; i < generators; i++)); do
        "$hosts" run 1 "${stub_pin[@]}" "$loadtest" stub --endpoint "$(endpoint_of "$i")" >"$results/stub-$i.log" 2>&1 </dev/null &
        started+=($!)
    done
    deadline=$((SECONDS + wait_seconds))
    for ((i = 0; i < generators; i++)); do
        until grep -q '^listening ' "$results/stub-$i.log" 2>/dev/null; do
            kill -0 "${started[i]}" 2>/dev/null || { cat "$results/stub-$i.log" >&2; fail "stub $i exited"; }
            [ $SECONDS -lt $deadline ] || fail "stub $i not listening after ${wait_seconds}s"
            sleep 0.05
        done
    done
    keys=(--curve off)
    server_text="a stub per generator on ${HOSTS_PREFIX}h1"
else
    keys=(--state-dir "$stack_state")
    server_text="the stack's auth-service at $(endpoint_of 0)"
fi

# The CPU seconds (user + system) of this shell's children that have ended and been waited for.
ticks=$(getconf CLK_TCK)
children_cpu() { awk -v t="$ticks" '{ printf "%.3f\n", ($16 + $17) / t }' "/proc/$$/stat"; }
now() { date +%s.%N; }

# One generator: host $1, shard $2, concurrency $3, result file $4 (its log beside it, .log). Run in
# the background, it becomes the generator (hosts.sh run execs into it): $! is the generator's pid.
generator() {
    local shard=()
    [ "$2" = 0/1 ] || shard=(--shard "$2")
    exec "$hosts" run "$1" --cpu "$cpu" "${generator_pin[@]}" "$loadtest" --endpoint "$(endpoint_of "${2%/*}")" --allow-remote "${keys[@]}" \
        "${workload_arguments[@]}" --concurrency "$3" --duration "$duration" --warmup "$warmup" \
        --progress off "${shard[@]}" --json "$4" >"${4%.json}.log" 2>&1 </dev/null
}

# A field of a result file.
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# Fails with the end of a run's log.
run_failed() {
    echo "---- the end of ${1%.json}.log ----" >&2
    tail -n 5 "${1%.json}.log" >&2
    fail "$2"
}

# The measured figures of a run: its result file's answered rate, and the CPU its generator(s) used
# as a share of one CPU over the run's wall time (per generator), and the requests (warm-up included)
# they sent per CPU-second. $1 the result file, $2 the CPU seconds, $3 the wall seconds, $4 how many
# generators sent the requests of $5 (the files whose sent and warmup_requests are added).
figures() {
    local file requests=0
    for file in "${@:5}"; do
        requests=$((requests + $(field "$file" sent) + $(field "$file" warmup_requests)))
    done
    awk -v r="$(field "$1" completed_rate)" -v c="$2" -v w="$3" -v n="$4" -v q="$requests" \
        'BEGIN { printf "%.1f %.3f %.0f\n", r, c / w / n, (c > 0 ? q / c : 0) }'
}

# (a): one generator alone on host 2. Sets one (rate, CPU share, requests per CPU-second).
run_one() {
    local file="$1/one.json" cpu_before start status
    cpu_before=$(children_cpu)
    start=$(now)
    generator 2 0/1 "$concurrency" "$file" &
    started+=($!)
    wait $!
    status=$?
    [ $status -eq 0 ] || run_failed "$file" "the generator alone exited $status"
    read -r -a one < <(figures "$file" "$(awk -v a="$(children_cpu)" -v b="$cpu_before" 'BEGIN { print a - b }')" \
        "$(awk -v a="$(now)" -v b="$start" 'BEGIN { print a - b }')" 1 "$file")
}

# (b): N generators at once on hosts 2..N+1, then merged. Sets many (as one, for the merged run and
# per generator); fails unless the merged run's sent is the sum of the generators'.
run_many() {
    local directory=$1 cpu_before start end used pids=() files=() i status sent=0
    cpu_before=$(children_cpu)
    start=$(now)
    for ((i = 0; i < generators; i++)); do
        files+=("$directory/shard-$i.json")
        generator $((i + 2)) "$i/$generators" $((concurrency * generators)) "${files[i]}" &
        pids+=($!)
        started+=($!)
    done
    for i in "${!pids[@]}"; do
        wait "${pids[i]}"
        status=$?
        [ $status -eq 0 ] || run_failed "${files[i]}" "generator $i/$generators exited $status"
    done
    end=$(now)
    used=$(awk -v a="$(children_cpu)" -v b="$cpu_before" 'BEGIN { print a - b }')
    "$loadtest" merge "${files[@]}" --json "$directory/merged.json" >"$directory/merged.log" 2>&1 ||
        run_failed "$directory/merged.json" "auth-loadtest merge failed"
    for file in "${files[@]}"; do sent=$((sent + $(field "$file" sent))); done
    [ "$(field "$directory/merged.json" sent)" -eq "$sent" ] ||
        fail "$directory/merged.json: sent $(field "$directory/merged.json" sent), the generators' sum $sent"
    read -r -a many < <(figures "$directory/merged.json" "$used" "$(awk -v a="$end" -v b="$start" 'BEGIN { print a - b }')" \
        "$generators" "${files[@]}")
}

echo "$program: $generators generators × $cpu CPU against $server_text (${workload}), closed model," \
    "$concurrency in flight per generator, $duration after $warmup, $rounds round(s)${pin_text}; results in $results;" \
    "load average $(cut -d ' ' -f 1 /proc/loadavg)"
columns=()
for ((round = 1; round <= rounds; round++)); do
    directory="$results/round-$round"
    mkdir -p "$directory" || fail "cannot make $directory"
    if ((round % 2 == 1)); then
        run_one "$directory"
        run_many "$directory"
    else
        run_many "$directory"
        run_one "$directory"
    fi
    columns+=("${one[*]} ${many[*]} $(awk -v n="$generators" -v o="${one[0]}" -v m="${many[0]}" 'BEGIN { print m / (n * o) }')")
    # A run whose generators used less than their quota (the machine's other work took the CPU, or
    # they waited for the server) was not bounded by the quota: said on the round's line.
    awk -v r="$round" -v n="$generators" -v q="$cpu" -v o="${one[0]}" -v oc="${one[1]}" -v m="${many[0]}" -v mc="${many[1]}" \
        'BEGIN { printf "round %d: one generator %.0f/s (%.2f CPU), %d merged %.0f/s (%.2f CPU each), ratio %.3f%s\n",
            r, o, oc, n, m, mc, m / (n * o), (oc < 0.92 * q || mc < 0.92 * q) ? " (below the quota: it did not bound them)" : "" }'
done

# The median of column $1 of the rounds' figures.
median() {
    printf '%s\n' "${columns[@]}" | awk -v k="$1" '{ print $k }' | sort -g |
        awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
echo "load average at the end: $(cut -d ' ' -f 1 /proc/loadavg)"

# The ratio is each round's (its two runs made one after the other), their median the verdict.
awk -v n="$generators" -v q="$cpu" -v rounds="$rounds" -v o="$(median 1)" -v oc="$(median 2)" -v oe="$(median 3)" \
    -v m="$(median 4)" -v mc="$(median 5)" -v me="$(median 6)" -v ratio="$(median 7)" \
    -v low="$(printf '%s\n' "${columns[@]}" | awk '{ print $7 }' | sort -g | head -n 1)" \
    -v high="$(printf '%s\n' "${columns[@]}" | awk '{ print $7 }' | sort -g | tail -n 1)" -v server="$server" 'BEGIN {
    printf "\nmedians of %d round(s)          answered/s   CPU used per generator   requests per CPU-second\n", rounds
    printf "%-30s %11.0f   %22.2f   %23.0f\n", "one generator (" q " CPU quota)", o, oc, oe
    printf "%-30s %11.0f   %22.2f   %23.0f\n", n " generators, merged", m, mc, me
    printf "ratio to %d x one generator, per round: median %.3f (%.3f to %.3f)\n", n, ratio, low, high
    if (server == "stub")
        printf "goal: %d generators reach at least 0.9 x %d x one generator'"'"'s rate: %s\n", n, n, (ratio >= 0.9 ? "met" : "missed")
    else
        printf "(against the stack, a ratio below 1 may be the service'"'"'s limit rather than the generators'"'"')\n"
}'
