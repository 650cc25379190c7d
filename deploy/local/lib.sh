# Sourced by stack.sh and cluster.sh, not run: starting and stopping background processes recorded
# in pid files, and reading their --check answers.
#
# The sourcing script sets
#   program        the name its messages start with ("stack: error: ...")
#   wait_seconds   how long wait_ready waits for a process to become ready
#   stop_seconds   how long stop_processes waits after SIGTERM before SIGKILL
# and defines, for a process name $1,
#   binary         its executable
#   state_of       its --state-dir
#   log_of         its log file
#   pid_file_of    the file that holds its pid
#   check          runs its --check, prints the line, returns the exit code
# shellcheck shell=bash disable=SC2154 # program, wait_seconds, stop_seconds: set by the sourcing script

fail() {
    echo "$program: error: $*" >&2
    exit 1
}

# True when pid $1 is a live process (not a zombie waiting for its parent).
alive() {
    kill -0 "$1" 2>/dev/null || return 1
    local state
    state=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
    case $state in Z*) return 1 ;; esac
    return 0
}

# The pid of process $1 if the script started it and it still runs: the pid file's process must be
# alive and be this process's binary with this process's state directory (a reused pid is not ours).
running_pid() {
    local file pid command_line
    file=$(pid_file_of "$1")
    [ -r "$file" ] || return 1
    pid=$(tr -dc '0-9' <"$file")
    [ -n "$pid" ] && alive "$pid" || return 1
    if [ -r "/proc/$pid/cmdline" ]; then
        command_line=$(tr '\0' ' ' <"/proc/$pid/cmdline")
    else
        command_line=$(ps -o args= -p "$pid" 2>/dev/null) || return 1
    fi
    case "$command_line " in
    *"$(basename "$(binary "$1")") "*"--state-dir $(state_of "$1") "*) echo "$pid" ;;
    *) return 1 ;;
    esac
}

# The health word in a --check line (`auth 1.0.0 at tcp://…: ready`), or `down`.
health_word() {
    local word
    word=$(printf '%s\n' "$1" | sed -n 's/^[^ ]* [^ ]* at [^ ]*: \([a-z_]*\).*$/\1/p' | head -n 1)
    echo "${word:-down}"
}

# The last lines of process $1's log, on stderr.
log_tail() {
    local log
    log=$(log_of "$1")
    echo "---- last lines of $log ----" >&2
    tail -n 20 "$log" >&2 2>/dev/null || true
    echo "----" >&2
}

# Closes every descriptor above 2 that this shell inherited (a lock held by whoever ran make, the
# write end of a pipe): a service outlives the script, and must not keep them open for as long as it
# runs.
close_inherited_fds() {
    local entry fd
    for entry in /proc/self/fd/*; do
        fd=${entry##*/}
        [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-" 2>/dev/null
    done
    return 0
}

# Waits until process $1 (pid $2) answers ready. A process still degraded after wait_seconds is
# accepted with a warning (it takes work); one that exits or never answers fails with its log's tail.
wait_ready() {
    local deadline=$((SECONDS + wait_seconds)) line word
    while :; do
        alive "$2" || { echo "$program: error: $1 exited during start-up" >&2; log_tail "$1"; return 1; }
        line=$(check "$1")
        word=$(health_word "$line")
        [ "$word" = ready ] && return 0
        if [ $SECONDS -ge $deadline ]; then
            if [ "$word" = degraded ]; then
                echo "$program: warning: $1 is degraded: $line" >&2
                return 0
            fi
            echo "$program: error: $1 (pid $2) not ready after ${wait_seconds}s: $line" >&2
            log_tail "$1"
            return 1
        fi
        sleep 0.2
    done
}

# stop_processes [--say-not-running] NAME...: SIGTERM to each named process that running_pid finds,
# in the reverse of the order given (give them in start order); waits up to stop_seconds for all of
# them, then SIGKILLs what is left, and removes their pid files. Only pids from the script's own pid
# files, checked by running_pid, are ever signalled. With --say-not-running, a name whose pid file is
# there but whose process is not is reported as `NAME: not running`.
stop_processes() {
    local say_not_running=0
    if [ "${1:-}" = --say-not-running ]; then
        say_not_running=1
        shift
    fi
    local given=("$@") name pid index pids=() names=()
    for ((index = ${#given[@]} - 1; index >= 0; index--)); do
        name=${given[index]}
        if pid=$(running_pid "$name"); then
            kill -TERM "$pid" 2>/dev/null && echo "$name: stopping (pid $pid)"
            pids+=("$pid")
            names+=("$name")
        else
            [ $say_not_running = 1 ] && [ -e "$(pid_file_of "$name")" ] && echo "$name: not running"
            rm -f "$(pid_file_of "$name")"
        fi
    done
    local deadline=$((SECONDS + stop_seconds)) left
    while :; do
        left=()
        for index in "${!pids[@]}"; do alive "${pids[index]}" && left+=("$index"); done
        [ ${#left[@]} -eq 0 ] && break
        if [ $SECONDS -ge $deadline ]; then
            for index in "${left[@]}"; do
                echo "${names[index]}: still running after ${stop_seconds}s, SIGKILL (pid ${pids[index]})" >&2
                kill -KILL "${pids[index]}" 2>/dev/null
            done
            break
        fi
        sleep 0.1
    done
    for index in "${!names[@]}"; do
        rm -f "$(pid_file_of "${names[index]}")"
        echo "${names[index]}: stopped"
    done
}
