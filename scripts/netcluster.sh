#!/usr/bin/env bash
# netcluster.sh: a cluster of N hosts on one Linux machine, for running MPI
# jobs over real, shaped network links.
#
#   scripts/netcluster.sh [OPTIONS] N BANDWIDTH LATENCY -- COMMAND [ARG...]
#
# Every host is a network namespace with its own interface (eth0), address
# (10.231.0.1, .2, ...) and host name (host0, host1, ...); the hosts are
# joined by veth pairs to a bridge, which lives in a namespace of its own
# (the switch), as does nothing else. Every host's link is shaped with tc:
# a token bucket (tbf) limits each direction to BANDWIDTH; where the kernel
# has netem, netem adds LATENCY between any two hosts (half on each side
# of the switch). Where it has none, the script says so and passes the
# latency to the job in SPARKNET_LATENCY, which sparknet's trainer injects
# into every round as it does for Options.Latency.
#
# COMMAND runs under Open MPI's mpirun with one rank per host, over TCP
# only (the shared-memory and other transports are switched off), so every
# byte between ranks crosses the shaped links:
#
#   sudo scripts/netcluster.sh 4 1gbit 0.1ms -- ./sparknet-shell --master mpi scripts/mnist.go
#
# mpirun itself runs in the switch's namespace (as on a login node) and
# starts the ranks' daemons in the hosts' namespaces through this script
# instead of ssh. The command after -- is the one a real cluster runs under
# mpirun -H a,b,c,d; the options of mpirun used here are printed.
#
# BANDWIDTH is a rate in tc's notation (100mbit, 1gbit, 10gbit) or 0 for
# unshaped links; LATENCY is a one-way delay between two hosts (0.1ms,
# 5ms, 200us) or 0. Nothing is created or changed outside the namespaces
# the script makes: no interface, address or route of the machine's own
# network is touched, and the namespaces have no way out. On exit, also
# when interrupted (Ctrl-C, SIGTERM, SIGHUP), every process in them is
# ended and they are deleted.
#
# Options:
#   --stats FILE      write every host's interface counters after the job
#                     (CSV: host,rank,address,tx_bytes,rx_bytes,tx_packets,rx_packets)
#   --mpi-arg ARG     pass ARG to mpirun (repeatable)
#   --mtu BYTES       the links' MTU (default 1500)
#   --keep-going      stay up after COMMAND ends until interrupted (to look around)
#
# While the job runs, the namespaces are named PREFIX-sw (the switch) and
# PREFIX-h0 ... (the hosts), with PREFIX printed at the start: for example,
# "ip netns exec PREFIX-h1 ..." runs a command on host1, and
# "ip -n PREFIX-sw link set p1 down" cuts host1's link.
#
# It needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN), iproute2 (ip, tc),
# util-linux (unshare) and Open MPI. Exit status: COMMAND's (mpirun's);
# 2 for a usage error; 77 when this machine cannot make network namespaces
# (tests take it for "skip").

set -uo pipefail

# --- the launch agent: mpirun runs "netcluster.sh --agent HOST CMD..." as
# it would run "ssh HOST CMD...".
if [ "${1:-}" = "--agent" ]; then
	host=$2
	shift 2
	prefix=${SPARKNET_NETCLUSTER_PREFIX:?netcluster: the agent runs only under netcluster.sh}
	subnet=${SPARKNET_NETCLUSTER_SUBNET:?}
	i=${host##*.}
	i=$((i - 1))
	if [ "$host" != "$subnet.$((i + 1))" ] || [ ! -e "/var/run/netns/$prefix-h$i" ]; then
		echo "netcluster: no host $host in this cluster" >&2
		exit 255
	fi
	# The host's own host name, in a UTS namespace of its own.
	exec ip netns exec "$prefix-h$i" unshare --uts -- sh -c 'hostname "$1" && shift && exec sh -c "$*"' sh "host$i" "$@"
fi

usage() {
	echo "usage: netcluster.sh [--stats FILE] [--mpi-arg ARG]... [--mtu BYTES] [--keep-going] N BANDWIDTH LATENCY -- COMMAND [ARG...]" >&2
	echo "  N: hosts (1 to 250); BANDWIDTH: 100mbit, 1gbit, 10gbit or 0 (unshaped); LATENCY: 0.1ms, 5ms, 200us or 0" >&2
	exit 2
}

stats="" mtu=1500 keep=0
mpiargs=()
while [ $# -gt 0 ]; do
	case $1 in
	--stats) [ $# -ge 2 ] || usage; stats=$2; shift 2 ;;
	--mpi-arg) [ $# -ge 2 ] || usage; mpiargs+=("$2"); shift 2 ;;
	--mtu) [ $# -ge 2 ] || usage; mtu=$2; shift 2 ;;
	--keep-going) keep=1; shift ;;
	-h | --help) usage ;;
	--*) echo "netcluster: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -ge 5 ] && [ "$4" = "--" ] || usage
n=$1 bandwidth=$2 latency=$3
shift 4

if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" -lt 1 ] || [ "$n" -gt 250 ]; then
	echo "netcluster: N must be a number of hosts from 1 to 250, not \"$n\"" >&2
	exit 2
fi
bandwidth=${bandwidth,,}
bandwidth=${bandwidth%/s}
bandwidth=${bandwidth%ps}
if [[ $bandwidth =~ ^0*$ || $bandwidth == none || $bandwidth == unlimited ]]; then
	bandwidth=0
elif ! [[ $bandwidth =~ ^[0-9]+(\.[0-9]+)?[kmg]?bit$ ]]; then
	echo "netcluster: BANDWIDTH \"$2\" is not a rate such as 100mbit, 1gbit or 10gbit (or 0 for unshaped links)" >&2
	exit 2
fi
if ! [[ $mtu =~ ^[0-9]+$ ]] || [ "$mtu" -lt 576 ] || [ "$mtu" -gt 65535 ]; then
	echo "netcluster: --mtu must be from 576 to 65535, not \"$mtu\"" >&2
	exit 2
fi
# The latency in microseconds.
if [[ $latency =~ ^0*(\.0*)?$ ]]; then
	latency_us=0
elif [[ $latency =~ ^([0-9]+(\.[0-9]+)?)(us|ms|s)$ ]]; then
	case ${BASH_REMATCH[3]} in
	us) scale=1 ;;
	ms) scale=1000 ;;
	s) scale=1000000 ;;
	esac
	latency_us=$(awk -v v="${BASH_REMATCH[1]}" -v s="$scale" 'BEGIN { printf "%d", v * s + 0.5 }')
else
	echo "netcluster: LATENCY \"$3\" is not a delay such as 0.1ms, 5ms or 200us (or 0)" >&2
	exit 2
fi

for tool in ip tc unshare mpirun awk; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "netcluster: $tool not found; it needs iproute2 (ip, tc), util-linux (unshare) and Open MPI (mpirun)" >&2
		exit 77
	fi
done
if ! mpirun --version 2>/dev/null | grep -q "Open MPI"; then
	echo "netcluster: mpirun is not Open MPI's; the options it passes are Open MPI's" >&2
	exit 77
fi

self=$(readlink -f "$0")
prefix="snc$$"
subnet=10.231.0
sw="$prefix-sw"
made=()   # namespaces made, for the cleanup
job=""    # mpirun's pid
status=1

cleanup() {
	trap '' INT TERM HUP
	if [ -n "$job" ] && kill -0 "$job" 2>/dev/null; then
		kill -TERM "$job" 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$job" 2>/dev/null || break
			sleep 0.2
		done
	fi
	local ns pids
	for ns in "${made[@]}"; do
		pids=$(ip netns pids "$ns" 2>/dev/null)
		[ -n "$pids" ] && kill -KILL $pids 2>/dev/null
	done
	# Reap mpirun quietly (bash would report how it was killed).
	[ -n "$job" ] && wait "$job" 2>/dev/null
	for ns in "${made[@]}"; do
		for _ in 1 2 3 4 5; do
			[ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && break
			sleep 0.1
		done
		ip netns delete "$ns" 2>/dev/null
	done
	made=()
}
on_signal() {
	echo "netcluster: interrupted; ending the job and removing the cluster" >&2
	cleanup
	exit "$1"
}
trap 'cleanup' EXIT
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
trap 'on_signal 129' HUP

fail() {
	echo "netcluster: $*" >&2
	exit 1
}

# The switch: a namespace holding the bridge, and mpirun.
if ! err=$(ip netns add "$sw" 2>&1); then
	echo "netcluster: cannot create a network namespace ($err); it needs root or CAP_SYS_ADMIN and CAP_NET_ADMIN" >&2
	exit 77
fi
made+=("$sw")
ip -n "$sw" link set lo up || fail "cannot bring up the switch's loopback"
# mpirun's TCP gives up on a silent peer after two retransmissions
# (within 1.4 s) instead of fifteen (many minutes), so that it ends a job
# promptly when a host stops answering while it talks to that host.
ip netns exec "$sw" sh -c 'echo 1 >/proc/sys/net/ipv4/tcp_retries2' 2>/dev/null
ip -n "$sw" link add br0 type bridge || fail "cannot create the bridge (is the bridge module available?)"
ip -n "$sw" link set br0 mtu "$mtu" 2>/dev/null
ip -n "$sw" addr add "$subnet.254/24" dev br0 || fail "cannot address the bridge"
ip -n "$sw" link set br0 up || fail "cannot bring up the bridge"

# netem, where the kernel has it.
netem=0
if [ "$latency_us" -gt 0 ] && tc -n "$sw" qdisc add dev lo root netem delay 1ms 2>/dev/null; then
	netem=1
	tc -n "$sw" qdisc del dev lo root 2>/dev/null
fi

# shape DEV NS: the token bucket (and netem's half of the latency) on the
# egress of DEV in NS.
shape() {
	local dev=$1 ns=$2 parent="root" half=$((latency_us / 2))
	if [ "$netem" = 1 ]; then
		# A queue as long as the bandwidth-delay product allows, at least 1000 packets.
		tc -n "$ns" qdisc add dev "$dev" root handle 1: netem delay "${half}us" limit 100000 || return 1
		parent="parent 1:1"
	fi
	[ "$bandwidth" = 0 ] && return 0
	# The bucket holds 2 ms at the rate (at least 64 KiB, for the
	# segments GSO hands it); the queue 50 ms more.
	local bps burst limit
	bps=$(awk -v r="$bandwidth" 'BEGIN { m = 1; if (r ~ /kbit$/) m = 1e3; else if (r ~ /mbit$/) m = 1e6; else if (r ~ /gbit$/) m = 1e9; sub(/[kmg]?bit$/, "", r); printf "%.0f", r * m / 8 }')
	burst=$(awk -v b="$bps" 'BEGIN { x = b * 0.002; if (x < 65536) x = 65536; printf "%d", x }')
	limit=$(awk -v b="$bps" -v u="$burst" 'BEGIN { printf "%d", u + b * 0.05 }')
	# shellcheck disable=SC2086
	tc -n "$ns" qdisc add dev "$dev" $parent handle 10: tbf rate "$bandwidth" burst "$burst" limit "$limit"
}

hosts=()
for ((i = 0; i < n; i++)); do
	h="$prefix-h$i"
	ip netns add "$h" || fail "cannot create namespace $h"
	made+=("$h")
	ip -n "$h" link set lo up || fail "cannot bring up $h's loopback"
	# Both ends are made inside the namespaces: p$i on the switch, eth0 on the host.
	ip -n "$sw" link add "p$i" mtu "$mtu" type veth peer name eth0 mtu "$mtu" netns "$h" || fail "cannot create host$i's link"
	ip -n "$sw" link set "p$i" master br0 || fail "cannot attach host$i to the bridge"
	ip -n "$h" addr add "$subnet.$((i + 1))/24" dev eth0 || fail "cannot address host$i"
	ip -n "$sw" link set "p$i" up && ip -n "$h" link set eth0 up || fail "cannot bring up host$i's link"
	shape eth0 "$h" || fail "tc cannot shape host$i's link"
	shape "p$i" "$sw" || fail "tc cannot shape the switch's port to host$i"
	hosts+=("$subnet.$((i + 1)):1")
done
# The links come up at once, but a bridge port needs a moment to forward.
for ((i = 0; i < n; i++)); do
	for _ in $(seq 50); do
		[ "$(ip netns exec "$sw" cat /sys/class/net/p$i/brport/state 2>/dev/null)" = 3 ] && break
		sleep 0.1
	done
done

shaping="unshaped links"
[ "$bandwidth" != 0 ] && shaping="links shaped to $bandwidth each way (tc tbf)"
if [ "$latency_us" = 0 ]; then
	lat="no added latency"
elif [ "$netem" = 1 ]; then
	lat="latency $latency one-way between hosts, by netem"
else
	lat="latency $latency injected by sparknet's trainer (SPARKNET_LATENCY): this kernel has no netem"
fi
echo "netcluster: $n hosts (host0..host$((n - 1)), $subnet.1-$subnet.$n; namespaces $prefix-h*, switch $sw), $shaping, $lat" >&2

exec 3<&0
hostlist=$(IFS=,; echo "${hosts[*]}")
export SPARKNET_NETCLUSTER_PREFIX=$prefix SPARKNET_NETCLUSTER_SUBNET=$subnet
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The ranks learn the setting from the environment (scripts/netbench.go
# labels its measurements with it).
latency_by=none
[ "$latency_us" -gt 0 ] && latency_by=netem
[ "$latency_us" -gt 0 ] && [ "$netem" = 0 ] && latency_by=trainer
export SPARKNET_NETCLUSTER_HOSTS=$n SPARKNET_NETCLUSTER_BANDWIDTH=$bandwidth SPARKNET_NETCLUSTER_LATENCY=$latency SPARKNET_NETCLUSTER_LATENCY_BY=$latency_by
envs=(-x SPARKNET_NETCLUSTER_PREFIX -x SPARKNET_NETCLUSTER_HOSTS -x SPARKNET_NETCLUSTER_BANDWIDTH -x SPARKNET_NETCLUSTER_LATENCY -x SPARKNET_NETCLUSTER_LATENCY_BY)
if [ "$latency_by" = trainer ]; then
	export SPARKNET_LATENCY="${latency_us}us"
	envs+=(-x SPARKNET_LATENCY)
fi
mpi=(-np "$n" -H "$hostlist" --map-by node --bind-to none
	--mca plm_rsh_agent "$self --agent" --mca plm_rsh_no_tree_spawn 1
	--mca pml ob1 --mca btl tcp,self
	--mca btl_tcp_if_include "$subnet.0/24" --mca oob_tcp_if_include "$subnet.0/24"
	--mca oob_tcp_keepalive_time 1 --mca oob_tcp_keepalive_intvl 1 --mca oob_tcp_keepalive_probes 2
	"${envs[@]}" "${mpiargs[@]}")
echo "netcluster: mpirun -np $n -H $hostlist --map-by node --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include $subnet.0/24 ${mpiargs[*]} $*" >&2

# Without job control a background command reads /dev/null: hand it our
# input. mpirun warns when a host's daemon started before it could set its
# process group (the agent execs at once): that is harmless here.
ip netns exec "$sw" mpirun "${mpi[@]}" "$@" <&3 2> >(grep --line-buffered -v 'plm:rsh: Warning: setpgid' >&2) &
job=$!
wait "$job"
status=$?
# A signal interrupts wait; the trap has run by then.
job=""

if [ -n "$stats" ]; then
	{
		echo "host,rank,address,tx_bytes,rx_bytes,tx_packets,rx_packets"
		for ((i = 0; i < n; i++)); do
			d=/sys/class/net/eth0/statistics
			read -r txb rxb txp rxp < <(ip netns exec "$prefix-h$i" sh -c "cat $d/tx_bytes $d/rx_bytes $d/tx_packets $d/rx_packets" | tr '\n' ' ')
			echo "host$i,$i,$subnet.$((i + 1)),$txb,$rxb,$txp,$rxp"
		done
	} >"$stats" || echo "netcluster: cannot write $stats" >&2
fi
if [ "$keep" = 1 ]; then
	echo "netcluster: the job ended (exit status $status); the cluster stays up until interrupted" >&2
	while :; do sleep 3600; done
fi
exit "$status"
