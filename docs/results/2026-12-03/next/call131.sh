# Next stop: no device time was left for it this stop.
# Leads for the next stop, on main: seed 34 #095 (three full/dims f16 operands, 2-D phased at
# vec 4) pinned to one row interleaved or not, beside torch.compile; seed 33 #080 beside it; the
# rotate-half RoPE's one_row plan beside torch.compile in one run.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh main '' solder_cli _solder || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
PYTHONPATH=/tmp/main/build/python SOLDER_CACHE_DIR=/tmp/pg timeout 110 python3 bench/experiments/variant_plan_grid.py docs/results/2026-12-03/next/grid.txt 2>&1 | tee $R/grid.md | tail -8
for pl in "" one_row=1; do
  SOLDER_CACHE_DIR=/tmp/rg timeout 50 /tmp/main/build/solder bench bench/programs/rope_rotate_half_bf16.fusion --size B=64 --size M=4096 --peers auto ${pl:+--plan $pl} 2>&1 | grep "^rope" | tail -1 | sed "s/^/[${pl:-scheduler}] /" | tee -a $R/rope.txt
done
echo "done at ${SECONDS}s" | tee -a $R/times.txt
