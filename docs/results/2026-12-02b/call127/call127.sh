# The pairs branch as it will land (the where's condition only from inputs at hand: call126's
# gpu_executor_test EveryElementwiseOp failed to compile a where reading a one-row y of H=133):
# gpu_executor_test whole, then a fresh seed (33) beside torch.compile.
R=$OUT
bash scripts/build_patched.sh main '' solder _solder gpu_executor_test || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
timeout 200 /tmp/main/build/tests/gpu_executor_test --gtest_brief=1 --gtest_filter='-*SampledRows' 2>&1 | tail -4 | tee $R/gpu_executor.txt
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-33 PYTHONPATH=/tmp/main/build/python timeout $((470-SECONDS)) python3 bench/variants.py --seed 33 --time-budget $((445-SECONDS)) -o $R/variants_seed33.json > $R/variants_seed33.txt 2>&1
echo "sweep exit $? $SECONDS s"; grep -A45 "== status" $R/variants_seed33.txt | head -50
