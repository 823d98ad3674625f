#!/usr/bin/env bash
# Installs what Solder builds with (Debian/Ubuntu packages) and configures + builds it.
# The CUDA 13 toolkit (nvcc, NVRTC, cuBLASLt headers) is expected to be present already.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(cmake ninja-build g++ ccache libfmt-dev nlohmann-json3-dev libcli11-dev libgtest-dev)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq || echo "setup: apt-get update failed (offline?); trying the install anyway"
  $SUDO apt-get install -y -qq "${missing[@]}"
fi

BUILD=${BUILD_DIR:-build}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} >/dev/null
cmake --build "$BUILD" -j "$(nproc)"
