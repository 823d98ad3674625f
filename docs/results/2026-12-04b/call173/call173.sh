# call173: outer Welford updates with the hardware reciprocal of the count (__fdividef, as the
# inner template's welford_add) in place of the IEEE division: same-run A/B over seeds 42-47's
# outer var/var_mean/layer-norm programs, and the three golden kernels it changes
# (solder bench, new/prev/new/prev).
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
D=docs/results/2026-12-04b/call173
( bash scripts/build_patched.sh prev $D/rev.patch _solder solder_cli > $R/build_prev.txt 2>&1 ) &
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_outer_reduction_test || exit 1
wait; tail -1 $R/build_prev.txt; echo "built at ${SECONDS}s" | tee $R/times.txt
for w in new prev new prev; do
  b=/tmp/cand/build; [ $w = prev ] && b=/tmp/prev/build
  for c in "outer_var_mean_bf16 --size B=100352 --size H=512" "outer_bn_stats_f16 --size B=32 --size H=512" "outer_layer_norm_T_f16 --size B=5120 --size H=6144"; do
    set -- $c
    echo "$w $1 $(SOLDER_CACHE_DIR=/tmp/g-$w $b/solder bench examples/$1.fusion "${@:2}" --peers off 2>/dev/null | grep -E "^(outer)" | head -1)"
  done
done | tee $R/golden.txt
echo "golden at ${SECONDS}s" | tee -a $R/times.txt
NEW=/tmp/cand/build PREV=/tmp/prev/build OUT=$R/ab PROGS="42:041|075|082|093|120|136 46:037|134|149|154 45:002|003|036|105|117 43:027|042|073|131 44:038|097|118 47:015|032|068|139 " bash scripts/ab_variants.sh | tail -30
cp $R/ab/ab.txt $R/ab.txt; rm -rf $R/ab/x
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
( timeout $((590-SECONDS)) /tmp/cand/build/tests/gpu_outer_reduction_test --gtest_brief=1 2>&1; echo "gpu_outer_reduction_test exit $?" ) | tail -6 | tee $R/gpu_tests.txt
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
