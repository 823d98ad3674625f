# call164: the TX / cluster-16 grid over transposed norms (grid_tx.txt), beside torch.compile, on main (6b081c8).
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh cand '' _solder solder_cli || exit 1
PYTHONPATH=/tmp/cand/build/python timeout 400 python3 bench/experiments/variant_plan_grid.py docs/results/2026-12-04/call164/grid_tx.txt 2>/dev/null > $R/grid_tx.md; cut -c1-200 $R/grid_tx.md
echo "grid at ${SECONDS}s" | tee $R/times.txt
