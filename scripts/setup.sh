#!/usr/bin/env bash
# setup.sh brings a fresh Debian 12 (or Ubuntu) machine to a working mscclpp-bench build:
# the CUDA toolkit (nvcc, cuda.h, libcuda), OpenMPI, rdma-core's verbs headers (the IB
# transport loads libibverbs at run time) and iproute2 (the network-namespace test).
# Non-interactive and idempotent.
set -euo pipefail

need=(nvidia-cuda-toolkit libopenmpi-dev openmpi-bin libibverbs-dev iproute2)
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present (${need[*]})"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# nvidia-cuda-toolkit lives in Debian's contrib/non-free (Ubuntu: multiverse) components.
. /etc/os-release
if [ "${ID:-}" = "debian" ]; then
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    # deb822 format: add the components to every stanza that lacks them.
    $sudo sed -i -E '/^Components:/{/non-free( |$)/!s/$/ contrib non-free non-free-firmware/}' \
      /etc/apt/sources.list.d/debian.sources
  fi
  if [ -f /etc/apt/sources.list ] && grep -qE '^deb .*debian' /etc/apt/sources.list; then
    $sudo sed -i -E '/^deb .*debian/{/ non-free( |$)/!s/$/ contrib non-free non-free-firmware/}' \
      /etc/apt/sources.list
  fi
elif [ "${ID:-}" = "ubuntu" ]; then
  $sudo add-apt-repository -y multiverse >/dev/null 2>&1 || true
fi

export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "setup: installed ${missing[*]}"
