# Fresh seed 12 sweep on main 25c826c (fullstaged + rowunroll merged) beside torch.compile; the
# GPU tests call40 skipped for time; memcheck of the new paths (rows in flight, transposed full
# reductions).
R=$OUT; T=build-device/tests; mkdir -p /tmp/o
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log; echo "built at $SECONDS s"
PYTHONPATH=$PWD/build-device/python timeout 300 python3 bench/variants.py --seed 12 --time-budget 250 -o $R/variants_seed12.json > $R/variants_seed12.txt 2>&1; echo "sweep exit $? at $SECONDS s"; grep -A60 "% of a same-bytes" $R/variants_seed12.txt | grep -v "^ *solder_\|^ *view" | head -45
for spec in "gpu_shift_loads_test *" "gpu_executor_test *EveryWorkload*:*NonContiguous*:*PhaseShiftedPointwiseRows*" "gpu_inner_shift_test *"; do set -f; set -- $spec; set +f; [ $SECONDS -gt 500 ] && { echo "skip $1 (time)"; continue; }; timeout $((540-SECONDS)) $T/$1 --gtest_brief=1 "--gtest_filter=$2" > /tmp/o/t-$1.log 2>&1; echo "$1 exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' /tmp/o/t-$1.log | tr '\n' ' ')"; grep -B2 -A3 Failure /tmp/o/t-$1.log | head -12; done 2>&1 | tee $R/tests.txt
[ $SECONDS -lt 520 ] && timeout $((590-SECONDS)) compute-sanitizer --tool memcheck --error-exitcode 9 $T/gpu_row_unroll_test --gtest_brief=1 '--gtest_filter=*PinnedRows*' > $R/memcheck.txt 2>&1; echo "memcheck rows exit $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt
