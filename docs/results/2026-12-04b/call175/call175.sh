# call175: gapped reductions split in two (passes/split_gapped_reductions) and the segmenter's
# sibling joins, against the commit before (rev.patch): same-run A/B over the 18 programs of
# seeds 40-48 whose segments change (CPU survey), then the GPU executor's reduction tests.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
D=docs/results/2026-12-04b/call175
( bash scripts/build_patched.sh prev $D/rev.patch _solder solder_cli > $R/build_prev.txt 2>&1 ) &
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_executor_test || exit 1
wait; tail -1 $R/build_prev.txt; echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/cand/build PREV=/tmp/prev/build OUT=$R/ab PROGS="40:035|148 41:041|050|066 43:019|081 44:083|117 45:010|021|103 46:117 47:077|102|142 48:071|106" bash scripts/ab_variants.sh | tail -30
cp $R/ab/ab.txt $R/ab.txt; rm -rf $R/ab/x
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
( timeout $((570-SECONDS)) /tmp/cand/build/tests/gpu_executor_test --gtest_brief=1 --gtest_filter='*ReductionsKeepdimAndAxes:*VarMeanOverEveryDim:*ReductionEpiloguesAtTheKeptShape:*ReductionsOverDimsApartInMemory:*FullReductionsOfEveryAccumulatorKind' 2>&1; echo "gpu_executor_test exit $?" ) | tail -8 | tee $R/gpu_tests.txt
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
