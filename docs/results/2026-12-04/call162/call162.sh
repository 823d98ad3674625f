# call162 (prepared in stop 61, not run): the outer_norm re-fit's first grid beside
# torch.compile (grid_refit.txt), on main; then seed 45 with the time left.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh cand '' _solder solder_cli || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
PYTHONPATH=/tmp/cand/build/python timeout 300 python3 bench/experiments/variant_plan_grid.py docs/results/2026-12-04/next/grid_refit.txt > $R/grid_refit.md 2>&1; cut -c1-220 $R/grid_refit.md
echo "grid at ${SECONDS}s" | tee -a $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-45 PYTHONPATH=/tmp/cand/build/python timeout $((590-SECONDS)) python3 bench/variants.py --seed 45 --time-budget $((570-SECONDS)) -o $R/variants_seed45.json > $R/variants_seed45.txt 2>&1
echo "sweep exit $? at ${SECONDS}s" | tee -a $R/times.txt; grep -A48 "== status" $R/variants_seed45.txt | head -56
