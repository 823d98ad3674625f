# call188 (owed by the session of 2026-12-04 22:10, which had no device): small_matmuls_size.patch
# (tiny matmuls of every dtype as reduction kernels; main runs only f64 ones so) against main:
# W4's six einsums (einsum 1 and 4 change kernels; 2, 3, 5, 6 must not move) twice each way,
# beside torch.compile once; the crossover experiment for its 2^20 bound; the GPU tests of the
# patched path and of the library path, and of strided outputs for matmuls and reshape copies
# (landed in main untimed: they were refused). Land the patch if einsum 1 and 4 are faster and
# the tests pass (it restores the tests and golden kernels it needs).
R=$OUT; mkdir -p $R
N=docs/results/2026-12-04e/next
( bash scripts/build_patched.sh prev '' _solder solder_cli > $R/build_prev.txt 2>&1 ) &
bash scripts/build_patched.sh cand $N/small_matmuls_size.patch _solder solder_cli gpu_executor_test gpu_transpose_test | tail -1 || exit 1
wait; tail -n 1 $R/build_prev.txt; echo "built at ${SECONDS}s"
( timeout 240 /tmp/cand/build/tests/gpu_executor_test --gtest_brief=1 \
    --gtest_filter='*SmallMatmulsAsReductions*:*ViewsCatAndMatmul*:*CapturedRunsReplayNewInputs*:*MathAfterReshapes*:*EveryElementwiseOp*:*PadsOfSeveralDims*' 2>&1; echo "gpu_executor_test exit $?" ) | tail -4
# The sessions of 2026-12-05 00:00 and 01:00 (no device either): the new unary ops, math after
# reshapes, pads of several dims in one kernel, and the torch lowerings (group/batch norms, pads, pools, activations) on CUDA against eager.
( cd python/tests && PYTHONPATH=/tmp/cand/build/python timeout 120 python3 -m unittest test_gpu_torch.CompiledOnGpu 2>&1 | tail -3 )
( timeout 120 /tmp/cand/build/tests/gpu_transpose_test --gtest_brief=1 --gtest_filter='*StridedOutputs*' 2>&1; echo "gpu_transpose_test exit $?" ) | tail -3
echo "tests at ${SECONDS}s"
W4="w4_einsum_1 w4_einsum_2 w4_einsum_3 w4_einsum_4 w4_einsum_5 w4_einsum_6"
for i in 1 2; do for b in cand prev; do
  echo "== $b $i"; SOLDER_CACHE_DIR=/tmp/gc-$b timeout 60 /tmp/$b/build/solder bench $W4 --peers off 2>&1 | tail -8
done; done | tee $R/w4_ab.txt
SOLDER_CACHE_DIR=/tmp/gc-cand timeout 120 /tmp/cand/build/solder bench $W4 --peers auto 2>&1 | tail -8 | tee $R/w4_peers.txt
echo "w4 at ${SECONDS}s"
# The torch lowerings' programs (group norm + SiLU in one kernel, a pad read as pieces, a tiled
# max pool, a conv's padding of H and W through a pad of a pad: session of 2026-12-05 01:00)
# beside torch eager and torch.compile: untimed so far.
for a in "group_norm_silu_f16 --size N=8 --size H=64 --size W=64" "pad_exp_bf16 --size B=8192 --size H=4093" \
         "max_pool2_f16 --size N=32 --size C=64" "pad_hw_add_f16 --size N=32 --size C=128 --size H=56 --size W=56"; do
  set -- $a; p=$1; shift
  SOLDER_CACHE_DIR=/tmp/gc-cand timeout 90 /tmp/cand/build/solder bench bench/programs/$p.fusion "$@" --peers auto 2>&1 | tail -4
done | tee $R/torch_lowerings.txt
echo "lowerings at ${SECONDS}s"
SOLDER_CACHE_DIR=/tmp/gc-cand PYTHONPATH=/tmp/cand/build/python timeout 150 python3 bench/experiments/small_matmul.py | tee $R/small_matmul.md
echo "done at ${SECONDS}s"
