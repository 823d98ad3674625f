# Next stop's first call: same-run A/B of this stop's work (all untimed; no device time was
# left this stop). Three builds from this tree, in parallel:
#   main: the tree;
#   neg: the tree + neg_unrounded.patch (a negated f16/bf16 value not rounded back; call113
#        times it);
#   cand: the tree + window_index32.patch (32-bit window/pad indices where a division remains)
#         + one_row_strided.patch (one_row over Full operands at other row strides, e.g. seed 29
#         #027's odd halves) = cand.patch.
# ab1: cand against main over every program whose plan cand changes (one_row_strided: 27:137,
# 27:144, 29:027, by plan diffs of seeds 25-29 on the CPU; window_index32: the cat and RoPE
# programs whose registers it changes). Then cand's GPU tests of the paths it changes, in the
# time left. (neg against main: call113.)
R=$OUT; D=docs/results/2026-12-02/next/call112; mkdir -p /tmp/o $R/ab1
export SOLDER_ROOT=$PWD
(bash scripts/build_patched.sh neg $D/neg_unrounded.patch solder _solder > /tmp/o/br-neg.txt 2>&1 &)
(bash scripts/build_patched.sh cand $D/cand.patch solder _solder gpu_shift_loads_test gpu_symbolic_cat_test gpu_flat_index_test > /tmp/o/br-cand.txt 2>&1 &)
bash scripts/build_patched.sh main '' solder _solder gpu_executor_test || exit 1
until grep -qE "build (ok|FAILED)" /tmp/o/br-neg.txt 2>/dev/null && grep -qE "build (ok|FAILED)" /tmp/o/br-cand.txt 2>/dev/null; do sleep 2; done
tail -1 /tmp/o/br-neg.txt; tail -1 /tmp/o/br-cand.txt
NEW=/tmp/cand/build PREV=/tmp/main/build OUT=$R/ab1 PROGS="27:137|144 28:069|090|116|142|153 29:027|088|092|135" bash scripts/ab_variants.sh
for t in gpu_shift_loads_test gpu_symbolic_cat_test gpu_flat_index_test; do
  [ $SECONDS -lt 540 ] && timeout $((580 - SECONDS)) /tmp/cand/build/tests/$t --gtest_brief=1 2>&1 | tail -3 | tee $R/t-$t.txt
done
cd $R && tar -cf x.tar ab1/x && rm -rf ab1/x
