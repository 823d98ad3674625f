R=$OUT; T=build-device/tests; S=build-device/solder; mkdir -p /tmp/o
# working tree = branch segments (main d7f7e65 st_cols + general/seg); prev = 6d9e8b6 (main before st_cols)
(bash .devbase/br.sh prev solder _solder > $R/br-prev.txt 2>&1 &)
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log
while ! grep -qE "build ok|FAILED" $R/br-prev.txt 2>/dev/null; do sleep 2; done; cat $R/br-prev.txt; echo "builds $SECONDS s"
for which in prev new; do
  if [ $which = prev ]; then B=/tmp/prev/build/solder; else B=$S; fi
  for spec in "outer_colsum_bf16 B=16384 H=3072" "outer_colsum_bf16 B=37 H=1030" "outer_mean_mid_f16 B=8192 H=1024" "outer_var_mean_bf16 B=100352 H=512" "outer_bn_stats_f16 B=32 H=512"; do
    set -- $spec; f=$1; shift; a=""; for s in "$@"; do a="$a --size $s"; done
    timeout 60 $B bench examples/$f.fusion $a --peers off > /tmp/o/b-$which-$f-$1.txt 2>&1; echo "$which $(grep "$f/" /tmp/o/b-$which-$f-$1.txt | tail -1)"
  done | tee -a $R/bench.txt
  timeout 90 $B bench --suite default --workload w4_einsum_2 --workload w4_einsum_3 --workload w4_einsum_5 --workload w4_einsum_6 --peers off > /tmp/o/w4-$which.txt 2>&1; grep -E "w4_einsum" /tmp/o/w4-$which.txt | head -8 | tee -a $R/bench.txt
  echo "== $which $SECONDS s"
done
for which in prev new; do
  if [ $which = prev ]; then PP=/tmp/prev/build/python; else PP=$PWD/build-device/python; fi
  PYTHONPATH=$PP timeout 100 python3 bench/variants.py --seed 7 --only '^(083|020|104|139|142|064) ' --time-budget 80 -o $R/v7-$which.json > $R/v7-$which.txt 2>&1; echo "== $which $SECONDS s"; grep -A14 "15 worst" $R/v7-$which.txt
done
timeout 120 $T/gpu_executor_test --gtest_brief=1 "--gtest_filter=*Apart*:*ReductionsKeepdim*:*VarMeanOverEveryDim*:*EveryWorkload*" > $R/t-exec.log 2>&1; echo "executor exit $? $SECONDS s $(grep -E "^\[  (PASSED|FAILED)" $R/t-exec.log | tr "\n" " ")"; grep -B2 -A3 Failure $R/t-exec.log | head -8
timeout $((575 - SECONDS)) $T/gpu_outer_reduction_test --gtest_brief=1 > $R/t-outer.log 2>&1; echo "outer_reduction exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' $R/t-outer.log | tr '\n' ' ')"; grep -B2 -A3 Failure $R/t-outer.log | head -8
