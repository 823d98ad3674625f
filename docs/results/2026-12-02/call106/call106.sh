# Measurement call: the tree (inner resident weights only for several-row blocks, 1e3c...);
# gpu_outer_norm_test in full (owed); issue 26's programs beside torch.compile on the H200;
# Inductor's generated code for seed 28's pointwise losers; pinned plans (grid.txt).
R=$OUT; D=docs/results/2026-12-02/call106; mkdir -p /tmp/o
bash scripts/build_patched.sh cur '' solder _solder gpu_outer_norm_test || exit 1
B=/tmp/cur/build; export SOLDER_ROOT=$PWD SOLDER_CACHE_DIR=/tmp/sc
timeout 200 $B/tests/gpu_outer_norm_test --gtest_brief=1 2>&1 | tail -4 | tee $R/outer_norm_test.txt
for f in examples/w3_split_stack.fusion:B=1024 examples/w3_combined.fusion:B=1024 bench/programs/rope_rotate_half_bf16.fusion:B=64,M=4096 bench/programs/silu_halves_bf16.fusion:B=16384; do
  file=${f%%:*}; sz=${f#*:}; args=""; for s in ${sz//,/ }; do args="$args --size $s"; done
  timeout 120 $B/solder bench $file $args --peers auto 2>&1
done 2>&1 | tee $R/issue26.txt
PYTHONPATH=$B/python TORCH_LOGS=output_code timeout 200 python3 bench/variants.py --seed 28 --only '^(034|042|053|061|153) ' --no-probe 2>$R/inductor.log | tail -12 > $R/inductor_run.txt
grep -E "XBLOCK|YBLOCK|num_warps|def triton|tl.load|tl.store|xnumel =|ynumel =" $R/inductor.log | head -150
PYTHONPATH=$B/python SOLDER_CACHE_DIR=/tmp/sc-g timeout $((560 - SECONDS)) python3 bench/experiments/variant_plan_grid.py $D/grid.txt --no-peers 2>&1 | tee $R/grid.md
