# Next stop's second call (after call117's builds where the machine stayed warm; else main
# alone). 1) bench/experiments/norm_split.py: transposed norms as one kernel, as two
# (statistics, then a transposing apply: x read twice, as Inductor's) and torch.compile.
# 2) Pinned plans (grid117.txt): strided slices at fewer elements a thread; small outer
# reductions. 3) Issue 26's programs beside torch.compile (the RoPE was at 84.5 % of a copy in
# call106, before 43542bc and aec777f).
R=$OUT; D=docs/results/2026-12-02/next
[ -d /tmp/main/build/python ] || bash scripts/build_patched.sh main '' solder_cli _solder || exit 1
B=/tmp/main/build; export SOLDER_ROOT=$PWD
SOLDER_CACHE_DIR=/tmp/sc-ns PYTHONPATH=$B/python timeout 240 python3 bench/experiments/norm_split.py > $R/norm_split.md 2> $R/norm_split.err
echo "norm_split exit $? at $SECONDS s"; cat $R/norm_split.md
SOLDER_CACHE_DIR=/tmp/sc-g PYTHONPATH=$B/python timeout $((450 - SECONDS)) python3 bench/experiments/variant_plan_grid.py $D/grid117.txt > $R/grid.md 2> $R/grid.err
echo "grid exit $? at $SECONDS s"; cat $R/grid.md
for f in examples/w3_split_stack.fusion:B=1024 examples/w3_combined.fusion:B=1024 bench/programs/rope_rotate_half_bf16.fusion:B=64,M=4096 bench/programs/silu_halves_bf16.fusion:B=16384; do
  file=${f%%:*}; sz=${f#*:}; args=""; for s in ${sz//,/ }; do args="$args --size $s"; done
  [ $SECONDS -lt 540 ] && SOLDER_CACHE_DIR=/tmp/sc-26 timeout $((580 - SECONDS)) $B/solder bench $file $args --peers auto 2>&1
done 2>&1 | tee $R/issue26.txt
