# Kept-tile splits of partial-reduction transposes: shares of 8 reduced indices at least (the
# admission and the split count), and at most the splits that bring the blocks to two an SM,
# rounded up (cand, the tree; uncapped shares of 8 and of 16 are call146's cand8 and cand);
# against a1272ad (prev). GpuRowUnroll.TheSweepsShapes
# in its corrected form (the weighted program at M = 1000, as its CPU twin); GpuTranspose's
# partial reductions with a few-tiles, split shape added. The A/B also: f32 sigmoid and silu
# under narrow results take the fast forms (seed 38 #147 and sigmoid/silu chains).
R=$OUT; mkdir -p $R; D=docs/results/2026-12-03/call147
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_row_unroll_test gpu_transpose_test gpu_executor_test || exit 1
bash scripts/build_archive.sh prev _solder solder_cli || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
( timeout 100 /tmp/cand/build/tests/gpu_row_unroll_test --gtest_filter='*TheSweepsShapes*' --gtest_brief=1 2>&1; echo "exit $?" ) | tail -8 | tee $R/gpu_row_unroll_test.txt
( timeout 150 /tmp/cand/build/tests/gpu_transpose_test --gtest_filter='*PartialReductions*' --gtest_brief=1 2>&1; echo "exit $?" ) | tail -8 | tee $R/gpu_transpose_test.txt
( timeout 120 /tmp/cand/build/tests/gpu_executor_test --gtest_filter='*PrefetchedRowInputs*' --gtest_brief=1 2>&1; echo "exit $?" ) | tail -8 | tee $R/gpu_executor_test.txt
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
for b in cand prev; do
  SOLDER=/tmp/$b/build/solder SOLDER_CACHE_DIR=/tmp/gc-$b timeout 100 bash bench/experiments/plan_grid.sh $D/grid.txt | grep -v "^|--\|^| case" | sed "s/(scheduler)/$b/" >> $R/grid.md
done
sort -s -t'|' -k2,2 $R/grid.md; echo "grid at ${SECONDS}s" | tee -a $R/times.txt
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="38:132|147 26:059 16:007 34:125 33:080 35:100 31:119" OUT=$R/ab timeout 260 bash scripts/ab_variants.sh > $R/ab_log.txt 2>&1
cat $R/ab/ab.txt; echo "ab at ${SECONDS}s" | tee -a $R/times.txt
rm -rf $R/ab/x/r[234]*.json
