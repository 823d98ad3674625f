# Held outer_norm plans of transposed norms (General outputs, element stores of whole sectors)
# with their outputs staged through shared memory (staged=1) against the scheduler's unstaged
# ones; GPU transpose tests of the working tree (row operands preloaded).
R=$OUT; mkdir -p $R; D=docs/results/2026-12-03/call141
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh main '' solder_cli gpu_transpose_test || exit 1
ls /tmp/main/build/tests | head -3
( timeout 150 /tmp/main/build/tests/gpu_transpose_test 2>&1; echo "exit $?" ) | tail -8 | tee $R/gpu_transpose.txt
SOLDER=/tmp/main/build/solder SOLDER_CACHE_DIR=/tmp/g3 timeout $((560-SECONDS)) bash bench/experiments/plan_grid.sh $D/ogrid.txt > $R/ogrid.md 2>&1
echo "done at ${SECONDS}s" | tee -a $R/times.txt
cat $R/ogrid.md
