# One row of R x C against the evenly filled 2-D plans (grid.txt), main a712d6d, no peers.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh main '' _solder || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
PYTHONPATH=/tmp/main/build/python SOLDER_CACHE_DIR=/tmp/pg timeout $((590-SECONDS)) python3 bench/experiments/variant_plan_grid.py docs/results/2026-12-03/call134/grid.txt --no-peers > $R/grid.md 2>$R/grid.err
cat $R/grid.md; tail -2 $R/grid.err
echo "done at ${SECONDS}s" | tee -a $R/times.txt
