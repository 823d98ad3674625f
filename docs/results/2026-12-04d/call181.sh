# call181: the transpose tiles as landed (32 rows at 1024 before the 64-row tile only where its
# blocks are smaller, else after it; 32 rows where 64-row tiles are under two per SM) and the
# flushing reciprocals, against HEAD 058e236 (rev181.patch): same-run A/B of every transpose
# plan that changes over seeds 44-49, the changed golden kernel, the transpose GPU tests.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
D=docs/results/2026-12-04d
( bash scripts/build_patched.sh prev $D/rev181.patch _solder solder_cli > $R/build_prev.txt 2>&1 ) &
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_transpose_test | tail -1 || exit 1
wait; tail -1 $R/build_prev.txt; echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/cand/build PREV=/tmp/prev/build OUT=$R/ab PROGS="44:108 45:044|059|129 46:002|023 47:154 48:019|047|080|092|133|136 49:146|079" bash scripts/ab_variants.sh | tail -16
cp $R/ab/ab.txt $R/ab.txt; rm -rf $R/ab/x
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
printf 'examples/transpose_add_bf16.fusion|B=37 H=1030|\nexamples/transpose_add_bf16.fusion|B=37 H=1030|tile_rows=64,min_blocks=4\n' > $R/golden_grid.txt
for b in cand prev; do echo "== $b"; SOLDER=/tmp/$b/build/solder SOLDER_CACHE_DIR=/tmp/gg-$b bash bench/experiments/plan_grid.sh $R/golden_grid.txt; done | tee $R/golden_grid.md
( timeout $((590-SECONDS)) /tmp/cand/build/tests/gpu_transpose_test --gtest_brief=1 2>&1; echo "gpu_transpose_test exit $?" ) | tail -5 | tee -a $R/gpu_tests.txt
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
