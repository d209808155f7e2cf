#!/usr/bin/env bash
# gpu-test.sh: the GPU suite, run on a GPU machine from the repository root after
# `make gpu-test-bin` (here or elsewhere; bin/ must be present). NP ranks (default 2),
# BIND (empty: mpirun's default binding; none: --bind-to none). More ranks than GPUs
# (NP=3 or NP=8 on two GPUs: ranks share a GPU) check correctness, not speed; mpirun then
# gets --oversubscribe.
# HOSTS=N tells the ranks they are on N hosts (scripts/simhost.sh: MSCCLPP_BENCH_HOSTID,
# rank r on host r*N/NP), so that pairs on different "hosts" connect over Ethernet (loopback TCP here):
# then ping-pong runs over port channels and every collective runs each of its algorithms
# that fits the layout (port channels, or hostput's host-resident buffers between hosts and
# NVLink inside one); the Go GPU tests are skipped.
# COLLS (space-separated) runs only those collectives; MAXSIZE (default 16M) is the largest
# size of the power-of-two and graph sweeps (ranks time-sliced on one GPU across simulated
# hosts are slow at large sizes).
# MPS=1, when ranks share a GPU, runs them as clients of an MPS control daemon of this run's
# own (scripts/mps.sh: pipe and log folders under $OUT/mps), each limited to its share of
# the SMs (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE), so that their kernels run side by side
# rather than time-sliced; the daemon stops when the script ends, also on failure. See
# docs/gpu-testing.md.
# Logs go to $OUT (default ./out). Exits non-zero if anything failed.
set -uo pipefail
NP=${NP:-2}
OUT=${OUT:-out}
MAXSIZE=${MAXSIZE:-16M}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# NVLink multicast must stay off on shared machines.
export NCCL_NVLS_ENABLE=0
# mpirun's default CPU binding, as users run it; BIND=none runs unbound.
MPIRUN=(mpirun -np "$NP" ${BIND:+--bind-to "$BIND"} -x NCCL_NVLS_ENABLE -x MSCCLPP_BENCH_PUT_BLOCKS -x MSCCLPP_BENCH_PUT_THREADS -x MSCCLPP_BENCH_PUT_UNROLL)
gpus=$(nvidia-smi -L | wc -l)
[ "$NP" -gt "$gpus" ] && MPIRUN+=(--oversubscribe)
# shellcheck source=scripts/mps.sh
. "$(dirname "$0")/mps.sh"
started=$(date +%s)
# The last line says how it went, with MPS or not; the daemon stops whatever happens. A
# signal (timeout's TERM) ends the script with a failure, not with the status of
# whatever ran last.
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'rc=$?; mps_stop; echo "=== gpu-test: $([ $rc -eq 0 ] && echo PASS || echo "FAIL (exit $rc)") in $(( $(date +%s) - started )) s: NP=$NP on $gpus GPUs${HOSTS:+, HOSTS=$HOSTS}, $MPS_STATE"' EXIT
mps_start "$NP" "$gpus" "$OUT" || exit 2
MPIRUN+=("${MPS_MPIRUN[@]}")
BENCH=(bin/mscclpp-bench)
if [ -n "${HOSTS:-}" ]; then
  scripts/simhost.sh --check "$HOSTS" "$NP" || exit 2
  BENCH=(scripts/simhost.sh "$HOSTS" "$NP" bin/mscclpp-bench)
fi
echo "NP=$NP ranks on $gpus GPUs${HOSTS:+, told they are on $HOSTS hosts}, $MPS_STATE: ${MPIRUN[*]}"
fail=0
step() {
  local name=$1; shift
  echo "=== $name: $*"
  if "$@" >"$OUT/$name.log" 2>&1; then
    echo "--- PASS $name"
  else
    echo "--- FAIL $name (exit $?)"; tail -20 "$OUT/$name.log"; fail=1
    # ranks that died under MPS can leave its server unusable for the next clients
    # (cuDevicePrimaryCtxRetain: 805): the next step gets a fresh daemon
    mps_restart || exit 2
  fi
}
# wrong_cells LOG prints every #wrong cell of the result rows in LOG, one a line: collective
# rows have 13 fields (size count type redop root, then time algbw busbw #wrong out of place
# and in place; 12 for hypercube, whose redop is blank), ping-pong rows 8 (pair channel mode
# size time lat algbw #wrong).
wrong_cells() {
  awk '$1 ~ /^[0-9]+$/ && (NF == 13 || NF == 12) { print $(NF-4); print $NF }
       $1 ~ /^[0-9]+-[0-9]+$/ && NF == 8 { print $8 }' "$1"
}
# check_wrong NAME zero|some: every #wrong cell in NAME's log must be a number (-c 1 checks
# every row, so N/A is a failure), and all 0 (zero) or at least one above 0 (some).
check_wrong() {
  local name=$1 want=$2 cells bad
  cells=$(wrong_cells "$OUT/$name.log")
  bad=$(grep -vxE '[0-9]+' <<<"$cells" | head -1)
  if [ -z "$cells" ]; then
    echo "--- FAIL $name #wrong: no result rows in $OUT/$name.log"; fail=1
  elif [ -n "$bad" ]; then
    echo "--- FAIL $name #wrong: a cell reads '$bad', not a number"; fail=1
  elif [ "$want" = zero ] && grep -qvx 0 <<<"$cells"; then
    echo "--- FAIL $name #wrong: $(grep -cvx 0 <<<"$cells") of $(wc -l <<<"$cells") cells are not 0"; fail=1
  elif [ "$want" = some ] && ! grep -qvx 0 <<<"$cells"; then
    echo "--- FAIL $name #wrong: all $(wc -l <<<"$cells") cells are 0, the injected wrong element was not counted"; fail=1
  else
    echo "--- PASS $name #wrong: $(wc -l <<<"$cells") cells, $want"
  fi
}
if [ -z "${HOSTS:-}" ]; then
  step gputest "${MPIRUN[@]}" bin/gputest.test -test.v -test.timeout 300s -test.skip '^TestInjectedWrongIsReported$'
  # A test-only algorithm gets one element wrong on purpose: the run must count it (the
  # test fails otherwise) and print it in the #wrong columns.
  step injected "${MPIRUN[@]}" bin/gputest.test -test.v -test.timeout 120s -test.run '^TestInjectedWrongIsReported$'
  check_wrong injected some
  step pingpong "${MPIRUN[@]}" bin/mscclpp-bench pingpong -b 4K -e 64M -f 4 -n 5 -w 1 -c 1
  check_wrong pingpong zero
else
  step pingpong "${MPIRUN[@]}" "${BENCH[@]}" pingpong --channel port -b 8 -e 64M -f 8 -n 5 -w 1 -c 1
  check_wrong pingpong zero
  if grep -q "hosts=$HOSTS " "$OUT/pingpong.log"; then
    echo "--- PASS pingpong header: hosts=$HOSTS"
  else
    echo "--- FAIL pingpong header does not say hosts=$HOSTS"; fail=1
  fi
fi
# Every collective the binary registers (the commands whose help names an nccl-tests
# program), every algorithm x type (x op) x placement, at powers of two and at odd sizes
# whose counts are not multiples of any vector width, then in graph mode.
collectives=$(bin/mscclpp-bench __complete "" 2>/dev/null | cut -f1 | while read -r c; do
  bin/mscclpp-bench "$c" --help 2>/dev/null | grep "^nccl-tests' .*_perf" >/dev/null && echo "$c"; done)
[ -n "$collectives" ] || { echo "--- FAIL no collective commands found in bin/mscclpp-bench"; fail=1; }
[ -n "${COLLS:-}" ] && collectives=$COLLS
echo "collectives: $(echo $collectives)"
# refused NAME CMD...: CMD must be refused as a usage error (exit 2) naming why.
refused() {
  local name=$1 why=$2 rc=0; shift 2
  echo "=== $name: $*"
  "$@" >"$OUT/$name.log" 2>&1 || rc=$?
  if [ "$rc" -eq 2 ] && grep -- "$why" "$OUT/$name.log" >/dev/null; then
    echo "--- PASS $name (refused: $(grep -m1 -- "$why" "$OUT/$name.log"))"
  else
    echo "--- FAIL $name: exit $rc, want 2 and a line with '$why'"; tail -5 "$OUT/$name.log"; fail=1
  fi
}
for coll in $collectives; do
  if [ "$coll" = hypercube ] && (( NP & (NP - 1) )); then
    # nccl-tests skips hypercube when the rank count is not a power of two; we refuse it
    refused "$coll-refused" "power-of-two rank count" "${MPIRUN[@]}" "${BENCH[@]}" "$coll" -b 8 -e 1M -c 1
    continue
  fi
  ops=(); bin/mscclpp-bench "$coll" --help | grep -- '--op' >/dev/null && ops=(-o all)
  step "$coll-all" "${MPIRUN[@]}" "${BENCH[@]}" "$coll" -k all -d all "${ops[@]}" -b 8 -e "$MAXSIZE" -f 4 -n 2 -w 1 -c 1
  check_wrong "$coll-all" zero
  # a rooted collective (its root column is -r's, not -1) again with the last rank as root
  root=$(awk '$1 ~ /^[0-9]+$/ && NF == 13 { print $5; exit }' "$OUT/$coll-all.log")
  if [ -n "$root" ] && [ "$root" != -1 ] && [ "$NP" -gt 1 ]; then
    step "$coll-root" "${MPIRUN[@]}" "${BENCH[@]}" "$coll" -k all -d all "${ops[@]}" -b 8 -e "$MAXSIZE" -f 4 -n 2 -w 1 -c 1 -r $((NP - 1))
    check_wrong "$coll-root" zero
  fi
  step "$coll-odd" "${MPIRUN[@]}" "${BENCH[@]}" "$coll" -k all -d all "${ops[@]}" -b 1000 -e 100000 -i 33337 -n 2 -w 1 -c 1
  check_wrong "$coll-odd" zero
  step "$coll-graph" "${MPIRUN[@]}" "${BENCH[@]}" "$coll" -k all -b 8 -e "$MAXSIZE" -f 8 -n 4 -w 1 -c 1 -G 2
  check_wrong "$coll-graph" zero
done
exit $fail
