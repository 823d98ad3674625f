#!/usr/bin/env bash
# On the GPU machine: build, run the GPU tests (side by side: scripts/gpu_tests.sh; then
# compute-sanitizer), then the benchmarks;
# prints a short table last. Logs and reports go to $OUT (the device tool fetches them).
#   SUITE=default|quick|norms  PEERS=auto|off  SANITIZE=1  TESTS=0  SAMPLED=1  ./scripts/device.sh
#   BASE=.devbase/solder: the same suite with that (carried) binary first, then `solder compare`;
#   BASE=.devbase/base.tar (a carried `git archive` of the baseline commit): built here first,
#   in the background while this build and the tests run
#   EXTRA='cmd; cmd': commands run last (e.g. python bench scripts), their output in the log
#   BENCH=0: no suite (tests only)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/solder-out}
mkdir -p "$OUT"
export SOLDER_ROOT=$PWD SOLDER_CACHE_DIR=${SOLDER_CACHE_DIR:-/tmp/solder-cache}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader || true

if [[ "${BASE:-}" == *.tar ]]; then
  rm -rf /tmp/solder-base && mkdir -p /tmp/solder-base && tar -xf "$BASE" -C /tmp/solder-base
  ( cmake -S /tmp/solder-base -B /tmp/solder-base/build -G Ninja -DCMAKE_BUILD_TYPE=Release >"$OUT/build-base.log" 2>&1 &&
    nice cmake --build /tmp/solder-base/build --target solder -j "$(nproc)" >>"$OUT/build-base.log" 2>&1 ) &
  BASE_BUILD=$!
  BASE=/tmp/solder-base/build/solder
fi

BIN=""
if command -v cmake >/dev/null && [ "${PREBUILT:-0}" != 1 ]; then
  t0=$(date +%s)
  if cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release \
       -DPython_EXECUTABLE="$(command -v python3)" >"$OUT/build.log" 2>&1 &&
     cmake --build build-device -j "$(nproc)" >>"$OUT/build.log" 2>&1; then
    BIN=build-device
    echo "device build ok in $(( $(date +%s) - t0 )) s"
  else
    echo "device build failed (tail of $OUT/build.log):"; tail -5 "$OUT/build.log"
  fi
fi
if [ -z "$BIN" ]; then
  [ -x .devbin/solder ] || { echo "no build and no carried binaries (.devbin)"; exit 1; }
  BIN=.devbin; echo "using carried binaries in .devbin"
fi
solder=$BIN/solder; tests=$BIN/tests; [ -d "$tests" ] || tests=$BIN

if [ "${TESTS:-1}" = 1 ]; then
  # The B=8192 sampled-rows sweeps take about 3 minutes each (2^29-element inputs made, moved
  # and checked on the host): only with SAMPLED=1, after the rest.
  # Side by side, in shards (scripts/gpu_tests.sh: the GPU tier is mostly NVRTC time).
  echo "== GPU tests"
  scripts/gpu_tests.sh "$tests" '-*SampledRows' 2>&1 | tee "$OUT/gpu_tests.log" | tail -40
  if [ "${SAMPLED:-0}" = 1 ]; then
    echo "== gpu_executor_test: B=8192 sampled rows"
    timeout 900 "$tests/gpu_executor_test" --gtest_brief=1 --gtest_filter='*SampledRows' 2>&1 | tee "$OUT/sampled.log" | tail -8
  fi
fi
if [ "${TESTS:-1}" = 1 ] && [ -d "$BIN/python/solder" ]; then
  echo "== python frontend (test_gpu runs where torch sees the GPU)"
  PYTHONPATH=$BIN/python timeout 300 python3 -m unittest discover -s python/tests 2>&1 | tee "$OUT/python.log" | tail -4
fi
if [ "${SANITIZE:-0}" = 1 ] && command -v compute-sanitizer >/dev/null; then
  echo "== compute-sanitizer memcheck"
  timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$tests/gpu_executor_test" \
    --gtest_filter='GpuExecutor.EveryWorkload*:GpuExecutor.Views*:GpuExecutor.Reductions*:GpuExecutor.CatPieces*:GpuExecutor.PhaseShifted*' \
    --gtest_brief=1 >"$OUT/sanitizer.log" 2>&1; echo "memcheck exit $? (0 = clean)"; grep -E "ERROR SUMMARY|FAILED" "$OUT/sanitizer.log" | head -5
  for t in gpu_transpose_test gpu_outer_norm_test; do
    [ -x "$tests/$t" ] || continue
    timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$tests/$t" --gtest_brief=1 >"$OUT/sanitizer-$t.log" 2>&1
    echo "memcheck $t exit $? (0 = clean)"; grep -E "ERROR SUMMARY|FAILED" "$OUT/sanitizer-$t.log" | head -5
  done
fi
if [ -n "${BASE_BUILD:-}" ]; then
  wait "$BASE_BUILD" || { echo "baseline build failed (tail of $OUT/build-base.log):"; tail -5 "$OUT/build-base.log"; BASE=""; }
fi
if [ "${BENCH:-1}" = 1 ] && [ -n "${BASE:-}" ]; then
  echo "== baseline $BASE: solder bench --suite ${SUITE:-quick}"
  SOLDER_CACHE_DIR=/tmp/solder-cache-base timeout "${BENCH_TIMEOUT:-420}" "$BASE" bench --suite "${SUITE:-quick}" \
    --peers off ${BENCH_ARGS:-} --json "$OUT/bench-base.json" >/dev/null 2>"$OUT/bench-base.err"
  echo "baseline bench exit $?"
fi
if [ "${BENCH:-1}" = 1 ]; then
  echo "== solder bench --suite ${SUITE:-quick}"
  timeout "${BENCH_TIMEOUT:-420}" "$solder" bench --suite "${SUITE:-quick}" --peers "${PEERS:-off}" ${BENCH_ARGS:-} \
    --json "$OUT/bench.json" --md "$OUT/bench.md" 2>"$OUT/bench.err"
  echo "bench exit $?"; tail -3 "$OUT/bench.err"
fi
if [ "${BENCH:-1}" = 1 ] && [ -n "${BASE:-}" ] && [ -f "$OUT/bench-base.json" ]; then
  echo "== solder compare baseline -> this build"
  "$solder" compare "$OUT/bench-base.json" "$OUT/bench.json" | tee "$OUT/compare.txt" | tail -40
fi
if [ -n "${EXTRA:-}" ]; then
  echo "== extra: $EXTRA"
  PYTHONPATH=$PWD/$BIN/python${PYTHONPATH:+:$PYTHONPATH} bash -c "$EXTRA" 2>&1 | tee "$OUT/extra.log" | tail -60
fi
