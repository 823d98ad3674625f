# main (82581ac) vs cand (main + redorder + centred): norms and default suites, seed 9 subset, grids; owed goldens; GPU tests
R=$OUT; S=build-device/solder; T=build-device/tests; mkdir -p /tmp/o
(bash .devbase/br.sh cand solder _solder gpu_split_rows_test gpu_executor_test > /tmp/o/br-cand.txt 2>&1 &)
(bash .devbase/br.sh base solder > /tmp/o/br-base.txt 2>&1 &)
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log
until [ "$(cat /tmp/o/br-cand.txt /tmp/o/br-base.txt 2>/dev/null | grep -cE "build ok|FAILED")" -ge 2 ]; do sleep 2; done; cat /tmp/o/br-*.txt; echo "built at $SECONDS s"
C=/tmp/cand/build/solder
SOLDER_CACHE_DIR=/tmp/scm timeout 120 $S bench --suite norms --peers off --budget-ms 150 --json /tmp/o/nm.json > /dev/null 2>/tmp/o/nm.err; echo "main norms $? at $SECONDS s"
SOLDER_CACHE_DIR=/tmp/scc timeout 120 $C bench --suite norms --peers off --budget-ms 150 --json /tmp/o/nc.json > /dev/null 2>/tmp/o/nc.err; echo "cand norms $? at $SECONDS s"
$S compare /tmp/o/nm.json /tmp/o/nc.json > $R/compare_norms.txt 2>&1; tail -12 $R/compare_norms.txt
SOLDER_CACHE_DIR=/tmp/scm timeout 90 $S bench --suite default --peers off --budget-ms 100 --json /tmp/o/dm.json > /dev/null 2>/tmp/o/dm.err; echo "main default $? at $SECONDS s"
SOLDER_CACHE_DIR=/tmp/scc timeout 90 $C bench --suite default --peers off --budget-ms 100 --json /tmp/o/dc.json > /dev/null 2>/tmp/o/dc.err; echo "cand default $? at $SECONDS s"
$S compare /tmp/o/dm.json /tmp/o/dc.json > $R/compare_default.txt 2>&1; tail -8 $R/compare_default.txt
RE='^(038|046|047|114|128|144) '
for which in main cand; do PP=$PWD/build-device/python; [ $which = cand ] && PP=/tmp/cand/build/python
  PYTHONPATH=$PP timeout 60 python3 bench/variants.py --seed 9 --only "$RE" --no-probe --time-budget 50 -o /tmp/o/v9-$which.json > $R/v9-$which.txt 2>&1; echo "== $which $SECONDS s"; grep -A14 "15 worst" $R/v9-$which.txt | grep -v "^ *solder_\|^ *view"
done
grep -E "^#|w5_gelu" bench/experiments/pwodd_grid.txt | grep -v "^#" > /tmp/o/w5.txt; SOLDER=$S timeout 60 bash bench/experiments/plan_grid.sh /tmp/o/w5.txt > $R/w5_gelu_grid.md 2>&1; cat $R/w5_gelu_grid.md | tail -6
SOLDER=$C timeout 90 bash bench/experiments/plan_grid.sh /tmp/cand/bench/experiments/fewrows_grid.txt > $R/fewrows_grid_cand.md 2>&1; echo "grid at $SECONDS s"
for which in base main; do B=$S; [ $which = base ] && B=/tmp/base/build/solder; timeout 60 $B bench --suite default --workload w4_einsum_4 --peers off 2>&1 | grep w4_einsum_4 | sed "s/^/$which /"; done | tee $R/goldens.txt
echo "timings done at $SECONDS s"
for spec in "gpu_split_rows_test *" "gpu_inner_staged_test *" "gpu_symbolic_cat_test *" "gpu_outer_norm_test *MiddleAxis*" "gpu_executor_test *EveryWorkload*:*NonContiguous*:*Cat*:*NormsOverTheHiddenSweep*" "CAND gpu_split_rows_test *" "CAND gpu_executor_test *NormsOverTheHiddenSweep*"; do set -f; set -- $spec; set +f; TT=$T; [ $1 = CAND ] && { TT=/tmp/cand/build/tests; shift; }; [ $SECONDS -gt 545 ] && { echo "skip $TT/$1 (time)"; continue; }; timeout $((585-SECONDS)) $TT/$1 --gtest_brief=1 "--gtest_filter=$2" > /tmp/o/t-$1.log 2>&1; echo "$TT/$1 exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' /tmp/o/t-$1.log | tr '\n' ' ')"; grep -B2 -A3 Failure /tmp/o/t-$1.log | head -8; done 2>&1 | tee $R/tests.txt
[ $SECONDS -lt 560 ] && (cd python/tests && PYTHONPATH=$OLDPWD/build-device/python timeout $((590-SECONDS)) python3 -m unittest test_gpu_torch.FastCall) 2>&1 | tail -5 | tee -a $R/tests.txt
