# main b7c6ff4 (staged outputs) vs prev = 94581ba (main + redorder, before staged outputs): seed 9/6 subsets, default suite; GPU tests
R=$OUT; S=build-device/solder; T=build-device/tests; mkdir -p /tmp/o
(bash .devbase/br.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log
until grep -qE "build ok|FAILED" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-prev.txt; echo "built at $SECONDS s"
P=/tmp/prev/build/solder
for which in prev new; do PP=$PWD/build-device/python; [ $which = prev ] && PP=/tmp/prev/build/python
  PYTHONPATH=$PP timeout 70 python3 bench/variants.py --seed 9 --only '^(038|047|114|128|151) ' --no-probe --time-budget 60 -o /tmp/o/v9-$which.json > $R/v9-$which.txt 2>&1
  PYTHONPATH=$PP timeout 60 python3 bench/variants.py --seed 6 --only '^(045|056|084) ' --no-probe --time-budget 50 -o /tmp/o/v6-$which.json > $R/v6-$which.txt 2>&1
  echo "== $which $SECONDS s"; grep -hA8 "15 worst" $R/v9-$which.txt $R/v6-$which.txt | grep -v "^ *solder_\|^ *view\|15 worst\|solder us"
done
SOLDER_CACHE_DIR=/tmp/scp timeout 60 $P bench --suite default --peers off --budget-ms 100 --json /tmp/o/dp.json > /dev/null 2>/tmp/o/dp.err; echo "prev default $? at $SECONDS s"
SOLDER_CACHE_DIR=/tmp/scn timeout 60 $S bench --suite default --peers off --budget-ms 100 --json /tmp/o/dn.json > /dev/null 2>/tmp/o/dn.err; echo "new default $? at $SECONDS s"
$S compare /tmp/o/dp.json /tmp/o/dn.json > $R/compare_default.txt 2>&1; tail -4 $R/compare_default.txt
echo "timings done at $SECONDS s"
for spec in "gpu_inner_staged_test *" "gpu_split_rows_test *" "gpu_executor_test *EveryWorkload*:*NonContiguous*:*Cat*:*NormsOverTheHiddenSweep*"; do set -f; set -- $spec; set +f; [ $SECONDS -gt 540 ] && { echo "skip $1 (time)"; continue; }; timeout $((578-SECONDS)) $T/$1 --gtest_brief=1 "--gtest_filter=$2" > /tmp/o/t-$1.log 2>&1; echo "$1 exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' /tmp/o/t-$1.log | tr '\n' ' ')"; grep -B2 -A3 Failure /tmp/o/t-$1.log | head -12; done 2>&1 | tee $R/tests.txt
[ $SECONDS -lt 560 ] && (cd python/tests && PYTHONPATH=$OLDPWD/build-device/python timeout $((590-SECONDS)) python3 -m unittest test_gpu_torch.FastCall) 2>&1 | tail -3 | tee -a $R/tests.txt
