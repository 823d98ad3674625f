# The stop's main (evenly filled 2-D passes): the GPU tests of the pointwise paths it touches
# (threads of 2-D plans, rows in flight, cat pieces, shifted loads), then a fresh seed (36)
# beside torch.compile.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh main '' _solder gpu_flat_index_test gpu_row_unroll_test gpu_symbolic_cat_test gpu_shift_loads_test || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
for t in gpu_flat_index_test gpu_row_unroll_test gpu_symbolic_cat_test gpu_shift_loads_test; do
  timeout 60 /tmp/main/build/tests/$t --gtest_brief=1 2>&1 | tail -2 | sed "s/^/$t /" | tee -a $R/tests.txt
done
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-36 PYTHONPATH=/tmp/main/build/python timeout $((580-SECONDS)) python3 bench/variants.py --seed 36 --time-budget $((550-SECONDS)) -o $R/variants_seed36.json > $R/variants_seed36.txt 2>&1
echo "sweep exit $? at ${SECONDS}s" | tee -a $R/times.txt; grep -A45 "== status" $R/variants_seed36.txt | head -50
