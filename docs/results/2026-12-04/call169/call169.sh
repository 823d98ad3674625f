# call169: plain reductions over a cluster take up to 16 vectors a thread from 256 threads
# (call168's pins: 44:083 33.3 -> 29.3 us, 46:142 93.5 -> 84.1), and the few-row spreading
# leaves plain reductions as they were (45:060): same-run A/B against f910353 (git archive -o
# .devbase/prev.tar; carry [".devbase"]); then gpu_outer_norm_test with a longer limit
# (call168's 150 s ran out while compiling).
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
( bash scripts/build_archive.sh prev _solder solder_cli > $R/build_prev.txt 2>&1 ) &
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_outer_norm_test gpu_executor_test || exit 1
wait; tail -1 $R/build_prev.txt; echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/cand/build PREV=/tmp/prev/build OUT=$R/ab PROGS="44:083 46:142 45:060" bash scripts/ab_variants.sh | tail -4
cp $R/ab/ab.txt $R/ab.txt; rm -rf $R/ab/x
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
( timeout $((580-SECONDS)) /tmp/cand/build/tests/gpu_outer_norm_test --gtest_brief=1 2>&1; echo "gpu_outer_norm_test exit $?" ) | tail -6 | tee $R/gpu_tests.txt
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
