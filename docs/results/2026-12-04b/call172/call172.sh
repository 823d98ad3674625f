# call172: next/transpose_element_preloads.patch (VEC-1 transposes load unit-stride operands
# before the barrier) against HEAD, same-run A/B over the VEC-1 transposes of seeds 27-47,
# then gpu_transpose_test on the patched build.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
P=docs/results/2026-12-04/next/transpose_element_preloads.patch
( bash scripts/build_patched.sh prev '' _solder solder_cli > $R/build_prev.txt 2>&1 ) &
bash scripts/build_patched.sh cand $P _solder solder_cli gpu_transpose_test || exit 1
wait; tail -1 $R/build_prev.txt; echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/cand/build PREV=/tmp/prev/build OUT=$R/ab PROGS="27:117 28:053|056 30:037 31:068|132 33:094 34:008|108|146|154 35:078 36:049 37:079 39:073 40:065|133 41:128 43:143 47:066|154" bash scripts/ab_variants.sh | tail -30
cp $R/ab/ab.txt $R/ab.txt; rm -rf $R/ab/x
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
( timeout $((580-SECONDS)) /tmp/cand/build/tests/gpu_transpose_test --gtest_brief=1 2>&1; echo "gpu_transpose_test exit $?" ) | tail -6 | tee $R/gpu_tests.txt
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
