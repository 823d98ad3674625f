R=$OUT; T=build-device/tests; S=build-device/solder; mkdir -p /tmp/o
# working tree = branch cand (main 2128b5c + transpose2 + misalign); main = 2128b5c
(bash .devbase/br.sh main solder _solder > $R/br-main.txt 2>&1 &)
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log
for spec in "gpu_transpose_test *" "gpu_shift_loads_test *" "gpu_outer_reduction_test *PhaseShifted*"; do set -f; set -- $spec; set +f; timeout 100 $T/$1 --gtest_brief=1 "--gtest_filter=$2" > $R/t-$1.log 2>&1; echo "$1 exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' $R/t-$1.log | tr '\n' ' ')"; grep -B2 -A3 Failure $R/t-$1.log | head -8; done
export PYTHONPATH=$PWD/build-device/python
timeout 250 python3 bench/variants.py --seed 8 --time-budget 225 -o $R/variants_seed8.json > $R/variants_seed8.txt 2>/tmp/o/v8.err; head -48 $R/variants_seed8.txt; echo "sweep $SECONDS s"
while ! grep -qE "build ok|FAILED" $R/br-main.txt 2>/dev/null; do sleep 2; done; cat $R/br-main.txt
for which in main cand; do
  if [ $which = main ]; then PP=/tmp/main/build/python; B=/tmp/main/build/solder; else PP=$PWD/build-device/python; B=$S; fi
  timeout 30 $B bench examples/outer_var_mean_bf16.fusion --size B=100352 --size H=512 --peers off 2>&1 | grep "outer_var_mean_bf16/" | sed "s/^/$which /"
  PYTHONPATH=$PP timeout 70 python3 bench/variants.py --seed 7 --only '^(118|129|123|141) ' --time-budget 55 -o $R/v7-$which.json > $R/v7-$which.txt 2>&1; echo "== $which $SECONDS s"; grep -A10 "15 worst" $R/v7-$which.txt
  PYTHONPATH=$PP timeout 40 python3 bench/variants.py --seed 6 --only '^(119) ' --time-budget 25 -o $R/v6-$which.json > $R/v6-$which.txt 2>&1; grep -A3 "15 worst" $R/v6-$which.txt | tail -2
done
