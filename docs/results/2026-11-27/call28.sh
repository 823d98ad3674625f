# Owed same-run goldens: norms vs bf34c44 (base.tar), outer kernels vs 6d9e8b6 (prev.tar), this = main (merged onormgen). Then GPU tests.
R=$OUT; S=build-device/solder; T=build-device/tests; mkdir -p /tmp/o
(bash .devbase/br.sh prev solder > /tmp/o/br-prev.txt 2>&1 &)
(bash .devbase/br.sh base solder > /tmp/o/br-base.txt 2>&1 &)
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log
until [ "$(cat /tmp/o/br-prev.txt /tmp/o/br-base.txt 2>/dev/null | grep -cE "build ok|FAILED")" -ge 2 ]; do sleep 2; done; cat /tmp/o/br-*.txt; echo "built at $SECONDS s"
SOLDER_CACHE_DIR=/tmp/scb timeout 150 /tmp/base/build/solder bench --suite norms --peers off --budget-ms 150 --json /tmp/o/nb.json > /dev/null 2>/tmp/o/nb.err; echo "base suite $? at $SECONDS s"
SOLDER_CACHE_DIR=/tmp/scn timeout 150 $S bench --suite norms --peers off --budget-ms 150 --json /tmp/o/nn.json > /dev/null 2>/tmp/o/nn.err; echo "new suite $? at $SECONDS s"
$S compare /tmp/o/nb.json /tmp/o/nn.json > $R/compare_norms.txt 2>&1; tail -6 $R/compare_norms.txt
for which in base new; do B=$S; [ $which = base ] && B=/tmp/base/build/solder
  for spec in "ln_affine B=8192 H=1024" "ln_affine B=8192 H=4098" "ln_affine B=8192 H=5140" "ln_plain B=8192 H=1024" "ln_plain B=8192 H=4098" "ln_plain B=8192 H=5140" "w1_layer_norm_fused_bf16 B=8192 H=65536" "w1_layer_norm_fused_f32 B=8192 H=65536" "w1_layer_norm_fused B=64 H=1024"; do
    set -- $spec; f=$1; shift; a=""; for s in "$@"; do a="$a --size $s"; done
    src=examples/$f.fusion; [ -f $src ] || src=bench/programs/$f.fusion; [ -f $src ] || src=$f
    timeout 40 $B bench $src $a --peers off 2>&1 | grep "$f/" | tail -1 | sed "s/^/$which /"; done
  timeout 60 $B bench --suite default --workload w4_einsum_4 --peers off 2>&1 | grep w4_einsum_4 | sed "s/^/$which /"
done 2>&1 | tee $R/goldens.txt
for which in prev new; do B=$S; [ $which = prev ] && B=/tmp/prev/build/solder
  for spec in "outer_colsum_bf16 B=16384 H=3072" "outer_colsum_bf16 B=37 H=1030" "outer_mean_mid_f16 B=8192 H=1024" "outer_bn_stats_f16 B=32 H=512" "outer_var_mean_bf16 B=100352 H=512"; do
    set -- $spec; f=$1; shift; a=""; for s in "$@"; do a="$a --size $s"; done
    timeout 40 $B bench examples/$f.fusion $a --peers off 2>&1 | grep "$f/" | tail -1 | sed "s/^/$which /"; done
done 2>&1 | tee -a $R/goldens.txt
echo "timings done at $SECONDS s"
for spec in "gpu_symbolic_cat_test *" "gpu_outer_reduction_test -*WorkloadsAcrossSizes*" "gpu_outer_norm_test *TallInputs*:*Pinned*:*HeldRows*" "gpu_executor_test *Cat*"; do set -f; set -- $spec; set +f; [ $SECONDS -gt 550 ] && { echo "skip $1 (time)"; continue; }; timeout $((588-SECONDS)) $T/$1 --gtest_brief=1 "--gtest_filter=$2" > /tmp/o/t-$1.log 2>&1; echo "$1 exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' /tmp/o/t-$1.log | tr '\n' ' ')"; grep -B2 -A3 Failure /tmp/o/t-$1.log | head -8; done 2>&1 | tee $R/tests.txt
