#!/usr/bin/env bash
# ncclhost.sh HOSTS NP CMD [ARGS...], under mpirun, as root: execs CMD in a UTS namespace of
# its own (unshare -u) whose host name is simhostH, with NCCL_HOSTID=simhostH, where
# H = r*HOSTS/NP for rank r (OMPI_COMM_WORLD_RANK). NCCL and nccl-tests then take ranks of
# different H for ranks on different hosts: compare-nccl.sh runs NCCL so with HOSTS=NP (a
# host per rank) when ranks share a GPU, which nccl-tests refuses within one host ("Invalid
# number of GPUs"). The namespace changes the host name and nothing else.
# --device also sets NCCL_TESTS_DEVICE=r, rank r's GPU on the machine: nccl-tests counts its
# local rank per host name, so on several simulated hosts of one machine the second host's
# ranks would otherwise take the first host's GPUs.
set -eu
device=
if [ "${1:-}" = --device ]; then
  device=1
  shift
fi
if [ $# -lt 3 ]; then
  echo "usage: $0 [--device] HOSTS NP CMD [ARGS...]" >&2
  exit 2
fi
hosts=$1 np=$2
shift 2
rank=${OMPI_COMM_WORLD_RANK:?ncclhost.sh runs under mpirun}
host=simhost$(( rank * hosts / np ))
[ -n "$device" ] && export NCCL_TESTS_DEVICE=$rank
exec unshare -u bash -c 'hostname "$0" && NCCL_HOSTID=$0 exec "$@"' "$host" "$@"
