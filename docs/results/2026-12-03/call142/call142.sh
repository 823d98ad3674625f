# The stop's main (transpose tiles preload their row operands): the GPU transpose tests (whole
# tiles with row operands: broadcasts, partial reductions), then a fresh seed (37) beside
# torch.compile.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh main '' _solder gpu_transpose_test || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
( timeout 100 /tmp/main/build/tests/gpu_transpose_test --gtest_brief=1 --gtest_filter='-*FullReductions*' 2>&1; echo "exit $?" ) | tail -4 | tee $R/tests.txt
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-37 PYTHONPATH=/tmp/main/build/python timeout $((480-SECONDS)) python3 bench/variants.py --seed 37 --time-budget $((455-SECONDS)) -o $R/variants_seed37.json > $R/variants_seed37.txt 2>&1
echo "sweep exit $? at ${SECONDS}s" | tee -a $R/times.txt; grep -A45 "== status" $R/variants_seed37.txt | head -50
