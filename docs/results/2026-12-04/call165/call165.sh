# call165: main after the checked divisions (6b081c8): the GPU tests of the pointwise template's
# other paths (flat index, shifted loads, row unroll, horizontal fusion, cat, bounds, split rows),
# then a fresh seed (46) of the variant sweep with the time left.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
T="gpu_flat_index_test gpu_shift_loads_test gpu_row_unroll_test gpu_horizontal_fusion_test gpu_symbolic_cat_test gpu_bounds_test gpu_split_rows_test"
bash scripts/build_patched.sh cand '' _solder solder_cli $T || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
for t in $T; do ( timeout 100 /tmp/cand/build/tests/$t --gtest_brief=1 2>&1; echo "$t exit $?" ) | tail -3; done | tee $R/gpu_tests.txt
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-46 PYTHONPATH=/tmp/cand/build/python timeout $((590-SECONDS)) python3 bench/variants.py --seed 46 --time-budget $((565-SECONDS)) -o $R/variants_seed46.json > $R/variants_seed46.txt 2>&1
echo "sweep exit $? at ${SECONDS}s" | tee -a $R/times.txt; grep -A48 "== status" $R/variants_seed46.txt | head -60
