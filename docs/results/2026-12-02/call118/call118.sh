# This stop's second call. Two builds: main (the tree: gelu as x*sigmoid(2u), var_mean's phased
# vec 4, and the outer split decided at its own rows per block) and prev (the tree without the
# split fix: split_prev.patch). 1) the new gelu/tanh GPU tests; 2) ab1: the split fix over every
# program whose plan it changes in seeds 25-30 (CPU plan diffs); 3) issue 26's programs beside
# torch.compile; 4) transposed norms one kernel vs two (bench/experiments/norm_split.py).
R=$OUT; D=docs/results/2026-12-02/next; mkdir -p /tmp/o $R/ab1
export SOLDER_ROOT=$PWD
(bash scripts/build_patched.sh prev $D/split_prev.patch solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash scripts/build_patched.sh main '' solder_cli _solder || exit 1
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; tail -1 /tmp/o/br-prev.txt
echo "built at ${SECONDS}s" | tee $R/times.txt
B=/tmp/main/build
PYTHONPATH=$B/python timeout 120 python3 -m pytest -q python/tests/test_gpu_torch.py -k RoundedTanh 2>&1 | tail -4 | tee $R/t-rounded.txt
NEW=$B PREV=/tmp/prev/build OUT=$R/ab1 PROGS="26:127|132 27:029|074|113 28:024 29:081 30:093|148" bash scripts/ab_variants.sh
echo "ab1 at ${SECONDS}s" | tee -a $R/times.txt
(cd $R && tar -cf x.tar ab1/x && rm -rf ab1/x)
for f in examples/w3_split_stack.fusion:B=1024 examples/w3_combined.fusion:B=1024 bench/programs/rope_rotate_half_bf16.fusion:B=64,M=4096 bench/programs/silu_halves_bf16.fusion:B=16384; do
  file=${f%%:*}; sz=${f#*:}; args=""; for s in ${sz//,/ }; do args="$args --size $s"; done
  [ $SECONDS -lt 480 ] && SOLDER_CACHE_DIR=/tmp/sc-26 timeout 60 $B/solder bench $file $args --peers auto 2>&1
done 2>&1 | tee $R/issue26.txt
echo "issue26 at ${SECONDS}s" | tee -a $R/times.txt
[ $SECONDS -lt 500 ] && SOLDER_CACHE_DIR=/tmp/sc-ns PYTHONPATH=$B/python timeout $((585 - SECONDS)) python3 bench/experiments/norm_split.py > $R/norm_split.md 2> $R/norm_split.err
echo "norm_split exit $? at $SECONDS s"; cat $R/norm_split.md
