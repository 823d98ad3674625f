# This stop's A/B call: untimed patches against main (the tree), alternating, one run.
#   sr:   split_runs.patch (General operands' divisions by multiply-high; seed 31 #109 28.4 -> 13.1
#         SASS an element on the CPU); golden w4_einsum_3/5/6 change: timed at their cases.
#   soA:  small_outer_a.patch (part A of call121's `so`: beside Welford the last rows in one
#         clamped step; part B lost 5 % on 31 #039); goldens outer_bn_stats f16 32x512 and
#         outer_var_mean bf16 100352x512 change: timed at their shapes; its outer GPU test.
#   rope, tcat: helpers' patches, when present (their A/B lists below).
R=$OUT; D=docs/results/2026-12-02/next; mkdir -p /tmp/o
export SOLDER_ROOT=$PWD
extra=""; [ -f $D/rope.patch ] && extra="$extra rope"; [ -f $D/tcat.patch ] && extra="$extra tcat"
(bash scripts/build_patched.sh sr $D/split_runs.patch solder_cli _solder > /tmp/o/br-sr.txt 2>&1 &)
(bash scripts/build_patched.sh soA $D/small_outer_a.patch solder_cli _solder gpu_outer_reduction_test > /tmp/o/br-soA.txt 2>&1 &)
for b in $extra; do (bash scripts/build_patched.sh $b $D/$b.patch solder_cli _solder > /tmp/o/br-$b.txt 2>&1 &); done
bash scripts/build_patched.sh main '' solder_cli _solder || exit 1
for b in sr soA $extra; do until grep -qE "build (ok|FAILED)" /tmp/o/br-$b.txt 2>/dev/null; do sleep 2; done; tail -1 /tmp/o/br-$b.txt; done
echo "built at ${SECONDS}s" | tee $R/times.txt
for b in main sr soA main sr soA; do
  SOLDER_CACHE_DIR=/tmp/g-$b timeout 60 /tmp/$b/build/solder bench w4_einsum_3 w4_einsum_5 w4_einsum_6 --peers off 2>&1 | grep "einsum" | sed "s/^/$b /" >> $R/golden.txt
  SOLDER_CACHE_DIR=/tmp/g-$b timeout 60 /tmp/$b/build/solder bench examples/outer_bn_stats_f16.fusion --size B=32 --size H=512 --peers off 2>&1 | grep "^outer_" | sed "s/^/$b /" >> $R/golden.txt
  SOLDER_CACHE_DIR=/tmp/g-$b timeout 60 /tmp/$b/build/solder bench examples/outer_var_mean_bf16.fusion --size B=100352 --size H=512 --peers off 2>&1 | grep "^outer_" | sed "s/^/$b /" >> $R/golden.txt
done
for b in main rope main rope; do [ -d /tmp/$b/build ] || continue
  SOLDER_CACHE_DIR=/tmp/g-$b timeout 60 /tmp/$b/build/solder bench bench/programs/rope_rotate_half_bf16.fusion --size B=64 --size M=4096 --peers off 2>&1 | grep "^rope" | sed "s/^/$b /" >> $R/golden.txt
  SOLDER_CACHE_DIR=/tmp/g-$b timeout 60 /tmp/$b/build/solder bench bench/programs/rope_halves_4098_f16.fusion --size B=64 --size M=128 --peers off 2>&1 | grep "^rope" | sed "s/^/$b /" >> $R/golden.txt
done
sort -s -k1,1 $R/golden.txt; echo "goldens at ${SECONDS}s" | tee -a $R/times.txt
NEW=/tmp/sr/build PREV=/tmp/main/build OUT=$R/ab-sr PROGS="25:047 27:051|069|097 28:014|112|125 29:039 30:058 31:042|109" bash scripts/ab_variants.sh
NEW=/tmp/soA/build PREV=/tmp/main/build OUT=$R/ab-soA PROGS="26:127 29:072 30:021|130 31:039|080" bash scripts/ab_variants.sh
[ -d /tmp/rope/build ] && NEW=/tmp/rope/build PREV=/tmp/main/build OUT=$R/ab-rope PROGS="31:007|132|149 29:088|135" bash scripts/ab_variants.sh
[ -d /tmp/tcat/build ] && NEW=/tmp/tcat/build PREV=/tmp/main/build OUT=$R/ab-tcat PROGS="31:132|055|088 30:012" bash scripts/ab_variants.sh
(cd $R && tar -cf x.tar ab*/x && rm -rf ab*/x); echo "ab at ${SECONDS}s" | tee -a $R/times.txt
[ $SECONDS -lt 500 ] && timeout $((545 - SECONDS)) /tmp/soA/build/tests/gpu_outer_reduction_test --gtest_brief=1 --gtest_filter='*PhaseShifted*:*FewKept*:*KindsAndDtypes*' 2>&1 | tail -3 | tee $R/t-outer-soA.txt
