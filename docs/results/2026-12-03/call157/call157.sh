# call157: col vectors once per thread (f45cd77) against a68f66c: its one changed golden kernel
# (w5_gelu_bias_bf16) timed, the GPU tests of pointwise operands (flat index, shift loads, row
# unroll, executor's pointwise ones); seed 42 #093 (a transposed bf16 layer norm of 1024 x 128
# over 16 blocks, 7.3 us against Inductor's 3.8 over 128) under pinned tile widths; seed 43.
#   git archive -o .devbase/prev.tar a68f66c; carry [".devbase"]
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_flat_index_test gpu_shift_loads_test gpu_row_unroll_test gpu_executor_test || exit 1
bash scripts/build_archive.sh prev _solder solder_cli || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
printf 'w5_gelu_bias_bf16|B=8192 H=1024|\nw5_gelu_bias_bf16|B=2048 H=4096|\nw5_gelu_bias_bf16|B=8192 H=1024|\n' > /tmp/g.txt
for b in cand prev cand prev; do
  SOLDER=/tmp/$b/build/solder SOLDER_CACHE_DIR=/tmp/gc-$b timeout 60 bash bench/experiments/plan_grid.sh /tmp/g.txt | grep -v "^|--\|^| case" | sed "s/(scheduler)/$b/" >> $R/grid.md
done
sort -s -t'|' -k2,2 $R/grid.md; echo "grid at ${SECONDS}s" | tee -a $R/times.txt
for t in gpu_flat_index_test gpu_shift_loads_test gpu_row_unroll_test; do
  ( timeout 120 /tmp/cand/build/tests/$t --gtest_brief=1 --gtest_filter='-*SampledRows' 2>&1; echo "exit $?" ) | tail -4 | tee $R/$t.txt
done
( timeout 120 /tmp/cand/build/tests/gpu_executor_test --gtest_brief=1 --gtest_filter='*EveryWorkload*:*Elementwise*:*NonContiguous*:*PhaseShifted*:*CatPieces*:*Sliced*:*Quotients*' 2>&1; echo "exit $?" ) | tail -4 | tee $R/gpu_executor_test.txt
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
for p in '' 'rows_per_block=128' 'rows_per_block=64' 'threads=128 rows_per_block=64' 'threads=128 rows_per_block=128' 'cluster=4' 'threads=128 rows_per_block=32 cluster=4' 'vec=4 threads=128 rows_per_block=64'; do
  args=(); [ -n "$p" ] && args=(--plan "$p")
  SOLDER_CACHE_DIR=/tmp/pin93 PYTHONPATH=/tmp/cand/build/python timeout 60 python3 bench/variants.py --programs 42:093 --no-probe --no-peers "${args[@]}" -o /tmp/pin.json > /tmp/pin.txt 2>&1
  python3 -c "import json,sys; r=json.load(open('/tmp/pin.json'))['programs'][0]; print('| 42:093 | %s | %.2f |' % (sys.argv[1] or '(scheduler)', r.get('solder_us')))" "$p" 2>&1 | tee -a $R/pins093.md
done
echo "pins at ${SECONDS}s" | tee -a $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-43 PYTHONPATH=/tmp/cand/build/python timeout $((585-SECONDS)) python3 bench/variants.py --seed 43 --time-budget $((560-SECONDS)) -o $R/variants_seed43.json > $R/variants_seed43.txt 2>&1
echo "sweep exit $? at ${SECONDS}s" | tee -a $R/times.txt; grep -A48 "== status" $R/variants_seed43.txt | head -56
