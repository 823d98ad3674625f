# Prepared in stop 58 (not run): the scheduler's own H=65536 softmax plan (2 x 1024 cluster,
# timed only as a pin in call153-154), every golden softmax kernel this stop changed (H=770 and
# 20480 untimed in their landed form) and W3 with its stacked norms in one wave (stop 58's
# last commit) against 9abec40; the GPU tests stop 58 added or touched; Nsight Compute on the
# worst programs of seeds 40-41 beside Inductor's kernels (what sets their time: issue slots,
# L2 or DRAM); a fresh seed (42).   git archive -o .devbase/prev.tar 9abec40; carry [".devbase"]
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_executor_test gpu_horizontal_fusion_test || exit 1
bash scripts/build_archive.sh prev _solder solder_cli || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
for b in cand prev; do
  SOLDER=/tmp/$b/build/solder SOLDER_CACHE_DIR=/tmp/gc-$b timeout 80 bash bench/experiments/plan_grid.sh docs/results/2026-12-03/call155/call155_grid.txt | grep -v "^|--\|^| case" | sed "s/(scheduler)/$b/; s/| \([a-z_]*=[^|]*\) |/| \1 $b |/" >> $R/grid.md
done
printf 'w3_split_stack|B=1024|\nw3_combined|B=1024|\n' > /tmp/w3grid.txt
for b in cand prev cand prev; do
  SOLDER=/tmp/$b/build/solder SOLDER_CACHE_DIR=/tmp/gc-$b timeout 80 bash bench/experiments/plan_grid.sh /tmp/w3grid.txt | grep -v "^|--\|^| case" | sed "s/(scheduler)/$b/" >> $R/grid.md
done
sort -s -t'|' -k2,2 $R/grid.md; echo "grid at ${SECONDS}s" | tee -a $R/times.txt
( timeout 100 /tmp/cand/build/tests/gpu_executor_test --gtest_filter='*Quotients*:*Softmax*' --gtest_brief=1 2>&1; echo "exit $?" ) | tail -8 | tee $R/gpu_executor_test.txt
( timeout 60 /tmp/cand/build/tests/gpu_horizontal_fusion_test --gtest_brief=1 2>&1; echo "exit $?" ) | tail -8 | tee $R/gpu_horizontal_fusion_test.txt
PYTHONPATH=/tmp/cand/build/python SOLDER_CACHE_DIR=/tmp/ncu-c timeout 200 ncu --clock-control none --profile-from-start off --csv \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats \
  python3 bench/experiments/profile_variant.py 40:026 41:015 40:081 41:072 40:041 > $R/ncu.csv 2> $R/ncu_err.txt
echo "ncu exit $? at ${SECONDS}s" | tee -a $R/times.txt; grep -c "" $R/ncu.csv; tail -5 $R/ncu_err.txt
SOLDER_CACHE_DIR=/tmp/sc-42 PYTHONPATH=/tmp/cand/build/python timeout $((580-SECONDS)) python3 bench/variants.py --seed 42 --time-budget $((560-SECONDS)) -o $R/variants_seed42.json > $R/variants_seed42.txt 2>&1
echo "sweep exit $? at ${SECONDS}s" | tee -a $R/times.txt; grep -A45 "== status" $R/variants_seed42.txt | head -50
