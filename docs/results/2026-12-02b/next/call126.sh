# pairs.patch against main (the tree without it): raw.patch (call125) plus f16x2/bf16x2 pairs in
# the flat kernels' vector path (a where's condition per half, outputs set a word at a time),
# the window test once per vector where no shift or phase can split a vector, and raw bits
# all or nothing. Then the GPU tests of the window and shift paths on it.
R=$OUT; D=docs/results/2026-12-02b/next; mkdir -p /tmp/o $R
export SOLDER_ROOT=$PWD
git apply -R $D/pairs.patch || exit 1
(bash scripts/build_patched.sh pairs $D/pairs.patch solder_cli _solder gpu_symbolic_cat_test gpu_shift_loads_test gpu_executor_test > /tmp/o/br-pairs.txt 2>&1 &)
bash scripts/build_patched.sh main '' solder_cli _solder || exit 1
until grep -qE "build (ok|FAILED)" /tmp/o/br-pairs.txt 2>/dev/null; do sleep 2; done; tail -1 /tmp/o/br-pairs.txt
echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/pairs/build PREV=/tmp/main/build OUT=$R/ab PROGS="32:027|034|046|089|020|105|076|113|126|133|118 29:135 31:007 28:153" bash scripts/ab_variants.sh
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
for b in main pairs main pairs; do
  for f in bench/programs/rope_rotate_half_bf16.fusion:B=64,M=4096 bench/programs/rope_f16.fusion:B=64,M=4096 bench/programs/rope_halves_4098_f16.fusion:B=64,M=128 bench/programs/silu_halves_bf16.fusion:B=16384 examples/w5_gelu_bias_bf16.fusion:B=8192,H=4096; do
    file=${f%%:*}; sz=${f#*:}; args=""; for s in ${sz//,/ }; do args="$args --size $s"; done
    SOLDER_CACHE_DIR=/tmp/sc-$b timeout 60 /tmp/$b/build/solder bench $file $args --peers off 2>&1 | grep -E "^(rope|silu|w5)" | sed "s/^/$b /" >> $R/bench.txt
  done
done
sort -s -k1,1 $R/bench.txt | uniq
echo "bench at ${SECONDS}s" | tee -a $R/times.txt
(cd $R && tar -cf x.tar ab/x && rm -rf ab/x)
for t in gpu_symbolic_cat_test gpu_shift_loads_test; do
  timeout 90 /tmp/pairs/build/tests/$t --gtest_brief=1 2>&1 | tail -3 | sed "s/^/$t /" | tee -a $R/tests.txt
done
[ $SECONDS -lt 420 ] && timeout $((590 - SECONDS)) /tmp/pairs/build/tests/gpu_executor_test --gtest_brief=1 --gtest_filter='-*SampledRows' 2>&1 | tail -4 | sed "s/^/gpu_executor_test /" | tee -a $R/tests.txt
