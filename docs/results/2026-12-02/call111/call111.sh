# GPU tests after this stop's changes (inner resident weights, rows in flight at two waves for
# narrow blocks, the outer-norm test's expectation).
R=$OUT; export SOLDER_ROOT=$PWD SOLDER_CACHE_DIR=/tmp/sc-t
T="gpu_outer_norm_test gpu_row_unroll_test gpu_flat_index_test gpu_split_rows_test gpu_executor_test"
bash scripts/build_patched.sh main '' $T || exit 1
for t in $T; do
  f='-*SampledRows'; [ $t = gpu_outer_norm_test ] && f='*NormOfTransposedPlusResidual*:*TallInputs*'
  echo "== $t"; timeout $((270 - SECONDS)) /tmp/main/build/tests/$t --gtest_brief=1 --gtest_filter="$f" 2>&1 | tail -3
done 2>&1 | tee $R/gpu_tests.txt
