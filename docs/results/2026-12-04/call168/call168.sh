# call168: GPU tests of this session's changes (outer_norm's retry order: gpu_outer_norm_test;
# few-row spreading and phased rows: gpu_executor_test's norm tests, B = 257 added), then
# grid.txt (no peers).
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_outer_norm_test gpu_executor_test || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
( timeout 150 /tmp/cand/build/tests/gpu_outer_norm_test --gtest_brief=1 2>&1; echo "gpu_outer_norm_test exit $?" ) | tail -4 | tee $R/gpu_tests.txt
( timeout 200 /tmp/cand/build/tests/gpu_executor_test --gtest_brief=1 --gtest_filter='*NormsAcrossHiddenSizes*:*NormsOverTheHiddenSweep*:*MaskedSoftmax*:*ClusterRows*:*PhaseShifted*' 2>&1; echo "gpu_executor_test exit $?" ) | tail -6 | tee -a $R/gpu_tests.txt
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-grid PYTHONPATH=/tmp/cand/build/python timeout $((560-SECONDS)) python3 bench/experiments/variant_plan_grid.py docs/results/2026-12-04/call168/grid.txt --no-peers > $R/grid.md 2> $R/grid.err
echo "grid exit $? at ${SECONDS}s" | tee -a $R/times.txt
cut -c1-150 $R/grid.md
