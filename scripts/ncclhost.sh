#!/usr/bin/env bash
# ncclhost.sh HOSTS NP CMD [ARGS...], under mpirun, as root: execs CMD in a UTS namespace of
# its own (unshare -u) whose host name is simhostH, with NCCL_HOSTID=simhostH, where
# H = r*HOSTS/NP for rank r (OMPI_COMM_WORLD_RANK). NCCL and nccl-tests then take ranks of
# different H for ranks on different hosts: compare-nccl.sh runs NCCL so with HOSTS=NP (a
# host per rank) when ranks share a GPU, which nccl-tests refuses within one host ("Invalid
# number of GPUs"). The namespace changes the host name and nothing else.
set -eu
if [ $# -lt 3 ]; then
  echo "usage: $0 HOSTS NP CMD [ARGS...]" >&2
  exit 2
fi
hosts=$1 np=$2
shift 2
host=simhost$(( ${OMPI_COMM_WORLD_RANK:?ncclhost.sh runs under mpirun} * hosts / np ))
exec unshare -u bash -c 'hostname "$0" && NCCL_HOSTID=$0 exec "$@"' "$host" "$@"
