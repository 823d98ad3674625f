R=$OUT; T=build-device/tests; mkdir -p /tmp/o
(bash .devbase/br.sh main _solder > /tmp/o/br-main.txt 2>&1 &)
# working tree = branch pending2 (main + keep_reduced_dims + few-row outer plans); base = bf34c44
OUT=/tmp/o BASE=.devbase/base.tar SUITE=default TESTS=0 BENCH=1 BENCH_TIMEOUT=200 ./scripts/device.sh > /tmp/o/dev.log 2>&1
grep -E "build ok|failed|exit" /tmp/o/dev.log; tail -45 /tmp/o/compare.txt; echo "suite done $SECONDS s"
cp /tmp/o/compare.txt /tmp/o/bench.md $R/ 2>/dev/null
for spec in "gpu_executor_test *ReductionEpilogues*" "gpu_outer_reduction_test *WorkloadsAcrossSizes*" "gpu_split_rows_test *" "gpu_flat_index_test *" "gpu_outer_norm_test *" "gpu_inner_staged_test *"; do set -- $spec; timeout 150 $T/$1 --gtest_brief=1 "--gtest_filter=$2" > /tmp/o/t-$1.log 2>&1; echo "$1 exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' /tmp/o/t-$1.log | tr '\n' ' ')"; grep -A3 Failure /tmp/o/t-$1.log | head -6; done
cat /tmp/o/br-main.txt
for which in main new; do
  if [ $which = main ]; then PP=/tmp/main/build/python; else PP=$PWD/build-device/python; fi
  PYTHONPATH=$PP timeout 120 python3 bench/variants.py --seed 7 --only '^(083|104|138|142|020|136) ' --time-budget 90 -o /tmp/o/v7-$which.json > /tmp/o/v7-$which.txt 2>&1; echo "== $which $SECONDS s"; grep -A14 "15 worst" /tmp/o/v7-$which.txt
done
cd /tmp/o && tar czf $R/logs.tgz --exclude='build*.log' . 
