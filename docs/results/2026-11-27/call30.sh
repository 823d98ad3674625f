# cand (main + fewrows + f32v2; main has the eager-layout outputs and outer_norm wide tiles) against c28dfdd (old.tar)
R=$OUT; S=build-device/solder; T=build-device/tests; mkdir -p /tmp/o
(bash .devbase/br.sh old solder _solder > /tmp/o/br-old.txt 2>&1 &)
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log
until grep -qE "build ok|FAILED" /tmp/o/br-old.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-old.txt; echo "built at $SECONDS s"
RE='^(000|006|008|030|034|038|046|047|065|071|074|084|098|102|114|118|128|130|135|136|144|151|152|155|157) '
for which in old cand; do PP=$PWD/build-device/python; [ $which = old ] && PP=/tmp/old/build/python
  PYTHONPATH=$PP timeout 80 python3 bench/variants.py --seed 9 --only "$RE" --no-probe --time-budget 70 -o /tmp/o/v9-$which.json > $R/v9-$which.txt 2>&1; echo "== $which $SECONDS s"; grep -A30 "15 worst" $R/v9-$which.txt | grep -v "^ *solder_\|^ *view" | head -20
done
for g in f32vec2 fewrows fewrows_norm; do SOLDER=$S timeout 200 bash bench/experiments/plan_grid.sh bench/experiments/${g}_grid.txt > $R/${g}_grid.md 2>&1; echo "grid $g at $SECONDS s"; done
cat $R/*_grid.md
for spec in "gpu_split_rows_test *" "gpu_outer_norm_test *MiddleAxis*" "gpu_executor_test *NormsOverTheHiddenSweep*"; do set -f; set -- $spec; set +f; [ $SECONDS -gt 540 ] && { echo "skip $1 (time)"; continue; }; timeout $((580-SECONDS)) $T/$1 --gtest_brief=1 "--gtest_filter=$2" > /tmp/o/t-$1.log 2>&1; echo "$1 exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' /tmp/o/t-$1.log | tr '\n' ' ')"; grep -B2 -A3 Failure /tmp/o/t-$1.log | head -8; done 2>&1 | tee $R/tests.txt
[ $SECONDS -lt 560 ] && (cd python/tests && PYTHONPATH=$OLDPWD/build-device/python timeout $((590-SECONDS)) python3 -m unittest test_gpu_torch.FastCall) 2>&1 | tail -5 | tee -a $R/tests.txt
