#!/usr/bin/env bash
# gpu-test.sh: the GPU suite, run on a GPU machine from the repository root after
# `make gpu-test-bin` (here or elsewhere; bin/ must be present). NP ranks (default 2),
# BIND (empty: mpirun's default binding; none: --bind-to none).
# Logs go to $OUT (default ./out). Exits non-zero if anything failed.
set -uo pipefail
NP=${NP:-2}
OUT=${OUT:-out}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# NVLink multicast must stay off on shared machines.
export NCCL_NVLS_ENABLE=0
# mpirun's default CPU binding, as users run it; BIND=none runs unbound.
MPIRUN=(mpirun -np "$NP" ${BIND:+--bind-to "$BIND"} -x NCCL_NVLS_ENABLE -x MSCCLPP_BENCH_PUT_BLOCKS -x MSCCLPP_BENCH_PUT_THREADS -x MSCCLPP_BENCH_PUT_UNROLL)
[ "$NP" -gt "$(nvidia-smi -L | wc -l)" ] && MPIRUN+=(--oversubscribe)
fail=0
step() {
  local name=$1; shift
  echo "=== $name: $*"
  if "$@" >"$OUT/$name.log" 2>&1; then
    echo "--- PASS $name"
  else
    echo "--- FAIL $name (exit $?)"; tail -20 "$OUT/$name.log"; fail=1
  fi
}
step gputest "${MPIRUN[@]}" bin/gputest.test -test.v -test.timeout 300s
step pingpong "${MPIRUN[@]}" bin/mscclpp-bench pingpong -b 4K -e 64M -f 4 -n 5 -w 1 -c 1
# Every algorithm x type (x op) x placement, at powers of two and at odd sizes whose counts
# are not multiples of any vector width, then in graph mode.
for coll in allgather allreduce; do
  ops=(); [ "$coll" = allreduce ] && ops=(-o all)
  step "$coll-all" "${MPIRUN[@]}" bin/mscclpp-bench "$coll" -k all -d all "${ops[@]}" -b 8 -e 16M -f 4 -n 2 -w 1 -c 1
  step "$coll-odd" "${MPIRUN[@]}" bin/mscclpp-bench "$coll" -k all -d all "${ops[@]}" -b 1000 -e 100000 -i 33337 -n 2 -w 1 -c 1
  step "$coll-graph" "${MPIRUN[@]}" bin/mscclpp-bench "$coll" -k all -b 8 -e 16M -f 8 -n 4 -w 1 -c 1 -G 2
done
exit $fail
