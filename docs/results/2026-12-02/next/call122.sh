# Next stop's second call: split_runs.patch (helper's; untimed) against main. Inner index32
# plans' General operands divide by a dim through a multiply-high (the multiplier a kernel
# constant) and take no remainder of the outermost row and column dims: seed 31 #109 (amin over
# [0, 2] of f16 32x1000x333, 35.7 us against torch.compile's 20.8) 28.4 -> 13.1 SASS an element
# (CPU). No plan moves over seeds 25-31; golden w4_einsum_3/5/6 reduction kernels change (timed
# here at their cases). CPU kernel simulator: red02_*, redperm*, red_* all ok.
R=$OUT; D=docs/results/2026-12-02/next; mkdir -p /tmp/o $R/ab1
export SOLDER_ROOT=$PWD
(bash scripts/build_patched.sh sr $D/split_runs.patch solder_cli _solder gpu_executor_test > /tmp/o/br-sr.txt 2>&1 &)
[ -d /tmp/main/build/python ] || bash scripts/build_patched.sh main '' solder_cli _solder || exit 1
until grep -qE "build (ok|FAILED)" /tmp/o/br-sr.txt 2>/dev/null; do sleep 2; done; tail -1 /tmp/o/br-sr.txt
for b in main sr main sr; do
  SOLDER_CACHE_DIR=/tmp/g-$b timeout 120 /tmp/$b/build/solder bench w4_einsum_3 w4_einsum_5 w4_einsum_6 --peers off 2>&1 | grep "einsum" | sed "s/^/$b /" >> $R/golden_w4.txt
done
sort -s -k1,1 $R/golden_w4.txt
NEW=/tmp/sr/build PREV=/tmp/main/build OUT=$R/ab1 PROGS="25:047 27:051|069|097 28:014|112|125 29:039 30:058 31:042|109" bash scripts/ab_variants.sh
(cd $R && tar -cf x.tar ab1/x && rm -rf ab1/x)
[ $SECONDS -lt 540 ] && timeout $((590 - SECONDS)) /tmp/sr/build/tests/gpu_executor_test --gtest_brief=1 2>&1 | tail -3 | tee $R/t-gpu_executor_test-sr.txt
