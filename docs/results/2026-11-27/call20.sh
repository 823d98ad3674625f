R=$OUT; T=build-device/tests; S=build-device/solder; mkdir -p /tmp/o
# working tree = branch segments (main d7f7e65 st_cols + general/seg); prev = 6d9e8b6 (main before st_cols)
(bash .devbase/br.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log
for t in gpu_outer_reduction_test gpu_split_rows_test gpu_flat_index_test gpu_inner_staged_test gpu_outer_norm_test gpu_executor_test; do timeout 150 $T/$t --gtest_brief=1 > /tmp/o/t-$t.log 2>&1; echo "$t exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' /tmp/o/t-$t.log | tr '\n' ' ')"; grep -B2 -A3 Failure /tmp/o/t-$t.log | head -8; done
cp /tmp/o/t-*.log $R/ 2>/dev/null; cat /tmp/o/br-prev.txt
for which in prev new; do
  if [ $which = prev ]; then B=/tmp/prev/build/solder; else B=$S; fi
  for spec in "outer_colsum_bf16 B=16384 H=3072" "outer_colsum_bf16 B=37 H=1030" "outer_mean_mid_f16 B=8192 H=1024" "outer_var_mean_bf16 B=100352 H=512" "outer_bn_stats_f16 B=32 H=512"; do
    set -- $spec; f=$1; shift; a=""; for s in "$@"; do a="$a --size $s"; done
    timeout 60 $B bench examples/$f.fusion $a --peers off --json /tmp/o/b-$which-$f-$1.json > /tmp/o/b-$which-$f-$1.txt 2>&1; echo "$which $f $* $(grep "$f/" /tmp/o/b-$which-$f-$1.txt | tail -1)"
  done
  timeout 90 $B bench --suite default --workload w4_einsum_2 --workload w4_einsum_3 --workload w4_einsum_5 --workload w4_einsum_6 --peers off > /tmp/o/w4-$which.txt 2>&1; grep -E "w4_einsum" /tmp/o/w4-$which.txt | head -8
  echo "== $which $SECONDS s"
done
for which in prev new; do
  if [ $which = prev ]; then PP=/tmp/prev/build/python; else PP=$PWD/build-device/python; fi
  PYTHONPATH=$PP timeout 100 python3 bench/variants.py --seed 7 --only '^(083|020|104|139|142|064) ' --time-budget 80 -o /tmp/o/v7-$which.json > /tmp/o/v7-$which.txt 2>&1; echo "== $which $SECONDS s"; grep -A14 "15 worst" /tmp/o/v7-$which.txt
done
cd /tmp/o && tar czf $R/logs.tgz --exclude='build*.log' . 
