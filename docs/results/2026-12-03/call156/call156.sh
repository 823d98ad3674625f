# call156: the single-row thread-count fix (a68f66c) on the GPU test that caught it; seed 42's
# worst program (#036, a masked softmax over the stored-outer axis of a transposed f16
# 4096x16384, outer_norm held rows at 31 % of a copy) under pinned outer_norm plans (re-read
# rows in a cluster, staged stores at wider tiles); Nsight Compute on seed 42's worst beside
# Inductor's (#036, #050 rope_symK, #093); col_vectors_once.patch A/B if time is left.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_horizontal_fusion_test || exit 1
( bash scripts/build_patched.sh col (col_vectors_once.patch: commit after a68f66c) _solder > $R/build_col.txt 2>&1 ) &
echo "built at ${SECONDS}s" | tee $R/times.txt
( timeout 60 /tmp/cand/build/tests/gpu_horizontal_fusion_test --gtest_brief=1 2>&1; echo "exit $?" ) | tail -6 | tee $R/gpu_horizontal_fusion_test.txt
for p in '' 'persistent_batch=0 unroll=4' 'persistent_batch=0 unroll=2 min_blocks=4 cluster=4' \
  'rows_per_block=32 persistent_batch=0 unroll=2 staged min_blocks=4' 'rows_per_block=64 persistent_batch=0 unroll=2 staged min_blocks=4' \
  'rows_per_block=32 threads=1024 persistent_batch=0 unroll=2 staged cluster=4' 'threads=512 rows_per_block=256 cluster=4 min_blocks=1' \
  'persistent_batch=0 unroll=4 cluster=4'; do
  args=(); [ -n "$p" ] && args=(--plan "$p")
  SOLDER_CACHE_DIR=/tmp/pin36 PYTHONPATH=/tmp/cand/build/python timeout 60 python3 bench/variants.py --programs 42:036 --no-probe --no-peers "${args[@]}" -o /tmp/pin.json > /tmp/pin.txt 2>&1
  python3 -c "import json,sys; r=json.load(open('/tmp/pin.json'))['programs'][0]; print('| 42:036 | %s | %s |' % (sys.argv[1] or '(scheduler)', r.get('solder_us')))" "$p" 2>&1 | tee -a $R/pins036.md
done
echo "pins at ${SECONDS}s" | tee -a $R/times.txt
PYTHONPATH=/tmp/cand/build/python SOLDER_CACHE_DIR=/tmp/ncu-c timeout 150 ncu --clock-control none --profile-from-start off --csv \
  --section SpeedOfLight --section Occupancy --section WarpStateStats --section InstructionStats --section MemoryWorkloadAnalysis \
  python3 bench/experiments/profile_variant.py 42:036 42:050 42:093 > $R/ncu.csv 2> $R/ncu_err.txt
echo "ncu exit $? at ${SECONDS}s" | tee -a $R/times.txt
wait; tail -1 $R/build_col.txt
if [ $SECONDS -lt 330 ] && grep -q "build ok" $R/build_col.txt; then
  NEW=/tmp/col/build PREV=/tmp/cand/build PROGS="40:026|081|140|139 41:015 38:135 35:065 36:096 37:070 42:050|118" OUT=$R/colvec timeout $((570-SECONDS)) bash scripts/ab_variants.sh | tail -16
fi
echo "end at ${SECONDS}s" | tee -a $R/times.txt
