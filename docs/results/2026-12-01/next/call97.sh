# Next stop's second call: main (with whatever call96 landed) on a fresh seed (27) beside
# torch.compile, then next/grid96.txt's pinned plans of seed 26's programs still over 1.1x.
R=$OUT; N=docs/results/2026-12-01/next
bash scripts/build_patched.sh main '' solder _solder || exit 1
SOLDER_CACHE_DIR=/tmp/sc-27 PYTHONPATH=/tmp/main/build/python timeout $((400-SECONDS)) python3 bench/variants.py --seed 27 --time-budget $((380-SECONDS)) -o $R/variants_seed27.json > $R/variants_seed27.txt 2>&1
echo "sweep exit $? $SECONDS s"; grep -A40 "== status" $R/variants_seed27.txt | head -45
PYTHONPATH=/tmp/main/build/python SOLDER_CACHE_DIR=/tmp/sc-g timeout $((585-SECONDS)) python3 bench/experiments/variant_plan_grid.py $N/grid96.txt 2>&1 | tee $R/grid96.md
