# Next stop's third call: next/grid96.txt's pinned plans of seed 26's programs still over 1.1x
# torch.compile or under 60 % of a copy (no torch.compile here: call92 has its figures).
R=$OUT; N=docs/results/2026-12-01/next
bash scripts/build_patched.sh main '' solder _solder || exit 1
PYTHONPATH=/tmp/main/build/python SOLDER_CACHE_DIR=/tmp/sc-g timeout $((585-SECONDS)) python3 bench/experiments/variant_plan_grid.py $N/grid96.txt --no-peers 2>&1 | tee $R/grid96.md
