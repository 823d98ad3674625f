# Next stop's first call: same-run A/B of this stop's four untimed patches. Six builds of this
# tree in parallel:
#   main: the tree;
#   gelu: + gelu_sigmoid.patch (f16/bf16 gelu's tanh form as x * sigmoid(2u): one exp and one
#         reciprocal, where main's tanhf cost W5 its target: call116, 87.6 us / 78.2 % of a copy
#         against 70.0 / 97.7 % with tanh.approx);
#   welf: + welford_phased_vec4.patch (a var_mean's phased outer plan at half the vector before
#         half the rows in flight; plans change for seed 25 #123 and seed 30 #021 only);
#   regm: + register_model_inputs.patch (the inner register model counts every Full input's
#         loads in flight: 18 -> 6 misses over register_model_test's corpus; plans change for
#         the 11 programs of seeds 25-30 in PROGS below, each of two inputs, x + r);
#   tree: + outer_tree_combine.patch (the outer template's block combine in log2(TY) rounds,
#         not TY - 1 steps of thread row 0: small outer reductions are latency; golden outer
#         kernels change; plans move for seed 26 #127 and seed 30 #030 (registers)).
# 1) The tanh golden kernels on main, approx and gelu (below), twice. 2) ab1 gelu, ab2 welf, ab3 regm, ab4 tree, each
#    against main (ab4: small outer reductions, the two moved plans, large ones as guards).
# 3) gelu's GPU tests (test_gpu_torch RoundedTanhOnGpu: tanh as eager's, gelu_tanh within an ulp).
R=$OUT; D=docs/results/2026-12-02/next; mkdir -p /tmp/o $R/ab1 $R/ab2 $R/ab3 $R/ab4
export SOLDER_ROOT=$PWD
(bash scripts/build_patched.sh gelu $D/gelu_sigmoid.patch solder_cli _solder > /tmp/o/br-gelu.txt 2>&1 &)
(bash scripts/build_patched.sh welf $D/welford_phased_vec4.patch solder _solder > /tmp/o/br-welf.txt 2>&1 &)
(bash scripts/build_patched.sh regm $D/register_model_inputs.patch solder _solder > /tmp/o/br-regm.txt 2>&1 &)
(bash scripts/build_patched.sh tree $D/outer_tree_combine.patch solder _solder > /tmp/o/br-tree.txt 2>&1 &)
(bash scripts/build_patched.sh approx docs/results/2026-12-02/call116/tanh_approx.patch solder_cli > /tmp/o/br-approx.txt 2>&1 &)
bash scripts/build_patched.sh main '' solder_cli _solder || exit 1
echo "main built at ${SECONDS}s" | tee $R/times.txt
for b in gelu welf regm tree approx; do until grep -qE "build (ok|FAILED)" /tmp/o/br-$b.txt 2>/dev/null; do sleep 2; done; tail -1 /tmp/o/br-$b.txt; done; echo "all built at ${SECONDS}s" | tee -a $R/times.txt
# The seven golden kernel files 15a0b4a changed (tanhf for f16/bf16 tanh and gelu_tanh), at
# their golden shapes, on main (tanhf), approx (call116's tanh_approx.patch: the kernels before
# it) and gelu, alternating: the same-run measurement those golden changes still owe.
for b in main approx gelu main approx gelu; do
  SOLDER_CACHE_DIR=/tmp/g-$b timeout 90 /tmp/$b/build/solder bench examples/w5_gelu_bias_bf16.fusion --size B=8192 \
    --size H=770,1024,4096,8192,20480,65536 --peers off 2>&1 | grep "w5_" | sed "s/^/$b /" | tee -a $R/golden_tanh.txt
  SOLDER_CACHE_DIR=/tmp/g-$b timeout 60 /tmp/$b/build/solder bench examples/transpose_tanh_out_bf16.fusion --size B=16384 \
    --size H=4096 --peers off 2>&1 | grep "transpose_tanh" | sed "s/^/$b /" | tee -a $R/golden_tanh.txt
done
[ $SECONDS -lt 480 ] && NEW=/tmp/gelu/build PREV=/tmp/main/build OUT=$R/ab1 PROGS="30:012|064|072|075|134|155" bash scripts/ab_variants.sh; echo "ab done at ${SECONDS}s" >> $R/times.txt
[ $SECONDS -lt 480 ] && NEW=/tmp/welf/build PREV=/tmp/main/build OUT=$R/ab2 PROGS="25:123 30:021" bash scripts/ab_variants.sh; echo "ab done at ${SECONDS}s" >> $R/times.txt
[ $SECONDS -lt 480 ] && NEW=/tmp/tree/build PREV=/tmp/main/build OUT=$R/ab4 PROGS="26:127 28:024 29:005|116 30:017|021|030|093|130" bash scripts/ab_variants.sh; echo "ab done at ${SECONDS}s" >> $R/times.txt
[ $SECONDS -lt 480 ] && NEW=/tmp/regm/build PREV=/tmp/main/build OUT=$R/ab3 PROGS="25:060 26:091 27:106 28:000|009|070|096 29:083 30:018|097|151" bash scripts/ab_variants.sh; echo "ab done at ${SECONDS}s" >> $R/times.txt
(cd $R && tar -cf x.tar ab*/x 2>/dev/null; rm -rf ab*/x)
[ $SECONDS -lt 540 ] && PYTHONPATH=/tmp/gelu/build/python timeout 120 python3 -m pytest -q python/tests/test_gpu_torch.py -k RoundedTanh 2>&1 | tail -3 | tee $R/t-rounded-gelu.txt
