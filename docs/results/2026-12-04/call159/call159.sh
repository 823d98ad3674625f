# call159: main after the held cuts (5902444) and the strided columns' revert (899afba): the
# outer_norm GPU tests of held cuts (HeldCuts, held rows in shared memory, the middle axis); the
# one changed golden kernel (outer_softmax_mid_mask_f16 B=16 M=128 K=4097) against b10fdeb; a
# fresh seed (44) of the variant sweep with first-call times.
#   git archive -o .devbase/prev.tar b10fdeb; carry [".devbase"]
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
( bash scripts/build_archive.sh prev _solder solder_cli > $R/build_prev.txt 2>&1 ) &
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_outer_norm_test || exit 1
echo "cand built at ${SECONDS}s" | tee $R/times.txt
( timeout 150 /tmp/cand/build/tests/gpu_outer_norm_test --gtest_brief=1 --gtest_filter='*HeldCuts*:*HeldRowsInSharedMemory*:*SoftmaxOverTheMiddleAxis*:*Workloads*' 2>&1; echo "exit $?" ) | tail -8 | tee $R/gpu_outer_norm_test.txt
wait; tail -1 $R/build_prev.txt; echo "tests at ${SECONDS}s" | tee -a $R/times.txt
printf 'examples/outer_softmax_mid_mask_f16.fusion|B=16 M=128 K=4097|\nexamples/outer_softmax_mid_mask_f16.fusion|B=64 M=1000 K=1024|\n' > /tmp/g.txt
for b in cand prev cand prev; do
  SOLDER=/tmp/$b/build/solder SOLDER_CACHE_DIR=/tmp/gc-$b timeout 60 bash bench/experiments/plan_grid.sh /tmp/g.txt | grep -v "^|--\|^| case" | sed "s/(scheduler)/$b/" >> $R/golden.md
done
sort -s -t'|' -k2,2 $R/golden.md; echo "golden at ${SECONDS}s" | tee -a $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-44 PYTHONPATH=/tmp/cand/build/python timeout $((590-SECONDS)) python3 bench/variants.py --seed 44 --time-budget $((570-SECONDS)) -o $R/variants_seed44.json > $R/variants_seed44.txt 2>&1
echo "sweep exit $? at ${SECONDS}s" | tee -a $R/times.txt; grep -A48 "== status" $R/variants_seed44.txt | head -56
