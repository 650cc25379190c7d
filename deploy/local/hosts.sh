#!/usr/bin/env bash
# Several "hosts" on one Linux machine: network namespaces joined by a bridge, for running replicas
# on addresses of their own, cutting one off the network and healing it again. Needs root and
# iproute2. `make cluster-up` (deploy/local/cluster.sh) runs the system on them.
#
#   hosts.sh up N              the bridge rl-br0 (HOSTS_NET.1/24 on the machine's side) and N hosts
#                              rl-h1..rl-hN, each a namespace with loopback up and eth0 at HOSTS_NET.(10+i)/24,
#                              its veth's other end (rl-hI-br) in the bridge; hosts that exist are kept
#   hosts.sh run HOST [--cpu F] CMD...
#                              runs CMD inside HOST's namespace (HOST: rl-h2, h2 or 2); --cpu F also puts
#                              it in the cgroup rl-hosts/rl-hI with a quota of F CPUs (0.5: cpu.max
#                              "50000 100000"; cgroup v2 with the cpu controller, else the v1 cpu hierarchy)
#   hosts.sh cut HOST          partition HOST: its veth leaves the bridge (packets to and from it vanish,
#                              as behind a dead switch port; its own link stays up)
#   hosts.sh heal HOST         put it back in the bridge
#   hosts.sh status            the bridge, each host's address, whether it is cut, its CPU quota and pids
#   hosts.sh address HOST      print HOST's address
#   hosts.sh down              stop what runs in the hosts (SIGTERM, then SIGKILL after HOSTS_STOP_SECONDS),
#                              delete the namespaces, veths, bridge and cgroups; idempotent
#
# Settings (environment):
#   HOSTS_NET           the first three octets of the /24 (default 10.77.0): the bridge is .1, host i is .(10+i)
#   HOSTS_STOP_SECONDS  how long `down` waits after SIGTERM (default 5)
#   HOSTS_PREFIX        the prefix of every name (default rl-; a second set of hosts beside the first
#                       needs another prefix and another HOSTS_NET)
#
# Everything it makes is named with the prefix: the bridge rl-br0, namespaces rl-h<i>, veths
# rl-h<i>-br, cgroups rl-hosts/rl-h<i>. `down` deletes only names of that shape.
set -u -o pipefail

HOSTS_NET=${HOSTS_NET:-10.77.0}
HOSTS_STOP_SECONDS=${HOSTS_STOP_SECONDS:-5}
HOSTS_PREFIX=${HOSTS_PREFIX:-rl-}
case $HOSTS_PREFIX in
[a-z]*-) [ ${#HOSTS_PREFIX} -le 6 ] && case $HOSTS_PREFIX in *[!a-z0-9-]*) false ;; esac ;;
*) false ;;
esac || { echo "hosts: error: HOSTS_PREFIX must be up to 6 lowercase letters and digits ending in '-'" >&2; exit 64; }
prefix=$HOSTS_PREFIX
bridge=${prefix}br0
cgroup_parent=${prefix}hosts

fail() {
    echo "hosts: error: $*" >&2
    exit 1
}

usage() {
    sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 64
}

require_root() {
    [ "$(id -u)" -eq 0 ] || fail "needs root (network namespaces, a bridge, cgroups)"
    command -v ip >/dev/null || fail "ip (iproute2) not found"
}

# The host number of rl-hI, hI or I; a usage error otherwise.
host_number() {
    local name=${1#"$prefix"}
    name=${name#h}
    case $name in
    '' | *[!0-9]* | 0*) echo "hosts: error: '$1' is not a host (${prefix}h1, h1 or 1)" >&2; exit 64 ;;
    esac
    echo "$name"
}

namespace_of() { echo "${prefix}h$1"; }
veth_of() { echo "${prefix}h$1-br"; }
address_of() { echo "$HOSTS_NET.$((10 + $1))"; }

# The namespaces this script made, by number, ascending.
existing_hosts() {
    ip netns list 2>/dev/null | awk '{print $1}' | sed -n "s/^${prefix}h\([1-9][0-9]*\)\$/\1/p" | sort -n
}

has_namespace() { ip netns list 2>/dev/null | awk '{print $1}' | grep -qx "$(namespace_of "$1")"; }

cmd_up() {
    local count=${1:-}
    case $count in '' | *[!0-9]* | 0*) echo "hosts: error: up needs a number of hosts" >&2; exit 64 ;; esac
    [ "$count" -le 200 ] || fail "at most 200 hosts fit in $HOSTS_NET.11-.210"
    require_root
    if ! ip link show "$bridge" >/dev/null 2>&1; then
        ip link add "$bridge" type bridge || fail "cannot create the bridge $bridge"
    fi
    ip address replace "$HOSTS_NET.1/24" dev "$bridge" || fail "cannot give $bridge its address"
    ip link set "$bridge" up
    local i namespace veth
    for ((i = 1; i <= count; i++)); do
        namespace=$(namespace_of "$i")
        veth=$(veth_of "$i")
        has_namespace "$i" || ip netns add "$namespace" || fail "cannot create the namespace $namespace"
        ip -n "$namespace" link set lo up
        if ! ip link show "$veth" >/dev/null 2>&1; then
            ip link add "$veth" type veth peer name eth0 netns "$namespace" ||
                fail "cannot create the veth pair $veth"
        fi
        ip link set "$veth" master "$bridge"
        ip link set "$veth" up
        ip -n "$namespace" address replace "$(address_of "$i")/24" dev eth0
        ip -n "$namespace" link set eth0 up
        echo "$namespace: $(address_of "$i")"
    done
    echo "$bridge: $HOSTS_NET.1 (this machine's side)"
}

# Where processes are put for --cpu: "v2 <dir>" or "v1 <dir>" (the parent rl-hosts, created), or a
# failure that says why neither works.
cgroup_root() {
    local mount controllers subtree
    for mount in /sys/fs/cgroup /sys/fs/cgroup/unified; do
        [ "$(stat -fc %T "$mount" 2>/dev/null)" = cgroup2fs ] || continue
        controllers=$(cat "$mount/cgroup.controllers" 2>/dev/null)
        subtree=$(cat "$mount/cgroup.subtree_control" 2>/dev/null)
        case " $controllers " in *" cpu "*) ;; *) continue ;; esac
        case " $subtree " in
        *" cpu "*) ;;
        *)
            echo "hosts: error: cgroup v2 at $mount has the cpu controller, but not in its cgroup.subtree_control" >&2
            echo "       (enable it: echo +cpu > $mount/cgroup.subtree_control)" >&2
            return 1
            ;;
        esac
        mkdir -p "$mount/$cgroup_parent" || return 1
        grep -qw cpu "$mount/$cgroup_parent/cgroup.subtree_control" ||
            echo +cpu >"$mount/$cgroup_parent/cgroup.subtree_control" || return 1
        echo "v2 $mount/$cgroup_parent"
        return 0
    done
    # A machine with cgroup v1 (or hybrid, where v2 holds no controllers): the v1 cpu hierarchy.
    for mount in /sys/fs/cgroup/cpu /sys/fs/cgroup/cpu,cpuacct; do
        [ -e "$mount/cpu.cfs_quota_us" ] || continue
        mkdir -p "$mount/$cgroup_parent" || return 1
        echo "v1 $mount/$cgroup_parent"
        return 0
    done
    echo "hosts: error: no cgroup with a cpu controller (cgroup v2 without cpu in cgroup.controllers, and no v1 cpu hierarchy)" >&2
    return 1
}

# Every cgroup directory this script may have made, deepest first.
our_cgroups() {
    local mount
    for mount in /sys/fs/cgroup /sys/fs/cgroup/unified /sys/fs/cgroup/cpu /sys/fs/cgroup/cpu,cpuacct; do
        [ -d "$mount/$cgroup_parent" ] || continue
        find "$mount/$cgroup_parent" -mindepth 1 -maxdepth 1 -type d -name "${prefix}h*"
        echo "$mount/$cgroup_parent"
    done
}

# Prints the cgroup directory for host $1 with a quota of $2 CPUs.
prepare_cgroup() {
    local root kind directory period=100000 quota
    quota=$(awk -v cpus="$2" -v period=$period 'BEGIN {
        if (cpus !~ /^[0-9]*\.?[0-9]+$/ || cpus + 0 <= 0) exit 1
        q = int(cpus * period + 0.5); if (q < 1000) q = 1000; print q }') ||
        { echo "hosts: error: --cpu needs a positive number of CPUs (0.5, 1, 2)" >&2; return 1; }
    root=$(cgroup_root) || return 1
    kind=${root%% *}
    directory="${root#* }/$(namespace_of "$1")"
    mkdir -p "$directory" || return 1
    if [ "$kind" = v2 ]; then
        echo "$quota $period" >"$directory/cpu.max" || return 1
    else
        echo "$period" >"$directory/cpu.cfs_period_us" && echo "$quota" >"$directory/cpu.cfs_quota_us" || return 1
    fi
    echo "$directory"
}

cmd_run() {
    [ $# -ge 2 ] || usage
    local number cpu="" directory namespace
    number=$(host_number "$1") || exit 64
    shift
    if [ "${1:-}" = --cpu ]; then
        [ $# -ge 3 ] || usage
        cpu=$2
        shift 2
    fi
    require_root
    namespace=$(namespace_of "$number")
    has_namespace "$number" || fail "no host $namespace (hosts.sh up N first)"
    if [ -z "$cpu" ]; then
        exec ip netns exec "$namespace" "$@"
    fi
    directory=$(prepare_cgroup "$number" "$cpu") || exit 1
    # This shell joins the cgroup, then becomes the command: the command and its children stay in it.
    echo $$ >"$directory/cgroup.procs" 2>/dev/null || echo $$ >"$directory/tasks" ||
        fail "cannot join $directory"
    exec ip netns exec "$namespace" "$@"
}

cmd_cut() {
    local number
    number=$(host_number "${1:-}") || exit 64
    require_root
    ip link show "$(veth_of "$number")" >/dev/null 2>&1 || fail "no host $(namespace_of "$number")"
    ip link set "$(veth_of "$number")" nomaster || fail "cannot take $(veth_of "$number") out of $bridge"
    echo "$(namespace_of "$number"): cut off"
}

cmd_heal() {
    local number
    number=$(host_number "${1:-}") || exit 64
    require_root
    ip link show "$(veth_of "$number")" >/dev/null 2>&1 || fail "no host $(namespace_of "$number")"
    ip link set "$(veth_of "$number")" master "$bridge" || fail "cannot put $(veth_of "$number") back in $bridge"
    ip link set "$(veth_of "$number")" up
    echo "$(namespace_of "$number"): connected"
}

cmd_address() {
    local number
    number=$(host_number "${1:-}") || exit 64
    address_of "$number"
}

# The CPU quota of host $1's cgroup, as "0.5 cpu", or "-".
cpu_of() {
    local mount directory line quota period
    for mount in /sys/fs/cgroup /sys/fs/cgroup/unified /sys/fs/cgroup/cpu /sys/fs/cgroup/cpu,cpuacct; do
        directory="$mount/$cgroup_parent/$(namespace_of "$1")"
        if [ -r "$directory/cpu.max" ]; then
            line=$(cat "$directory/cpu.max")
            quota=${line%% *}
            period=${line#* }
        elif [ -r "$directory/cpu.cfs_quota_us" ]; then
            quota=$(cat "$directory/cpu.cfs_quota_us")
            period=$(cat "$directory/cpu.cfs_period_us")
        else
            continue
        fi
        case $quota in max | -1) echo "unlimited" ;; *) awk -v q="$quota" -v p="$period" 'BEGIN { printf "%g cpu\n", q / p }' ;; esac
        return 0
    done
    echo "-"
}

cmd_status() {
    require_root
    if ip link show "$bridge" >/dev/null 2>&1; then
        echo "$bridge: $(ip -4 -o address show dev "$bridge" | awk '{print $4}' | head -n 1)"
    else
        echo "$bridge: absent"
    fi
    local number link pids
    for number in $(existing_hosts); do
        if ip -o link show "$(veth_of "$number")" 2>/dev/null | grep -q "master $bridge"; then
            link=connected
        else
            link=cut
        fi
        pids=$(ip netns pids "$(namespace_of "$number")" 2>/dev/null | tr '\n' ' ')
        printf '%-8s %-15s %-10s cpu %-10s pids %s\n' "$(namespace_of "$number")" \
            "$(ip -n "$(namespace_of "$number")" -4 -o address show dev eth0 2>/dev/null | awk '{print $4}' | head -n 1)" \
            "$link" "$(cpu_of "$number")" "${pids:--}"
    done
}

cmd_down() {
    require_root
    local number pids=() pid deadline
    for number in $(existing_hosts); do
        for pid in $(ip netns pids "$(namespace_of "$number")" 2>/dev/null); do
            kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
        done
    done
    if [ ${#pids[@]} -gt 0 ]; then
        echo "stopping ${#pids[@]} process(es) left in the hosts: ${pids[*]}"
        deadline=$((SECONDS + HOSTS_STOP_SECONDS))
        while [ $SECONDS -lt $deadline ]; do
            local left=0
            for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && left=1; done
            [ $left = 0 ] && break
            sleep 0.1
        done
        for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null; done
    fi
    for number in $(existing_hosts); do
        ip link del "$(veth_of "$number")" 2>/dev/null
        ip netns del "$(namespace_of "$number")" && echo "$(namespace_of "$number"): deleted"
    done
    # A veth whose namespace went away some other way.
    local veth
    for veth in $(ip -o link show 2>/dev/null | sed -n "s/^[0-9]*: \(${prefix}h[1-9][0-9]*-br\)@.*/\1/p"); do
        ip link del "$veth" 2>/dev/null
    done
    if ip link show "$bridge" >/dev/null 2>&1; then
        ip link del "$bridge" && echo "$bridge: deleted"
    fi
    local directory
    for directory in $(our_cgroups); do
        case $directory in */"$cgroup_parent" | */"$cgroup_parent"/"$prefix"h*) rmdir "$directory" 2>/dev/null ;; esac
    done
    return 0
}

case ${1:-} in
up) shift; cmd_up "$@" ;;
run) shift; cmd_run "$@" ;;
cut) shift; cmd_cut "$@" ;;
heal) shift; cmd_heal "$@" ;;
status) cmd_status ;;
address) shift; cmd_address "$@" ;;
down) cmd_down ;;
*) usage ;;
esac
