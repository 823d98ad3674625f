#!/usr/bin/env bash
# On the GPU machine: build (build-device, as scripts/device.sh does), then the torch
# integration: the Python tests (GPU tier included), the host-time table and the model table.
# Logs and tables go to $OUT.
#   MODELS=gpt2,llama,vit DTYPES=fp32,bf16 ITERS=20 TESTS=1 ./scripts/torch_bench.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/solder-out}
mkdir -p "$OUT"
export SOLDER_ROOT=$PWD SOLDER_CACHE_DIR=${SOLDER_CACHE_DIR:-/tmp/solder-cache}
BIN=build-device
if [ "${PREBUILT:-0}" != 1 ]; then
  t0=$(date +%s)
  if cmake -S . -B $BIN -G Ninja -DCMAKE_BUILD_TYPE=Release \
       -DPython_EXECUTABLE="$(command -v python3)" >"$OUT/build.log" 2>&1 &&
     cmake --build $BIN -j "$(nproc)" >>"$OUT/build.log" 2>&1; then
    echo "device build ok in $(( $(date +%s) - t0 )) s"
  else
    echo "device build failed (tail of $OUT/build.log):"; tail -5 "$OUT/build.log"; exit 1
  fi
fi
[ -d $BIN/python/solder ] || { echo "no Python module in $BIN (nanobind missing?)"; exit 1; }
export PYTHONPATH=$PWD/$BIN/python
if [ "${TESTS:-1}" = 1 ]; then
  echo "== python tests (CPU and GPU tiers)"
  timeout 400 python3 -m unittest discover -s python/tests 2>&1 | tee "$OUT/python.log" | tail -4
fi
echo "== host time of a call"
timeout 200 python3 bench/host_call.py --solder $BIN/solder 2>&1 | tee "$OUT/host_call.md"
echo "== models"
timeout "${MODELS_TIMEOUT:-480}" python3 bench/models.py --models "${MODELS:-gpt2,llama,vit}" \
  --dtypes "${DTYPES:-fp32,bf16}" --iters "${ITERS:-20}" --json "$OUT/models.json" 2>"$OUT/models.err" |
  tee "$OUT/models.md"
tail -3 "$OUT/models.err"
