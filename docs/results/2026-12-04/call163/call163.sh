# call163: checked f32 divisions in the pointwise template (div_checked a vector at a time, the
# vector made again with a / b where an operand lies outside the fast path's range): the GPU
# test (GpuExecutor.F32QuotientsAreIEEE, all GpuExecutor tests, compute-sanitizer on the new
# one), then a same-run A/B against 3018b78 over sweep programs with f32 divisions, sigmoids
# and silus.   git archive -o .devbase/prev.tar 3018b78; carry [".devbase"]
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
( bash scripts/build_archive.sh prev _solder solder_cli > $R/build_prev.txt 2>&1 ) &
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_executor_test || exit 1
echo "cand built at ${SECONDS}s" | tee $R/times.txt
( timeout 200 /tmp/cand/build/tests/gpu_executor_test --gtest_brief=1 2>&1; echo "exit $?" ) | tail -12 | tee $R/gpu_executor_test.txt
( timeout 120 compute-sanitizer --error-exitcode 3 /tmp/cand/build/tests/gpu_executor_test --gtest_brief=1 --gtest_filter='*F32QuotientsAreIEEE*' 2>&1; echo "exit $?" ) | tail -6 | tee $R/sanitizer.txt
wait; tail -1 $R/build_prev.txt; echo "tests at ${SECONDS}s" | tee -a $R/times.txt
NEW=/tmp/cand/build PREV=/tmp/prev/build OUT=$R/ab PROGS="40:026 41:072|086|014 42:058|081 43:043|048 44:007|058|060|067 45:080|049|064|093" bash scripts/ab_variants.sh | tail -24
cp $R/ab/ab.txt $R/ab.txt; rm -rf $R/ab/x
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
