# The landed form (cand: div_narrow under narrow results; held rows that spill at 1024 threads
# retry in clusters before the looped row) against main 9abec40 (prev): W5 softmax's changed
# golden plans (H=1024, 65536, 131072; 65536's cluster pins of call153), the masked outer
# softmax; GPU tests of softmax and held outer rows; then a fresh seed (41) on cand.
#   git archive -o .devbase/prev.tar 9abec40; carry [".devbase"]
R=$OUT; mkdir -p $R; D=docs/results/2026-12-03/call154
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_executor_test gpu_outer_norm_test || exit 1
bash scripts/build_archive.sh prev _solder solder_cli || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
( timeout 100 /tmp/cand/build/tests/gpu_executor_test --gtest_filter='*Softmax*:*EveryWorkload*' --gtest_brief=1 2>&1; echo "exit $?" ) | tail -8 | tee $R/gpu_executor_test.txt
( timeout 60 /tmp/cand/build/tests/gpu_outer_norm_test --gtest_filter='*HeldRowsInSharedMemory*' --gtest_brief=1 2>&1; echo "exit $?" ) | tail -8 | tee $R/gpu_outer_norm_test.txt
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
for b in cand prev; do
  SOLDER=/tmp/$b/build/solder SOLDER_CACHE_DIR=/tmp/gc-$b timeout 80 bash bench/experiments/plan_grid.sh $D/grid.txt | grep -v "^|--\|^| case" | sed "s/(scheduler)/$b/; s/| \([a-z_]*=[^|]*\) |/| \1 $b |/" >> $R/grid.md
done
sort -s -t'|' -k2,2 $R/grid.md; echo "grid at ${SECONDS}s" | tee -a $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-41 PYTHONPATH=/tmp/cand/build/python timeout $((470-SECONDS)) python3 bench/variants.py --seed 41 --time-budget $((440-SECONDS)) -o $R/variants_seed41.json > $R/variants_seed41.txt 2>&1
echo "sweep exit $? at ${SECONDS}s" | tee -a $R/times.txt; grep -A45 "== status" $R/variants_seed41.txt | head -50
