# working tree = onormgen (pending-unmeasured + outer_norm General); main = .devbase/main.tar
R=$OUT; T=build-device/tests; S=build-device/solder; mkdir -p /tmp/o
(bash .devbase/br.sh main solder _solder > /tmp/o/br-main.txt 2>&1 &)
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log
while ! grep -qE "build ok|FAILED" /tmp/o/br-main.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-main.txt; echo "built at $SECONDS s"
for which in main ong; do
  if [ $which = main ]; then PP=/tmp/main/build/python; B=/tmp/main/build/solder; else PP=$PWD/build-device/python; B=$S; fi
  for spec in "outer_var_mean_bf16 B=100352 H=512" "outer_bn_stats_f16 B=32 H=512" "outer_colsum_bf16 B=16384 H=3072"; do set -- $spec; f=$1; shift; a=""; for s in "$@"; do a="$a --size $s"; done
    timeout 30 $B bench examples/$f.fusion $a --peers off 2>&1 | grep "$f/" | tail -1 | sed "s/^/$which /"; done
  timeout 60 $B bench --suite default --workload w5_gelu_bias_bf16 --workload w4_einsum_3 --workload w4_einsum_5 --workload w4_einsum_6 --peers off 2>&1 | grep -E "w5_|w4_" | sed "s/^/$which /"
  PYTHONPATH=$PP timeout 90 python3 bench/variants.py --seed 8 --only '^(012|014|052|064|069|085|098|127|130|142|145) ' --time-budget 60 -o /tmp/o/v8-$which.json > /tmp/o/v8-$which.txt 2>&1; echo "== $which $SECONDS s"; grep -A30 "15 worst" /tmp/o/v8-$which.txt | grep -v "^ *solder_\|^ *view"
  PYTHONPATH=$PP timeout 40 python3 bench/variants.py --seed 7 --only '^(068) ' --time-budget 20 -o /tmp/o/v7-$which.json > /tmp/o/v7-$which.txt 2>&1; grep -E "^ *068|068 " /tmp/o/v7-$which.txt | head -3
done 2>&1 | tee $R/compare.txt
cp /tmp/o/v8-*.txt $R/ 2>/dev/null
for spec in "gpu_symbolic_cat_test *" "gpu_shift_loads_test *" "gpu_executor_test *Cat*:*Apart*:*VarMean*:*PhaseShifted*:*EveryWorkload*" "gpu_outer_norm_test *Residual*:*NormsOfTransposed*:*DimZero*" "gpu_flat_index_test *" "gpu_split_rows_test *" "gpu_inner_staged_test *" "gpu_outer_reduction_test -*WorkloadsAcrossSizes*"; do set -f; set -- $spec; set +f; [ $SECONDS -gt 540 ] && { echo "skip $1 (time)"; continue; }; timeout $((585-SECONDS)) $T/$1 --gtest_brief=1 "--gtest_filter=$2" > /tmp/o/t-$1.log 2>&1; echo "$1 exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' /tmp/o/t-$1.log | tr '\n' ' ')"; grep -B2 -A3 Failure /tmp/o/t-$1.log | head -8; done 2>&1 | tee $R/tests.txt
