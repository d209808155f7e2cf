#!/usr/bin/env bash
# soak.sh [SECONDS]: a long run on a GPU machine, from the repository root after `make`.
# Repeats allreduce and allgather sweeps (every algorithm, type and op; graph and no graph)
# for SECONDS in all (default 600): each of the four runs one process with -N 0 (cycles until
# stopped) for a quarter of the time, then stops it (SIGINT), and checks over its complete
# cycles
#   - no wrong element in any row;
#   - host RSS and GPU memory in use flat: the last cycle's within 16 MiB of the first's;
#   - no slowdown: the median over rows of (last cycle's time / first cycle's) at most 1.10.
# NP ranks (default 2), mpirun's default binding (BIND=none: unbound). Logs in $OUT (out/).
# Exits 1 if any check failed.
set -uo pipefail
total=${1:-600}
NP=${NP:-2}
OUT=${OUT:-out}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
MPIRUN=(mpirun -np "$NP" ${BIND:+--bind-to "$BIND"})
[ "$NP" -gt "$(nvidia-smi -L | wc -l)" ] && MPIRUN+=(--oversubscribe)
phases=("allreduce -o all -G 2" "allreduce -o all" "allgather -G 2" "allgather")
per=$((total / ${#phases[@]}))
fail=0
# judge LOG: prints one line of figures and returns 1 if a check fails.
judge() {
  awk '
    /^#  algorithm:/ { alg = $3 }
    /^ *[0-9]/ && NF >= 13 {
      if ($9 != "0" || $13 != "0") wrong++
      key = alg " " $1 " " $3 " " $4
      if (cycle == 0) first[key] = $6 + $10
      last[key] = $6 + $10
      rows++
    }
    /cycle [0-9]+ done: host RSS/ {
      cycle++
      rss = $7; gpu = $13
      if (cycle == 1) { rss1 = rss; gpu1 = gpu }
    }
    END {
      n = 0
      for (k in first) if (first[k] > 0) r[++n] = last[k] / first[k]
      for (i = 2; i <= n; i++) { v = r[i]; for (j = i - 1; j >= 1 && r[j] > v; j--) r[j + 1] = r[j]; r[j + 1] = v }
      med = (n > 0) ? r[int((n + 1) / 2)] : 0
      bad = 0
      if (cycle < 2) { print "  fewer than 2 cycles"; bad = 1 }
      if (wrong > 0) bad = 1
      if (rss - rss1 > 16 || gpu - gpu1 > 16) bad = 1
      if (med > 1.10) bad = 1
      printf "  cycles %d, rows %d, rows with wrong elements %d, host RSS %s -> %s MiB, GPU memory %s -> %s MiB, median time last/first %.3f: %s\n", cycle, rows, wrong, rss1, rss, gpu1, gpu, med, bad ? "FAIL" : "ok"
      exit bad
    }' "$1"
}
for ph in "${phases[@]}"; do
  # shellcheck disable=SC2086 # the phase is a list of words
  args=($ph -k all -d all -b 8 -e 16M -f 4 -n 5 -w 1 -c 1 -N 0)
  name=$(printf '%s' "$ph" | tr -c 'A-Za-z0-9' '_')
  echo "=== $ph: ${per}s"
  # timeout's 124 is the planned stop; anything else is a failure of the run.
  timeout -s INT "$per" "${MPIRUN[@]}" bin/mscclpp-bench "${args[@]}" >"$OUT/soak-$name.log" 2>&1
  rc=$?
  if [ $rc -ne 124 ]; then
    echo "FAIL $ph: the run ended by itself (exit $rc) before its time"; tail -5 "$OUT/soak-$name.log"; fail=1
  fi
  judge "$OUT/soak-$name.log" || fail=1
done
exit $fail
