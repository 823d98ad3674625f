#!/usr/bin/env bash
# Runs GPU test binaries side by side: each binary split into gtest shards, JOBS processes at a
# time. The GPU tier checks results, times nothing, and spends most of its time in NVRTC
# (run one at a time, gpu_outer_reduction_test alone took 270 s of a 600 s device call), so
# the compiles spread over the machine's cores; the kernel cache is safe across processes.
#   scripts/gpu_tests.sh TESTS_DIR [GTEST_FILTER] [NAME ...]
# NAMEs are binaries in TESTS_DIR (gpu_flat_index_test ...); none: every gpu_*_test there.
# Prints each binary's passed/failed counts and failed tests; exits 1 if any shard failed.
set -uo pipefail
dir=${1:?tests dir}; filter=${2:-*}; shift $(( $# > 1 ? 2 : 1 ))
jobs=${JOBS:-$(nproc)}; shards=${SHARDS:-4}
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for t in "$dir"/gpu_*_test; do [ -x "$t" ] && names+=("$(basename "$t")"); done
fi
logs=$(mktemp -d)
export dir filter logs shards
for n in "${names[@]}"; do
  for ((i = 0; i < shards; ++i)); do echo "$n $i"; done
done | xargs -P "$jobs" -L 1 bash -c '
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$2 timeout "${GPU_TEST_TIMEOUT:-900}" \
    "$dir/$1" --gtest_brief=1 --gtest_filter="$filter" > "$logs/$1.$2.log" 2>&1
  echo "exit $?" >> "$logs/$1.$2.log"' shard
status=0
for n in "${names[@]}"; do
  passed=0; failed=0; skipped=0
  for f in "$logs/$n".*.log; do
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$f"); passed=$((passed + ${p:-0}))
    s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$f"); skipped=$((skipped + ${s:-0}))
    if ! grep -q '^exit 0$' "$f"; then
      failed=$((failed + 1)); status=1
      grep -E '^\[  FAILED  \] [A-Za-z]|Failure|^exit' "$f" | head -8 | sed "s|^|  $n: |"
    fi
  done
  echo "$n: $passed passed, $skipped skipped, $failed failed shard(s)"
done
rm -rf "$logs"
exit $status
