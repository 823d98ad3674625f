# call185: HEAD (the rolled tail and the short-loop outer plans landed) on the GPU tests those
# touch, then a fresh seed (51) of the variant sweep beside torch.compile.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_outer_reduction_test gpu_flat_index_test gpu_row_unroll_test | tail -1 || exit 1
echo "built at ${SECONDS}s"
for t in outer_reduction flat_index row_unroll; do
  ( /tmp/cand/build/tests/gpu_${t}_test --gtest_brief=1 2>&1; echo "gpu_${t}_test exit $?" ) | tail -3
done
echo "tests at ${SECONDS}s"
SOLDER_CACHE_DIR=/tmp/sweep51 PYTHONPATH=/tmp/cand/build/python timeout $((590-SECONDS)) python3 bench/variants.py --seed 51 --time-budget 250 -o $R/seed51.json > $R/seed51.txt 2>&1
echo "sweep exit $? at ${SECONDS}s"
tail -45 $R/seed51.txt
