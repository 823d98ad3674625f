# Next stop's first call: same-run A/B of two untimed codegen patches against main (the tree):
#   alu: pw_alu.patch (helper's, proven bit-exact on the CPU/H200: round_bf16 as one
#        cvt.rn.bf16x2.f32, bf16 tanh as tanh.approx on sm_90, gelu/sigmoid/silu through a
#        flushing ex2): seed 31 #062 (22 % of a copy, MUFU-bound) 63.5 -> ~25 SASS an element.
#        Golden kernels change: device_runtime.cuh, transpose_tanh_out_bf16 16384x4096: timed
#        here at their shapes, beside W5 (gelu) at its six golden shapes.
#   so:  small_outer_fixed.patch (an outer tail beside a Welford step loads its last rows in one
#        step, rows clamped; phased threads near the storage's ends with fewer than UNROLL rows
#        too). call120 timed its first form (call120/small_outer.patch): seed 30 #130 10.0 -> 8.7,
#        seed 29 #072 77.5 -> 62.7 (a plan move), but seed 30 #021 78.0 -> 82.5 and seed 31 #039
#        14.9 -> 15.7: its storage-end loop went one row at a time where main's was unrolled
#        twice (SASS, CPU). The fixed form keeps main's loop there; time it with its GPU test.
R=$OUT; D=docs/results/2026-12-02/next; mkdir -p /tmp/o $R/ab1 $R/ab2
export SOLDER_ROOT=$PWD
(bash scripts/build_patched.sh alu $D/pw_alu.patch solder_cli _solder gpu_executor_test > /tmp/o/br-alu.txt 2>&1 &)
(bash scripts/build_patched.sh so $D/small_outer_fixed.patch solder _solder gpu_outer_reduction_test > /tmp/o/br-so.txt 2>&1 &)
bash scripts/build_patched.sh main '' solder_cli _solder gpu_outer_reduction_test gpu_executor_test || exit 1
for b in alu so; do until grep -qE "build (ok|FAILED)" /tmp/o/br-$b.txt 2>/dev/null; do sleep 2; done; tail -1 /tmp/o/br-$b.txt; done
echo "built at ${SECONDS}s" | tee $R/times.txt
# Owed by this stop: the outer GPU suite on main (the grid split's own rows, f165593; two phased
# inputs beside Welford, 3cf7cc5 were A/B-checked against eager only).
timeout 120 /tmp/main/build/tests/gpu_outer_reduction_test --gtest_brief=1 2>&1 | tail -3 | tee $R/t-gpu_outer_reduction_test-main.txt
for b in main alu main alu; do
  SOLDER_CACHE_DIR=/tmp/g-$b timeout 90 /tmp/$b/build/solder bench examples/w5_gelu_bias_bf16.fusion --size B=8192 \
    --size H=770,1024,4096,8192,20480,65536 --peers off 2>&1 | grep "^w5_" | sed "s/^/$b /" >> $R/golden_alu.txt
  SOLDER_CACHE_DIR=/tmp/g-$b timeout 60 /tmp/$b/build/solder bench examples/transpose_tanh_out_bf16.fusion --size B=16384 \
    --size H=4096 --peers off 2>&1 | grep "^transpose_tanh" | sed "s/^/$b /" >> $R/golden_alu.txt
done
sort -s -k1,1 $R/golden_alu.txt
NEW=/tmp/alu/build PREV=/tmp/main/build OUT=$R/ab1 PROGS="31:062|055|007 30:012|028|064|104|135 29:135" bash scripts/ab_variants.sh
NEW=/tmp/so/build PREV=/tmp/main/build OUT=$R/ab2 PROGS="26:127 29:072|116 30:017|021|093|130 31:039|081" bash scripts/ab_variants.sh
(cd $R && tar -cf x.tar ab*/x && rm -rf ab*/x)
PYTHONPATH=/tmp/alu/build/python timeout 120 python3 -m pytest -q python/tests/test_gpu_torch.py -k "RoundedTanh or Fp8" 2>&1 | tail -3 | tee $R/t-py-alu.txt
[ $SECONDS -lt 520 ] && timeout $((560 - SECONDS)) /tmp/alu/build/tests/gpu_executor_test --gtest_brief=1 2>&1 | tail -3 | tee $R/t-gpu_executor_test-alu.txt
[ $SECONDS -lt 560 ] && timeout $((595 - SECONDS)) /tmp/so/build/tests/gpu_outer_reduction_test --gtest_brief=1 2>&1 | tail -3 | tee $R/t-gpu_outer_reduction_test-so.txt
