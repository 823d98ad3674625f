# (1) Same-run A/B of next/partial_vectors.patch (flat kernels run partial vectors through the
# vector math) against main over the sweep programs it touches, and its GPU tests; (2) pinned
# held and re-read outer_norm plans of transposed norms and outer softmaxes (the model's top
# shapes of each form and 512-thread re-reads), to refit the held/re-read choice.
R=$OUT; mkdir -p $R; D=docs/results/2026-12-03/call143
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh main '' _solder solder_cli || exit 1
bash scripts/build_patched.sh cand docs/results/2026-12-03/next/partial_vectors.patch _solder gpu_row_unroll_test gpu_flat_index_test || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/cand/build PREV=/tmp/main/build PROGS="37:138|070 35:085 34:125 27:153 30:024 11:053 8:012|142|127" OUT=$R/ab timeout 240 bash scripts/ab_variants.sh > $R/ab_log.txt 2>&1
cat $R/ab/ab.txt; echo "ab at ${SECONDS}s" | tee -a $R/times.txt
for t in gpu_row_unroll_test gpu_flat_index_test; do
  ( timeout 60 /tmp/cand/build/tests/$t --gtest_brief=1 2>&1; echo "exit $?" ) | tail -3 | tee $R/$t.txt
done
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
SOLDER=/tmp/main/build/solder SOLDER_CACHE_DIR=/tmp/g3 timeout $((575-SECONDS)) bash bench/experiments/plan_grid.sh $D/ngrid.txt > $R/ngrid.md 2>&1
echo "grid at ${SECONDS}s" | tee -a $R/times.txt
cat $R/ngrid.md
