#!/usr/bin/env bash
# simhost.sh HOSTS NP CMD [ARGS...], under mpirun: execs CMD with MSCCLPP_BENCH_HOSTID set so
# that rank r (OMPI_COMM_WORLD_RANK) is told it is on host r*HOSTS/NP: several simulated hosts
# on one machine, their pairs connected over Ethernet (gpu-test.sh and compare-nccl.sh with
# HOSTS=N). simhost.sh --check HOSTS NP exits 2 with a message unless HOSTS is a whole number
# from 2 to NP (run it before mpirun).
set -eu
check() {
  if ! [[ "$1" =~ ^[0-9]+$ ]] || [ "$1" -lt 2 ] || [ "$1" -gt "$2" ]; then
    echo "HOSTS=$1: want a whole number from 2 to NP ($2)" >&2; exit 2
  fi
}
if [ "${1:-}" = --check ]; then
  check "$2" "$3"
  exit 0
fi
hosts=$1 np=$2
shift 2
check "$hosts" "$np"
MSCCLPP_BENCH_HOSTID=h$((OMPI_COMM_WORLD_RANK * hosts / np)) exec "$@"
