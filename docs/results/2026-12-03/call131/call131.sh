# Stop 54's first call: a fresh seed (35) beside torch.compile on main (3d3f636); then stop 53's
# leads: seed 34 #095 pinned one row interleaved or not, 33:080, beside torch.compile; the
# rotate-half RoPE's one_row plan beside torch.compile in one run.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh main '' solder_cli _solder || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-35 PYTHONPATH=/tmp/main/build/python timeout 300 python3 bench/variants.py --seed 35 --time-budget 270 -o $R/variants_seed35.json > $R/variants_seed35.txt 2>&1
echo "sweep exit $? at ${SECONDS}s" | tee -a $R/times.txt; grep -A45 "== status" $R/variants_seed35.txt | head -50
PYTHONPATH=/tmp/main/build/python SOLDER_CACHE_DIR=/tmp/pg timeout 110 python3 bench/experiments/variant_plan_grid.py docs/results/2026-12-03/call131/grid.txt 2>&1 | tee $R/grid.md | tail -8
for pl in "" one_row=1; do
  SOLDER_CACHE_DIR=/tmp/rg timeout 50 /tmp/main/build/solder bench bench/programs/rope_rotate_half_bf16.fusion --size B=64 --size M=4096 --peers auto ${pl:+--plan $pl} 2>&1 | grep "^rope" | tail -1 | sed "s/^/[${pl:-scheduler}] /" | tee -a $R/rope.txt
done
echo "done at ${SECONDS}s" | tee -a $R/times.txt
