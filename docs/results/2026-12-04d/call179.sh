# call179: pinned plans of seed 49's worst (call178) against the scheduler's, one process.
R=$OUT; export SOLDER_ROOT=$PWD
[ -x /tmp/cand/build/tests/gpu_flat_index_test ] || bash scripts/build_patched.sh cand '' _solder solder_cli | tail -1
echo "built at ${SECONDS}s"
SOLDER_CACHE_DIR=/tmp/grid-cache PYTHONPATH=/tmp/cand/build/python timeout $((590-SECONDS)) python3 bench/experiments/variant_plan_grid.py docs/results/2026-12-04d/grid179.txt --no-peers > $R/grid179.md 2>$R/grid179.err; echo "grid exit $? at ${SECONDS}s"
cat $R/grid179.md; tail -3 $R/grid179.err
