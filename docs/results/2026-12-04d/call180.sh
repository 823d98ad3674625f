# call180: the flushing reciprocals of div_f16/div_narrow (the latter's huge divisors scaled) and
# 32-row transpose tiles at 1024 threads where the 40 cap spills a 64-row tile, against HEAD
# 058e236 (rev180.patch): the exhaustive division check, the new GPU test, same-run A/B, the
# golden kernel that changed (transpose_add_bf16 B=37 H=1030) beside its old plan.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
D=docs/results/2026-12-04d
( bash scripts/build_patched.sh prev $D/rev180.patch _solder solder_cli > $R/build_prev.txt 2>&1 ) &
( nvcc -O3 -arch=sm_90 bench/experiments/f16_div_check.cu -o /tmp/f16_div_check && /tmp/f16_div_check > $R/div_check.txt 2>&1 ) &
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_executor_test gpu_transpose_test | tail -1 || exit 1
wait; tail -1 $R/build_prev.txt; cat $R/div_check.txt; echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/cand/build PREV=/tmp/prev/build OUT=$R/ab PROGS="49:020|030|061|079|087|092|117|130|134|135|142|152|146 45:044|059 47:154 48:019|080|133|136" bash scripts/ab_variants.sh | tail -22
cp $R/ab/ab.txt $R/ab.txt; rm -rf $R/ab/x
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
printf 'examples/transpose_add_bf16.fusion|B=37 H=1030|\nexamples/transpose_add_bf16.fusion|B=37 H=1030|tile_rows=64\n' > $R/golden_grid.txt
SOLDER=/tmp/cand/build/solder SOLDER_CACHE_DIR=/tmp/gg bash bench/experiments/plan_grid.sh $R/golden_grid.txt | tee $R/golden_grid.md
( timeout $((560-SECONDS)) /tmp/cand/build/tests/gpu_executor_test --gtest_brief=1 --gtest_filter='*Quotient*' 2>&1; echo "gpu_executor_test exit $?" ) | tail -5 | tee $R/gpu_tests.txt
( timeout $((590-SECONDS)) /tmp/cand/build/tests/gpu_transpose_test --gtest_brief=1 2>&1; echo "gpu_transpose_test exit $?" ) | tail -5 | tee -a $R/gpu_tests.txt
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
