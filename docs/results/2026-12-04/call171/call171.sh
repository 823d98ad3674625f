# call171: grid.txt on main (no peers).
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh cand '' _solder || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-grid PYTHONPATH=/tmp/cand/build/python timeout $((190-SECONDS)) python3 bench/experiments/variant_plan_grid.py docs/results/2026-12-04/call171/grid.txt --no-peers > $R/grid.md 2> $R/grid.err
echo "grid exit $? at ${SECONDS}s" | tee -a $R/times.txt
cut -c1-160 $R/grid.md
