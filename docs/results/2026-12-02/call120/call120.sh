# This stop's last call: same-run A/B of the helpers' patches, each against main (the tree):
#   so:   small_outer.patch (an outer tail beside a Welford step loads its last rows in one step,
#         rows clamped; phased threads near the storage's ends take that step): seed 30 #130;
#         goldens outer_bn_stats f16 32x512, outer_colsum bf16 37x1030, outer_var_mean bf16
#         100352x512 change; plan moves: seed 29 #072.
#   alu:  pw_alu.patch (if present): f16/bf16 pointwise arithmetic in fewer instructions.
#   wreg: outer_welford_regs.patch (if present): seed 31 #080's phased var_mean registers.
# Then the GPU tests of the outer template on so.
R=$OUT; D=docs/results/2026-12-02/next; mkdir -p /tmp/o
export SOLDER_ROOT=$PWD
builds="so"
(bash scripts/build_patched.sh so $D/small_outer.patch solder_cli _solder gpu_outer_reduction_test > /tmp/o/br-so.txt 2>&1 &)
if [ -f $D/pw_alu.patch ]; then builds="$builds alu"; (bash scripts/build_patched.sh alu $D/pw_alu.patch solder _solder > /tmp/o/br-alu.txt 2>&1 &); fi
if [ -f $D/outer_welford_regs.patch ]; then builds="$builds wreg"; (bash scripts/build_patched.sh wreg $D/outer_welford_regs.patch solder _solder > /tmp/o/br-wreg.txt 2>&1 &); fi
bash scripts/build_patched.sh main '' solder_cli _solder || exit 1
for b in $builds; do until grep -qE "build (ok|FAILED)" /tmp/o/br-$b.txt 2>/dev/null; do sleep 2; done; tail -1 /tmp/o/br-$b.txt; done
echo "built at ${SECONDS}s" | tee $R/times.txt
for b in main so main so; do
  for c in outer_bn_stats_f16:B=32,H=512 outer_colsum_bf16:B=37,H=1030 outer_var_mean_bf16:B=100352,H=512; do
    f=${c%%:*}; sz=${c#*:}; args=""; for s in ${sz//,/ }; do args="$args --size $s"; done
    SOLDER_CACHE_DIR=/tmp/g-$b timeout 60 /tmp/$b/build/solder bench examples/$f.fusion $args --peers off 2>&1 | grep "^$f" | sed "s/^/$b /" >> $R/golden_outer.txt
  done
done
sort -s -k1,1 $R/golden_outer.txt
mkdir -p $R/ab1 && NEW=/tmp/so/build PREV=/tmp/main/build OUT=$R/ab1 PROGS="26:127 27:074 28:024 29:072|116 30:017|021|093|130 31:039|080|081" bash scripts/ab_variants.sh
echo "ab1 at ${SECONDS}s" | tee -a $R/times.txt
if [ -d /tmp/alu/build/python ] && [ $SECONDS -lt 420 ]; then
  mkdir -p $R/ab2 && NEW=/tmp/alu/build PREV=/tmp/main/build OUT=$R/ab2 PROGS="${ALU_PROGS:-31:062|055 30:028|064|104}" bash scripts/ab_variants.sh
  echo "ab2 at ${SECONDS}s" | tee -a $R/times.txt
fi
if [ -d /tmp/wreg/build/python ] && [ $SECONDS -lt 480 ]; then
  mkdir -p $R/ab3 && NEW=/tmp/wreg/build PREV=/tmp/main/build OUT=$R/ab3 PROGS="${WREG_PROGS:-31:080 30:021}" bash scripts/ab_variants.sh
  echo "ab3 at ${SECONDS}s" | tee -a $R/times.txt
fi
(cd $R && tar -cf x.tar ab*/x && rm -rf ab*/x)
[ $SECONDS -lt 560 ] && timeout $((590 - SECONDS)) /tmp/so/build/tests/gpu_outer_reduction_test --gtest_brief=1 2>&1 | tail -3 | tee $R/t-gpu_outer_reduction_test-so.txt
[ $SECONDS -lt 540 ] && SOLDER_CACHE_DIR=/tmp/sc-g PYTHONPATH=/tmp/main/build/python timeout $((595 - SECONDS)) python3 bench/experiments/variant_plan_grid.py $D/grid120.txt > $R/grid.md 2> $R/grid.err; cat $R/grid.md
