# Seed 35's losers pinned to other plans beside torch.compile (grid.txt); the golden kernels
# under stop 53's runtime (div_f16, lane_step: SASS the same for all 99) against cfbd80a.
#   Before: git archive -o .devbase/prev.tar cfbd80a   (carry .devbase)
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
(bash scripts/build_archive.sh prev solder_cli > /tmp/br-prev.txt 2>&1 &)
bash scripts/build_patched.sh main '' solder_cli _solder || exit 1
until grep -qE "build (ok|FAILED)" /tmp/br-prev.txt 2>/dev/null; do sleep 2; done; tail -1 /tmp/br-prev.txt
echo "built at ${SECONDS}s" | tee $R/times.txt
PYTHONPATH=/tmp/main/build/python SOLDER_CACHE_DIR=/tmp/pg timeout 330 python3 bench/experiments/variant_plan_grid.py docs/results/2026-12-03/call132/grid.txt > $R/grid.md 2>$R/grid.err
cat $R/grid.md; tail -3 $R/grid.err
echo "grid at ${SECONDS}s" | tee -a $R/times.txt
for b in main prev main prev; do
  for c in scale:B=8192,H=1024 transpose_add_bf16:B=8192,H=8192 w5_gelu_bias_bf16:B=8192,H=20480 w1_layer_norm_fused:B=8192,H=4096 outer_layer_norm_T_f16:B=5120,H=6144; do
    f=${c%%:*}; sz=${c#*:}; args=""; for s in ${sz//,/ }; do args="$args --size $s"; done
    SOLDER_CACHE_DIR=/tmp/g-$b timeout 60 /tmp/$b/build/solder bench $(ls examples/$f.fusion bench/programs/$f.fusion 2>/dev/null | head -1) $args --peers off 2>&1 | grep "^$f" | sed "s/^/$b /" >> $R/golden.txt
  done
done
sort -s -k1,1 $R/golden.txt
echo "done at ${SECONDS}s" | tee -a $R/times.txt
