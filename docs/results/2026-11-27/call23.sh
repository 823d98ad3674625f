R=$OUT; T=build-device/tests; S=build-device/solder; mkdir -p /tmp/o
# working tree = branch cand2 (main a0d9815 + symcat); main = a0d9815
(bash .devbase/br.sh main solder _solder > /tmp/o/br-main.txt 2>&1 &)
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log
for spec in "gpu_symbolic_cat_test *" "gpu_executor_test *Cat*" "gpu_flat_index_test *"; do set -f; set -- $spec; set +f; timeout 100 $T/$1 --gtest_brief=1 "--gtest_filter=$2" > /tmp/o/t-$1.log 2>&1; echo "$1 exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' /tmp/o/t-$1.log | tr '\n' ' ')"; grep -B2 -A3 Failure /tmp/o/t-$1.log | head -8; done 2>&1 | tee $R/tests.txt
while ! grep -qE "build ok|FAILED" /tmp/o/br-main.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-main.txt
for which in main cand2; do
  if [ $which = main ]; then PP=/tmp/main/build/python; else PP=$PWD/build-device/python; fi
  for sp in "6 ^(031|117) " "7 ^(106) "; do set -f; set -- $sp; set +f
    PYTHONPATH=$PP timeout 60 python3 bench/variants.py --seed $1 --only "$2 " --time-budget 45 -o /tmp/o/v-$which-$1.json > /tmp/o/v-$which-$1.txt 2>&1; echo "== $which seed $1 $SECONDS s"; grep -A6 "15 worst" /tmp/o/v-$which-$1.txt | tail -5
  done
done 2>&1 | tee $R/compare.txt
export PYTHONPATH=$PWD/build-device/python
B=$((570 - SECONDS)); timeout $((B + 15)) python3 bench/variants.py --seed 8 --time-budget $B -o $R/variants_seed8.json > $R/variants_seed8.txt 2>/tmp/o/v8.err; head -14 $R/variants_seed8.txt; echo "sweep $SECONDS s"
