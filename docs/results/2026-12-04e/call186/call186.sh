# call186: the paired-where fix's GPU test, then pins of rows in flight and of seed 51's worst.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
N=docs/results/2026-12-04e/next
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_flat_index_test | tail -1 || exit 1
echo "built at ${SECONDS}s"
( /tmp/cand/build/tests/gpu_flat_index_test --gtest_brief=1 --gtest_filter='*BroadcastOperands*' 2>&1; echo "gpu_flat_index_test exit $?" ) | tail -3
echo "tests at ${SECONDS}s"
SOLDER_CACHE_DIR=/tmp/grid-cache PYTHONPATH=/tmp/cand/build/python timeout $((560-SECONDS)) python3 bench/experiments/variant_plan_grid.py $N/grid186.txt --no-peers > $R/grid186.md 2>$R/grid186.err; echo "grid exit $? at ${SECONDS}s"
cat $R/grid186.md | cut -c1-230
