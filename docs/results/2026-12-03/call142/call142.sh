# The stop's main (transpose tiles preload their row operands): the GPU transpose tests of whole
# tiles with row operands; Nsight Compute on the transposed layer norm 4096x16384's held plan
# (the scheduler's) and the re-read plan that ran 24 % faster (call140), where ncu exists; then
# a fresh seed (37) beside torch.compile.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh main '' _solder solder_cli gpu_transpose_test || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
( timeout 100 /tmp/main/build/tests/gpu_transpose_test --gtest_brief=1 --gtest_filter='*DtypesBroadcasts*:*PartialReductionsOf*:*TransposedInput*' 2>&1; echo "exit $?" ) | tail -4 | tee $R/tests.txt
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1); echo "ncu: ${NCU:-none}"
if [ -n "$NCU" ]; then
  S="--size B=4096 --size H=16384"; F=examples/outer_layer_norm_T_f16.fusion
  for pl in "" "persistent_batch=0,smem_rows=0,unroll=4,staged=1,threads=1024,rows_per_block=128,cluster=2"; do
    SOLDER_CACHE_DIR=/tmp/ncu timeout 60 $NCU --launch-count 1 -k regex:solder_outer --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats \
      /tmp/main/build/solder bench $F $S ${pl:+--plan $pl} --peers off --budget-ms 5 > $R/ncu_${pl:+reread}held.txt 2>&1
    grep -E "Duration|DRAM Throughput|Memory Throughput|L2 Hit|L1/TEX Hit|Mem Busy|Max Bandwidth|Achieved Occupancy|Stall|Warp Cycles Per Issued" $R/ncu_${pl:+reread}held.txt | head -20
  done
fi
echo "ncu at ${SECONDS}s" | tee -a $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-37 PYTHONPATH=/tmp/main/build/python timeout $((520-SECONDS)) python3 bench/variants.py --seed 37 --time-budget $((495-SECONDS)) -o $R/variants_seed37.json > $R/variants_seed37.txt 2>&1
echo "sweep exit $? at ${SECONDS}s" | tee -a $R/times.txt; grep -A45 "== status" $R/variants_seed37.txt | head -50
