# Last call of this stop. Two builds in parallel: main (the tree) and prev (the tree with
# tanh_approx.patch: f16/bf16 tanh and gelu_tanh through tanh.approx again, 15a0b4a reverted).
# 1) W5 gelu + bias bf16 (solder bench --workload w5_gelu_bias_bf16), main then prev, twice:
#    what tanhf costs on the named workload. 2) Pinned plans of phased and small outer
#    reductions (grid.txt, variant_plan_grid.py, beside torch.compile).
R=$OUT; D=docs/results/2026-12-02/call116; mkdir -p /tmp/o
export SOLDER_ROOT=$PWD
(bash scripts/build_patched.sh prev $D/tanh_approx.patch solder_cli > /tmp/o/br-prev.txt 2>&1 &)
bash scripts/build_patched.sh main '' solder_cli _solder || exit 1
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; tail -1 /tmp/o/br-prev.txt
for b in main prev main prev; do
  SOLDER_CACHE_DIR=/tmp/w5-$b timeout 60 /tmp/$b/build/solder bench --workload w5_gelu_bias_bf16 --peers off 2>&1 | sed "s/^/$b /" | tee -a $R/w5.txt
done
SOLDER_CACHE_DIR=/tmp/sc-g PYTHONPATH=/tmp/main/build/python timeout $((585 - SECONDS)) python3 bench/experiments/variant_plan_grid.py $D/grid.txt > $R/grid.md 2> $R/grid.err
echo "grid exit $? at $SECONDS s"; cat $R/grid.md
