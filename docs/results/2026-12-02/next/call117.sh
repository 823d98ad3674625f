# Next stop's first call. Three builds of this tree in parallel: main (the tree), welf (below) and gelu (the
# tree + gelu_sigmoid.patch: f16/bf16 gelu's tanh form as x * sigmoid(2u), one exp and one
# reciprocal, where main's tanhf costs W5 its target: call116, 87.6 us / 78.2 % against 70.0 /
# 97.7 % with tanh.approx). 1) W5 gelu + bias, main then gelu, twice. 2) gelu against main over
# seed 30's gelu_tanh programs. 3) The patch's GPU tests (test_gpu_torch RoundedTanhOnGpu: tanh
# as eager's, gelu_tanh within an ulp). 4) bench/experiments/norm_split.py on main: transposed
# norms as one kernel, as two (statistics, then a transposing apply) and torch.compile.
# 5) Pinned plans (grid117.txt): strided slices at fewer elements a thread; small outer reductions.
# ab2: welf (welford_phased_vec4.patch: a var_mean's phased outer plan at half the vector before
# half the rows in flight; plans change for seed 25 #123 and seed 30 #021 only) against main.
R=$OUT; D=docs/results/2026-12-02/next; mkdir -p /tmp/o $R/ab1 $R/ab2
export SOLDER_ROOT=$PWD
(bash scripts/build_patched.sh gelu $D/gelu_sigmoid.patch solder_cli _solder > /tmp/o/br-gelu.txt 2>&1 &)
(bash scripts/build_patched.sh welf $D/welford_phased_vec4.patch solder _solder > /tmp/o/br-welf.txt 2>&1 &)
bash scripts/build_patched.sh main '' solder_cli _solder || exit 1
until grep -qE "build (ok|FAILED)" /tmp/o/br-gelu.txt 2>/dev/null && grep -qE "build (ok|FAILED)" /tmp/o/br-welf.txt 2>/dev/null; do sleep 2; done
tail -1 /tmp/o/br-gelu.txt; tail -1 /tmp/o/br-welf.txt
for b in main gelu main gelu; do
  SOLDER_CACHE_DIR=/tmp/w5-$b timeout 60 /tmp/$b/build/solder bench --workload w5_gelu_bias_bf16 --peers off 2>&1 | grep w5_ | sed "s/^/$b /" | tee -a $R/w5.txt
done
NEW=/tmp/gelu/build PREV=/tmp/main/build OUT=$R/ab1 PROGS="30:012|064|072|075|134|155" bash scripts/ab_variants.sh
NEW=/tmp/welf/build PREV=/tmp/main/build OUT=$R/ab2 PROGS="25:123 30:021" bash scripts/ab_variants.sh
(cd $R && tar -cf x.tar ab1/x ab2/x && rm -rf ab1/x ab2/x)
PYTHONPATH=/tmp/gelu/build/python timeout 120 python3 -m pytest -q python/tests/test_gpu_torch.py -k RoundedTanh 2>&1 | tail -3 | tee $R/t-rounded-gelu.txt
SOLDER_CACHE_DIR=/tmp/sc-ns PYTHONPATH=/tmp/main/build/python timeout $((470 - SECONDS)) python3 bench/experiments/norm_split.py > $R/norm_split.md 2> $R/norm_split.err
echo "norm_split exit $? at $SECONDS s"; cat $R/norm_split.md
SOLDER_CACHE_DIR=/tmp/sc-g PYTHONPATH=/tmp/main/build/python timeout $((585 - SECONDS)) python3 bench/experiments/variant_plan_grid.py $D/grid117.txt > $R/grid.md 2> $R/grid.err
echo "grid exit $? at $SECONDS s"; cat $R/grid.md
