#!/usr/bin/env bash
# Whether a change to the device runtime alone (tests/golden/device_runtime.cuh) changes any
# golden kernel's machine code: each golden kernel with the runtime at BASE and with the current
# one, compiled by nvcc for sm_90 and disassembled; prints `same NAME` or `DIFF NAME` per kernel.
# No GPU needed (cuobjdump from Triton's wheel in build/pyenv, as scripts/setup.sh installs it).
#   bench/experiments/golden_runtime_sass.sh BASE
set -uo pipefail
cd "$(dirname "$0")/../.."
base=${1:?base commit}
cuobjdump=$(ls build/pyenv/lib/python3*/site-packages/triton/backends/nvidia/bin/cuobjdump | head -1)
out=$(mktemp -d)
git show "$base:tests/golden/device_runtime.cuh" > "$out/rt_old.cuh" || exit 1
cp tests/golden/device_runtime.cuh "$out/rt_new.cuh"
sass() {  # golden kernel $1 with runtime $2 -> its SASS (files apart per runtime: both run at once)
  local k="$out/k_$(basename "$2" .cuh)"
  awk -v rt="$2" '/^\/\/ <device_runtime.cuh>/ {while ((getline l < rt) > 0) print l; next} {print}' "$1" > "$k.cu" &&
    nvcc -cubin -arch=sm_90 -std=c++17 -o "$k.cubin" "$k.cu" 2>/dev/null && "$cuobjdump" -sass "$k.cubin" 2>/dev/null
}
for f in tests/golden/*.cu; do
  if cmp -s <(sass "$f" "$out/rt_old.cuh") <(sass "$f" "$out/rt_new.cuh"); then echo "same $(basename "$f")"; else echo "DIFF $(basename "$f")"; fi
done
rm -rf "$out"
