# mps.sh, sourced by gpu-test.sh and compare-nccl.sh: with MPS=1, ranks that share a GPU run
# as clients of an MPS control daemon of the run's own (docs/gpu-testing.md). MPS changes no
# GPU setting: the daemon is a user-space process that this script starts and stops.
#
# mps_start NP GPUS OUT: with MPS=1 and more ranks (NP) than GPUs, starts
#   `nvidia-cuda-mps-control -d` with its pipe and log folders in OUT/mps, exports
#   CUDA_MPS_PIPE_DIRECTORY, CUDA_MPS_LOG_DIRECTORY and CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
#   (100 / ranks per GPU: each rank's share of the SMs, so that kernels that wait for each
#   other can all run at once) and CUDA_DEVICE_MAX_CONNECTIONS (8 unless already set: MPS's
#   default work queues let copies stall behind spinning kernels), and sets MPS_MPIRUN (the -x options that pass them to the
#   ranks) and MPS_STATE (a phrase for the summary). MPS=0 or unset: nothing. Says why and
#   returns 1 when MPS is bad, a daemon runs in the folder already (its pid file names a
#   running process) or the daemon does not start; removes sockets left by one that quit.
# mps_stop: quits the daemon that mps_start started, if any, waits for it to go and, once
#   it has, removes its pipe folder (so that mps_start may start another there); call it
#   from an EXIT trap. A second call does nothing.
# mps_restart: if mps_start started a daemon, quits it and starts a fresh one with the same
#   settings (a client that dies under MPS can leave the server unusable for later ones).
MPS_MPIRUN=()
MPS_STATE="MPS off"
MPS_PID=
MPS_ARGS=()

mps_start() {
  local np=$1 gpus=$2 out=$3 share pct dir i pid
  case ${MPS:-0} in
    0) return 0 ;;
    1) ;;
    *) echo "MPS=$MPS: want 0 or 1" >&2; return 1 ;;
  esac
  if [ "$np" -le "$gpus" ]; then
    MPS_STATE="MPS off (MPS=1, but every rank has a GPU of its own)"
    return 0
  fi
  command -v nvidia-cuda-mps-control >/dev/null ||
    { echo "MPS=1: nvidia-cuda-mps-control is not on PATH" >&2; return 1; }
  mkdir -p "$out" || return 1
  dir=$(cd "$out" && pwd)/mps
  # The pipe folder holds Unix sockets, whose paths Linux limits to 107 bytes.
  if [ ${#dir} -gt 64 ]; then
    dir=$(mktemp -d /tmp/mps.XXXXXX) || return 1
    echo "MPS=1: $out is too deep a folder for MPS's sockets; the daemon's folders are in $dir" >&2
  fi
  mkdir -p "$dir/pipe" "$dir/log" || return 1
  export CUDA_MPS_PIPE_DIRECTORY=$dir/pipe CUDA_MPS_LOG_DIRECTORY=$dir/log
  if [ -e "$CUDA_MPS_PIPE_DIRECTORY/control" ]; then
    # A daemon that quit takes its pid file away and leaves its sockets; one that was
    # killed leaves both, with a pid that no longer runs. A pid file that names no
    # process id at all is taken for a running daemon.
    pid=$(cat "$CUDA_MPS_PIPE_DIRECTORY/nvidia-cuda-mps-control.pid" 2>/dev/null)
    case $pid in
      '' | *[!0-9]*) ;;
      *) [ -d "/proc/$pid" ] || pid= ;;
    esac
    if [ -n "$pid" ]; then
      echo "MPS=1: a daemon already listens in $CUDA_MPS_PIPE_DIRECTORY (pid file: $pid)" >&2
      return 1
    fi
    echo "MPS=1: removing the sockets that a daemon no longer running left in $CUDA_MPS_PIPE_DIRECTORY" >&2
    if pgrep -x nvidia-cuda-mps-server >/dev/null 2>&1; then
      echo "MPS=1: an MPS server still runs (pgrep -x nvidia-cuda-mps-server), perhaps that daemon's" >&2
    fi
    rm -f "$CUDA_MPS_PIPE_DIRECTORY"/* || return 1
  fi
  MPS_ARGS=("$np" "$gpus" "$out")
  share=$(( (np + gpus - 1) / gpus ))
  pct=$(( 100 / share ))
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$pct
  nvidia-cuda-mps-control -d ||
    { echo "MPS=1: nvidia-cuda-mps-control -d failed (log: $CUDA_MPS_LOG_DIRECTORY)" >&2; return 1; }
  for i in $(seq 50); do
    [ -e "$CUDA_MPS_PIPE_DIRECTORY/control" ] && break
    sleep 0.1
  done
  [ -e "$CUDA_MPS_PIPE_DIRECTORY/control" ] ||
    { echo "MPS=1: the daemon made no control socket in $CUDA_MPS_PIPE_DIRECTORY within 5 s" >&2; return 1; }
  MPS_PID=$(cat "$CUDA_MPS_PIPE_DIRECTORY/nvidia-cuda-mps-control.pid" 2>/dev/null || echo started)
  # MPS's default hardware work queues let a rank's copies and stream writes stall behind
  # its spinning kernels; 8 per client kept every suite running (docs/gpu-testing.md).
  export CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-8}
  MPS_MPIRUN=(-x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY -x CUDA_MPS_ACTIVE_THREAD_PERCENTAGE -x CUDA_DEVICE_MAX_CONNECTIONS)
  MPS_STATE="MPS on ($share ranks a GPU, CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$pct, CUDA_DEVICE_MAX_CONNECTIONS=$CUDA_DEVICE_MAX_CONNECTIONS, daemon folders $dir)"
}

mps_stop() {
  local pid=$MPS_PID i
  [ -n "$pid" ] || return 0
  MPS_PID=
  echo quit | timeout 10 nvidia-cuda-mps-control >/dev/null 2>&1 || {
    echo "MPS: the daemon did not take quit (log: $CUDA_MPS_LOG_DIRECTORY)" >&2
    return 0
  }
  case $pid in
    *[!0-9]*) ;; # no pid file: nothing to wait on
    *)
      for i in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
      if kill -0 "$pid" 2>/dev/null; then
        echo "MPS: the daemon (pid $pid) still runs 10 s after quit (log: $CUDA_MPS_LOG_DIRECTORY)" >&2
        return 0
      fi
      ;;
  esac
  # The daemon leaves its control sockets behind, which the next mps_start in this folder
  # would have to clear.
  rm -rf "$CUDA_MPS_PIPE_DIRECTORY"
}

mps_restart() {
  [ -n "$MPS_PID" ] || return 0
  mps_stop
  rm -rf "$CUDA_MPS_PIPE_DIRECTORY" # also where the old daemon did not take quit
  mps_start "${MPS_ARGS[@]}"
}
