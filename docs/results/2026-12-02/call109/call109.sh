# Pinned plans of pointwise programs where torch.compile beats a same-bytes copy (grid.txt),
# beside torch.compile, on main.
R=$OUT; D=docs/results/2026-12-02/call109
bash scripts/build_patched.sh main '' solder _solder || exit 1
PYTHONPATH=/tmp/main/build/python SOLDER_CACHE_DIR=/tmp/sc-g timeout $((500 - SECONDS)) python3 bench/experiments/variant_plan_grid.py $D/grid.txt 2>&1 | grep -v Warn | tee $R/grid.md
