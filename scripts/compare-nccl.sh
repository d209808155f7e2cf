#!/usr/bin/env bash
# compare-nccl.sh NCCL_TESTS_BUILD_DIR COLLECTIVE|all [nccl-tests flags...]
#
# Runs nccl-tests' program of COLLECTIVE (any collective mscclpp-bench registers: allreduce,
# allgather, reducescatter, alltoall, alltoallv, sendrecv, broadcast, reduce, gather,
# scatter, hypercube; `all` runs each in turn) from an existing build and mscclpp-bench on
# the same sizes, flags and ranks, then prints them side by side with the ratio per size
# (time: NCCL/ours, > 1 means we are faster; busbw: ours/NCCL). The program is the one the
# collective's --help names (all_reduce_perf, ...). It builds nothing. NP ranks (default 2);
# text and JSON of both runs are kept in OUT (default out/).
# Both run under mpirun's default CPU binding, as users launch them (OpenMPI binds each rank
# to one core for 2 ranks); BIND=none adds --bind-to none to both, and MPIRUN_ARGS adds any
# other mpirun options (for example "--map-by slot:PE=2"). A collective that cannot run on
# NP ranks (hypercube needs a power of two) is reported and left out of `all`.
# HOSTS=N tells our ranks they are on N hosts (scripts/simhost.sh: rank r on host r*N/NP),
# so that pairs on different "hosts" connect over Ethernet, and forces NCCL onto its socket
# transport (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_NET=Socket
# NCCL_SOCKET_IFNAME=$NCCL_SOCKET_IFNAME or lo), as shared/baselines' socket runs were made.
# Where ranks share a GPU (NP above the GPU count), nccl-tests refuses two ranks of one host
# on one GPU: each NCCL rank then runs on a host of its own (scripts/ncclhost.sh: a UTS
# namespace with its own host name and NCCL_HOSTID; needs root), so NCCL's socket path and
# our Ethernet path are compared side by side on one GPU. Where each rank has a GPU and
# HOSTS is below NP (several ranks a host), NCCL's ranks go onto the same simulated hosts
# as ours (scripts/ncclhost.sh --device: rank r on GPU r) with P2P and SHM left on, so both
# use NVLink inside a host and sockets between hosts.
# MPS=1, where ranks share a GPU, runs both programs' ranks as clients of an MPS daemon of
# the run's own, each with its share of the SMs (scripts/mps.sh, docs/gpu-testing.md).
# RUNS=K (default 1) runs each program K times a collective, NCCL and ours in turn, and
# compares the median time of each size over the K runs (the busbw columns are those of
# the median times): across simulated hosts one run's time of a size can differ from the
# next by several times, so one run decides nothing there. Every run's output is kept.
# Below the table a line counts the sizes where ours is slower, and those from 1 MiB where
# ours is less than twice as fast (alltoallv's 1 MiB, a few bytes short of it, counts);
# with RUNS above 1 a second line counts them run by run (run k of NCCL against run k of
# ours, in any run), the test of "in each of K runs", a line `# in some run: ours slower at
# SIZES; under 2x at SIZES` names those sizes where there are any, and a third counts the
# sizes where one program's slowest run took more than twice its fastest (the machine's slow
# spells: such a cell says little either way). Where several collectives ran (`all`), the
# last lines add up those counts over all of them and name the cells (collective and size).
# With HOSTS=2 and NP=2 (one pair, a rank a host) our ping-pong reads the raw TCP rate
# between the two ranks before the first collective and after the last (`pingpong -b 64M
# -e 64M`, kept in OUT), and a line under the tables gives, for every size from 64 MiB,
# ours as a share of it: a direction's rate (bus bandwidth; alltoallv's algorithm
# bandwidth, its whole message to the one peer) over both readings of both ways at once,
# or of one way for the rooted collectives (broadcast, reduce, gather, scatter). RAW=0
# leaves the readings out.
# Example: NP=2 scripts/compare-nccl.sh third_party/nccl-tests/build allreduce -b 8 -e 2G -f 2 -G 10
#          NP=2 scripts/compare-nccl.sh third_party/nccl-tests/build all -b 8 -e 2G -f 4 -r 1
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 NCCL_TESTS_BUILD_DIR COLLECTIVE|all [flags...]" >&2
  exit 2
fi
dir=$1 want=$2
shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
bench=$here/bin/mscclpp-bench
[ -x "$bench" ] || { echo "$0: $bench is missing: run make" >&2; exit 2; }
# program COLL prints the nccl-tests program that COLL's --help names (nothing if none).
program() {
  "$bench" "$1" --help 2>/dev/null | sed -n "s/^nccl-tests' \([a-z_]*_perf\):.*/\1/p" | head -1
}
collectives=$("$bench" __complete "" 2>/dev/null | cut -f1 | while read -r c; do
  if [ -n "$(program "$c")" ]; then echo "$c"; fi; done)
if [ "$want" = all ]; then
  colls=$collectives
elif grep -qx -- "$want" <<<"$collectives"; then
  colls=$want
else
  echo "$0: unknown collective $want (want all or one of: $(echo $collectives))" >&2; exit 2
fi
NP=${NP:-2}
OUT=${OUT:-out}
RUNS=${RUNS:-1}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "$0: RUNS=$RUNS: want a whole number of runs, 1 or more" >&2; exit 2; }
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
mpi=(-np "$NP")
case ${BIND:-} in
  "") ;;
  none) mpi+=(--bind-to none) ;;
  *) echo "$0: BIND=$BIND: want none or nothing (mpirun's default binding)" >&2; exit 2 ;;
esac
# shellcheck disable=SC2206 # MPIRUN_ARGS is a list of words on purpose
mpi+=(${MPIRUN_ARGS:-})
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$gpus" -gt 0 ] || { echo "$0: nvidia-smi lists no GPU" >&2; exit 2; }
[ "$NP" -gt "$gpus" ] && mpi+=(--oversubscribe)
ours=("$bench")
nccl_env=()
nccl_wrap=()
nccl_hosts=
if [ -n "${HOSTS:-}" ]; then
  "$here/scripts/simhost.sh" --check "$HOSTS" "$NP"
  nccl_env=(-x NCCL_P2P_DISABLE=1 -x NCCL_SHM_DISABLE=1 -x NCCL_IB_DISABLE=1 -x NCCL_NET=Socket
    -x "NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo}")
  ours=("$here/scripts/simhost.sh" "$HOSTS" "$NP" "$bench")
  if [ "$NP" -gt "$gpus" ]; then
    unshare -u true 2>/dev/null ||
      { echo "$0: HOSTS=$HOSTS with $NP ranks on $gpus GPU(s) gives each NCCL rank a host of its own with unshare -u, which needs root" >&2; exit 2; }
    nccl_wrap=("$here/scripts/ncclhost.sh" "$NP" "$NP")
    nccl_hosts=" (NCCL: socket transport, a host per rank)"
  elif [ "$HOSTS" -lt "$NP" ]; then
    # Several ranks a host, a GPU each: NCCL's ranks are put on the same simulated hosts as
    # ours, so that it uses NVLink inside a host and sockets between hosts, as ours does.
    unshare -u true 2>/dev/null ||
      { echo "$0: HOSTS=$HOSTS with several ranks a host puts NCCL's ranks on simulated hosts with unshare -u, which needs root" >&2; exit 2; }
    nccl_env=(-x NCCL_IB_DISABLE=1 -x NCCL_NET=Socket -x "NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo}")
    nccl_wrap=("$here/scripts/ncclhost.sh" --device "$HOSTS" "$NP")
    nccl_hosts=" (NCCL: NVLink inside a host, socket transport between)"
  else
    nccl_hosts=" (NCCL: socket transport)"
  fi
fi
# shellcheck source=scripts/mps.sh
. "$here/scripts/mps.sh"
# A signal (timeout's TERM) ends the script through the EXIT trap, which bash skips for
# an untrapped signal: the daemon must not outlive the run.
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'mps_stop' EXIT
mps_start "$NP" "$gpus" "$OUT" || exit 2
mpi+=("${MPS_MPIRUN[@]}")
echo "# compare-nccl: NP=$NP on $gpus GPU(s)${HOSTS:+, HOSTS=$HOSTS}, $MPS_STATE"

# compare COLL FLAGS...: RUNS runs of both programs of one collective, in turn, and the table
# of their medians; returns ours' status (the last failing run's).
compare() {
  local coll=$1 nccl tag rc=0 i sfx
  local -a files_nccl=() files_ours=()
  shift
  nccl=$dir/$(program "$coll")
  [ -x "$nccl" ] || { echo "$0: $nccl is not an executable nccl-tests binary" >&2; return 2; }
  tag=$coll$(printf '%s' "$*" | tr -c 'A-Za-z0-9' '_')${BIND:+_bind-$BIND}${HOSTS:+_hosts-$HOSTS}
  for ((i = 1; i <= RUNS; i++)); do
    sfx=$([ "$RUNS" -gt 1 ] && echo ".run$i")
    mpirun "${mpi[@]}" -x NCCL_NVLS_ENABLE "${nccl_env[@]}" "${nccl_wrap[@]}" "$nccl" "$@" -J "$OUT/nccl-$tag$sfx.json" >"$OUT/nccl-$tag$sfx.txt" ||
      { echo "$0: $nccl failed (exit $?): $OUT/nccl-$tag$sfx.txt" >&2; return 1; }
    mpirun "${mpi[@]}" "${ours[@]}" "$coll" "$@" -J "$OUT/mscclpp-$tag$sfx.json" >"$OUT/mscclpp-$tag$sfx.txt" || rc=$?
    files_nccl+=("$OUT/nccl-$tag$sfx.txt")
    files_ours+=("$OUT/mscclpp-$tag$sfx.txt")
  done
  # Data rows: size count type redop root | time algbw busbw #wrong | time algbw busbw #wrong;
  # hypercube's redop is blank (12 fields), so the columns after it start one earlier. The
  # first RUNS files are NCCL's, the next RUNS ours; a cell is the median over its runs.
  awk -v runs="$RUNS" -v title="$coll $*${HOSTS:+ across $HOSTS simulated hosts$nccl_hosts}${MPS_PID:+, under MPS}" -v bind="${BIND:-mpirun default}" '
    # spread is the slowest time of list over its fastest (0 where the fastest is 0).
    function spread(list,   v, n, i, lo, hi) {
      n = split(list, v, " ")
      lo = hi = v[1] + 0
      for (i = 2; i <= n; i++) { if (v[i] + 0 < lo) lo = v[i] + 0; if (v[i] + 0 > hi) hi = v[i] + 0 }
      return (lo > 0) ? hi / lo : 0
    }
    function median(list,   v, n, i, j, t) {
      n = split(list, v, " ")
      for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
      return (n % 2) ? v[(n+1)/2] + 0 : (v[n/2] + v[n/2+1]) / 2
    }
    FNR == 1 { file++ }
    /^ *[0-9]/ && NF >= 12 {
      o = (NF == 12) ? -1 : 0
      key = $1 " " $3 " " ((NF == 12) ? "-" : $4)
      if (file <= runs) {
        if (!(key in nt)) { order[++n] = key; bytes[key] = $1 }
        nt[key] = nt[key] " " $(6+o); nti[key] = nti[key] " " $(10+o); nbf[key] = $(8+o) * $(6+o)
        nrun[key, file] = $(6+o)
      } else {
        mt[key] = mt[key] " " $(6+o); mti[key] = mti[key] " " $(10+o); mbf[key] = $(8+o) * $(6+o); mw[key] += $(9+o) + $(13+o)
        mrun[key, file - runs] = $(6+o)
      }
    }
    function bus(f, t) { return (t > 0) ? sprintf("%.2f", f / t) : "0" }
    # mib: 1 MiB, less the few bytes that the sizes of alltoallv fall short of it
    BEGIN { mib = 1048576 * 0.99 }
    END {
      printf "# %s (binding: %s%s): NCCL vs mscclpp-bench (time ratio = NCCL/ours; > 1: ours faster)\n", title, bind, (runs > 1) ? "; median of " runs " runs each" : ""
      printf "%12s %8s %6s | %9s %9s %6s %8s %8s | %9s %9s %6s | %6s\n", "size", "type", "op", "nccl(us)", "ours(us)", "ratio", "nccl-bus", "ours-bus", "ip-nccl", "ip-ours", "ratio", "#wrong"
      for (i = 1; i <= n; i++) {
        k = order[i]
        if (!(k in mt)) continue
        split(k, f, " ")
        a = median(nt[k]); b = median(mt[k]); ai = median(nti[k]); bi = median(mti[k])
        r = (b > 0) ? a / b : 0
        ri = (bi > 0) ? ai / bi : 0
        # busbw is bytes-per-time times a fixed factor: busbw x time of any one run gives it
        printf "%12s %8s %6s | %9.1f %9.1f %6.2f %8s %8s | %9.1f %9.1f %6.2f | %6d\n", f[1], f[2], f[3], a, b, r, bus(nbf[k], a), bus(mbf[k], b), ai, bi, ri, mw[k]
        cells++
        if (r < 1) slower++
        if (bytes[k] >= mib) { big++; if (r < 2) under2++ }
        # run by run: run j of NCCL against run j of ours (where both have the size), the
        # lowest ratio of the runs
        low = -1
        for (j = 1; j <= runs; j++) {
          if (!((k, j) in nrun) || !((k, j) in mrun) || mrun[k, j] <= 0) continue
          q = nrun[k, j] / mrun[k, j]
          if (low < 0 || q < low) low = q
        }
        if (low >= 0 && low < 1) { slowerAny++; slowerAt = slowerAt " " f[1] }
        if (bytes[k] >= mib && low >= 0 && low < 2) { under2Any++; under2At = under2At " " f[1] }
        if (spread(nt[k]) > 2) unsteadyN++
        if (spread(mt[k]) > 2) unsteadyM++
      }
      printf "# %d sizes: ours slower at %d; from 1 MiB, %d of %d under 2x (out of place)\n", cells, slower + 0, under2 + 0, big + 0
      if (runs > 1) printf "# run by run (run k of NCCL against run k of ours): ours slower in some run at %d sizes; from 1 MiB, %d of %d under 2x in some run\n", slowerAny + 0, under2Any + 0, big + 0
      if (runs > 1 && slowerAt under2At != "") printf "# in some run: ours slower at%s; under 2x at%s\n", (slowerAt == "") ? " none" : slowerAt, (under2At == "") ? " none" : under2At
      if (runs > 1) printf "# unsteady: the slowest run over 2x the fastest at %d sizes of NCCL, %d of ours (out of place)\n", unsteadyN + 0, unsteadyM + 0
    }' "${files_nccl[@]}" "${files_ours[@]}" | tee "$OUT/compare-$tag.txt"
  tables+=("$OUT/compare-$tag.txt")
  return $rc
}

# total: the counts below each table of the collectives that ran, added up.
total() {
  awk -v runs="$RUNS" '
    function num(s) { gsub(/[^0-9]/, "", s); return s + 0 }
    /^# [0-9]+ sizes: ours slower at/ { colls++; cells += $2; slower += num($7); under2 += $11; big += $13 }
    /^# run by run/ { match($0, /at [0-9]+ sizes; from 1 MiB, [0-9]+ of/); split(substr($0, RSTART, RLENGTH), f, " "); slowerAny += f[2]; under2Any += f[7] }
    /^# unsteady/ { match($0, /at [0-9]+ sizes of NCCL, [0-9]+ of ours/); split(substr($0, RSTART, RLENGTH), f, " "); unsteadyN += f[2]; unsteadyM += f[6] }
    # the cells of those counts, named by collective (the first word of its title line)
    FNR == 1 { coll = $2 }
    /^# in some run: / {
      line = $0
      sub(/^# in some run: ours slower at /, "", line)
      split(line, part, "; under 2x at ")
      nw = split(part[1], w, " "); for (i = 1; i <= nw; i++) if (w[i] != "none") slowerAt = slowerAt ", " coll " " w[i]
      nw = split(part[2], w, " "); for (i = 1; i <= nw; i++) if (w[i] != "none") under2At = under2At ", " coll " " w[i]
    }
    END {
      printf "# all %d collectives: ours slower at %d of %d sizes; from 1 MiB, %d of %d under 2x (out of place)\n", colls, slower, cells, under2, big
      if (runs > 1) printf "# all, run by run: ours slower in some run at %d sizes; from 1 MiB, %d of %d under 2x in some run\n", slowerAny, under2Any, big
      if (runs > 1) printf "# all, unsteady: the slowest run over 2x the fastest at %d sizes of NCCL, %d of ours (out of place)\n", unsteadyN, unsteadyM
      if (runs > 1 && slowerAt under2At != "") printf "# all, in some run: ours slower at %s; under 2x at %s\n", (slowerAt == "") ? "none" : substr(slowerAt, 3), (under2At == "") ? "none" : substr(under2At, 3)
    }' "${tables[@]}"
}

# raw WHEN: our ping-pong's raw TCP lines between the two ranks into $OUT/raw-WHEN.txt
# (nothing where HOSTS and NP are not one pair or RAW=0; a failed reading only warns).
raw() {
  [ "${HOSTS:-}" = 2 ] && [ "$NP" = 2 ] && [ "${RAW:-1}" != 0 ] || return 0
  mpirun "${mpi[@]}" "${ours[@]}" pingpong -b 64M -e 64M -n 10 -w 3 >"$OUT/raw-$1.txt" 2>&1 ||
    echo "$0: the raw TCP reading $1 the collectives failed: $OUT/raw-$1.txt" >&2
}

# rawshare: under the tables, the raw TCP readings and each collective's share of them
# from 64 MiB (the header says what is compared with what).
rawshare() {
  [ -f "$OUT/raw-before.txt" ] && [ -f "$OUT/raw-after.txt" ] || return 0
  awk '
    function lo(a, b) { return (a < b) ? a : b }
    function hi(a, b) { return (a > b) ? a : b }
    FILENAME ~ /raw-(before|after)[.]txt$/ {
      if ($0 ~ /^# raw TCP 0 -> 1: /) { v = $7 + 0; one1 = one1 ? lo(one1, v) : v; one2 = hi(one2, v) }
      if ($0 ~ /^# raw TCP 0 <-> 1 both ways at once: /) {
        for (i = 1; i <= NF; i++) if ($i == "once:") { a = $(i + 1) + 0; b = $(i + 3) + 0 }
        both1 = both1 ? lo(both1, lo(a, b)) : lo(a, b); both2 = hi(both2, hi(a, b))
      }
      next
    }
    FNR == 1 { coll = $2 }
    /^ *[0-9]/ && $1 >= 67108864 && $4 == "|" {
      rate = $9 * ((coll == "alltoallv") ? 2 : 1)
      rooted = (coll == "broadcast" || coll == "reduce" || coll == "gather" || coll == "scatter")
      r1 = rooted ? one1 : both1; r2 = rooted ? one2 : both2
      if (r1 > 0) line[++n] = sprintf("# %s %s: %.2f GB/s a direction, %.0f-%.0f %% of raw TCP %s", coll, $1, rate, 100 * rate / r2, 100 * rate / r1, rooted ? "one way" : "both ways")
    }
    END {
      if (!one1 || !both1) { print "# raw TCP: no reading (see raw-before.txt and raw-after.txt)"; exit }
      printf "# raw TCP between ranks 0 and 1 before and after: one way %.2f-%.2f GB/s, both ways at once %.2f-%.2f GB/s a direction\n", one1, one2, both1, both2
      for (i = 1; i <= n; i++) print line[i]
    }' "$OUT/raw-before.txt" "$OUT/raw-after.txt" "${tables[@]}" | tee "$OUT/raw-share.txt"
}

status=0
tables=()
rm -f "$OUT/raw-before.txt" "$OUT/raw-after.txt" "$OUT/raw-share.txt" # an earlier run's in OUT
raw before
for coll in $colls; do
  if [ "$coll" = hypercube ] && (( NP & (NP - 1) )); then
    echo "# hypercube: left out, it needs a power-of-two rank count (NP=$NP)"
    [ "$want" = all ] && continue
    exit 2
  fi
  compare "$coll" "$@" || status=$?
done
raw after
[ "${#tables[@]}" -gt 1 ] && total
rawshare
exit $status
