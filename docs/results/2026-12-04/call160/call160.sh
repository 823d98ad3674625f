# call160: seed 44's outer reductions slower than torch.compile under pinned plans
# (grid_outer44.txt), beside torch.compile, on main (899afba).
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh cand '' _solder || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
PYTHONPATH=/tmp/cand/build/python timeout $((270-SECONDS)) python3 bench/experiments/variant_plan_grid.py docs/results/2026-12-04/call160/grid_outer44.txt > $R/grid_outer44.md 2>&1; cut -c1-200 $R/grid_outer44.md
echo "end at ${SECONDS}s" | tee -a $R/times.txt
