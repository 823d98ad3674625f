# Pinned plans of seed 28's worst programs beside torch.compile (grid.txt).
R=$OUT; D=docs/results/2026-12-02/call104
bash scripts/build_patched.sh main '' solder _solder || exit 1
PYTHONPATH=/tmp/main/build/python SOLDER_CACHE_DIR=/tmp/sc-g timeout $((580 - SECONDS)) python3 bench/experiments/variant_plan_grid.py $D/grid.txt 2>&1 | tee $R/grid.md
