# call174: a fresh seed (48) of the variant sweep at ce2b3cb (outer Welford by the hardware
# reciprocal), then gpu_outer_norm_test's layer-norm tests (the outer_norm template changed).
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_outer_norm_test || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-48 PYTHONPATH=/tmp/cand/build/python timeout $((330-SECONDS)) python3 bench/variants.py --seed 48 --time-budget $((310-SECONDS)) -o $R/variants_seed48.json > $R/variants_seed48.txt 2>&1
echo "sweep exit $? at ${SECONDS}s" | tee -a $R/times.txt; grep -A48 "== status" $R/variants_seed48.txt | head -60
( timeout $((585-SECONDS)) /tmp/cand/build/tests/gpu_outer_norm_test --gtest_brief=1 --gtest_filter='*NormsOfTransposedViews:*NormOfTransposedPlusResidual:*HeldRowsInSharedMemory' 2>&1; echo "gpu_outer_norm_test exit $?" ) | tail -6 | tee $R/gpu_tests.txt
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
