#!/usr/bin/env bash
# netbench_sweep.sh: scripts/netbench.go on HOSTS namespace hosts
# (scripts/netcluster.sh) at 1 and 10 Gbit/s with 0.1 and 5 ms of latency,
# for LeNet and an AlexNet-sized net, appending every round to CSV.
#
#   sudo scripts/netbench_sweep.sh SHELL CSV [HOSTS [MODELS...]]
#
# SHELL is a sparknet-shell built with -tags mpi. Needs what netcluster.sh
# needs (root, iproute2, Open MPI).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: netbench_sweep.sh SHELL CSV [HOSTS [MODELS...]]" >&2; exit 2; }
shell=$1 csv=$2 hosts=${3:-4}
shift 2
[ $# -gt 0 ] && shift
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(lenet alexnet)
here=$(cd "$(dirname "$0")" && pwd)
for model in "${models[@]}"; do
	case $model in
	lenet) rounds=8 tau=10 ;;   # a round of LeNet: 10 iterations of 64 images
	alexnet) rounds=4 tau=1 ;;  # a round of AlexNet: 1 iteration of 4 images
	*) echo "netbench_sweep: unknown model $model: lenet or alexnet" >&2; exit 2 ;;
	esac
	for bw in 1gbit 10gbit; do
		for lat in 0.1ms 5ms; do
			"$here/netcluster.sh" "$hosts" "$bw" "$lat" -- "$shell" --master mpi "$here/netbench.go" "$model" "$rounds" "$tau" "$csv"
		done
	done
done
