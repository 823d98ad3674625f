# Pinned outer_norm plans of seed 26's two worst norms (#009, #126) beside torch.compile
# (bench/experiments/variant_plan_grid.py), then the rest of main's gpu_outer_reduction_test
# (its first three tests passed in call93) and the outer norm tests.
R=$OUT; D=docs/results/2026-12-01/call94
bash scripts/build_patched.sh main '' solder _solder gpu_outer_reduction_test gpu_outer_norm_test || exit 1
PYTHONPATH=/tmp/main/build/python SOLDER_CACHE_DIR=/tmp/sc-g timeout 300 python3 bench/experiments/variant_plan_grid.py $D/grid.txt 2>&1 | tee $R/grid.md
left=$((585 - SECONDS)); echo "tests get $left s"
SOLDER_CACHE_DIR=/tmp/sc-o timeout $((left / 2)) /tmp/main/build/tests/gpu_outer_reduction_test --gtest_filter='*KeptDims*:*PhaseShifted*:*FewKeptTiles*' > $R/t-outer.txt 2>&1; echo "gpu_outer_reduction_test exit $?"; grep -E "OK \]|FAILED|PASSED|Failure" $R/t-outer.txt | head -20
left=$((585 - SECONDS)); SOLDER_CACHE_DIR=/tmp/sc-o timeout $left /tmp/main/build/tests/gpu_outer_norm_test > $R/t-outer-norm.txt 2>&1; echo "gpu_outer_norm_test exit $?"; grep -E "OK \]|FAILED|PASSED|Failure" $R/t-outer-norm.txt | head -20
