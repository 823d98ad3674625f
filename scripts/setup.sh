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
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac  # the venv's python is passed to CMake by path
# The Python frontend builds with nanobind and is tested with numpy and torch (the torch.compile
# backend's tests run on CPU graphs), all from PyPI into a virtual environment in the build
# folder (seeing the system's packages). Without them (no network, no venv module) the rest
# builds and CMake or the tests say what was skipped. SOLDER_TORCH=0 leaves torch out.
PY=$BUILD/pyenv/bin/python
mkdir -p "$BUILD"
[ -x "$PY" ] || python3 -m venv --system-site-packages "$BUILD/pyenv" >/dev/null 2>&1 || true
if [ -x "$PY" ] && ! "$PY" -c "import nanobind, numpy" 2>/dev/null; then
  echo "setup: installing nanobind and numpy into $BUILD/pyenv"
  "$PY" -m pip install -q nanobind numpy >"$BUILD/pip.log" 2>&1 ||
    echo "setup: pip install failed (see $BUILD/pip.log); the Python frontend will be skipped"
fi
# ml_dtypes: numpy results of bf16/fp8 as typed arrays (without it, tagged bits; docs/python.md).
if [ -x "$PY" ] && ! "$PY" -c "import ml_dtypes" 2>/dev/null; then
  "$PY" -m pip install -q ml_dtypes >>"$BUILD/pip.log" 2>&1 ||
    echo "setup: ml_dtypes install failed; bf16/fp8 numpy results come back as tagged bits"
fi
if [ -x "$PY" ] && [ "${SOLDER_TORCH:-1}" = 1 ] && ! "$PY" -c "import torch" 2>/dev/null; then
  echo "setup: installing torch into $BUILD/pyenv (for the torch.compile backend's CPU tests)"
  # A failed install (a full disk) can leave a torch that does not import: removed, so the
  # backend's tests skip instead of failing on the import.
  timeout 1200 "$PY" -m pip install -q "torch==2.11.*" >>"$BUILD/pip.log" 2>&1 || {
    "$PY" -m pip uninstall -y -q torch >>"$BUILD/pip.log" 2>&1
    echo "setup: torch install failed (see $BUILD/pip.log); the backend's tests will be skipped"
  }
fi
PYARG=()
[ -x "$PY" ] && PYARG=(-DPython_EXECUTABLE="$PY")
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} "${PYARG[@]}" >/dev/null
cmake --build "$BUILD" -j "$(nproc)"
