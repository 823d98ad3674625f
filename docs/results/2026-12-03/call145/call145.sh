# The stop's candidate (one_row vectors + the outer_norm model's held-time term, held only
# past a wave, not with General inputs) against main 659e877: outer programs whose plan the
# term changes at small and middle sizes, both builds alternating; the sweep programs it moved
# (call144); a fresh seed (38) beside torch.compile; the GPU flat-index tests.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_archive.sh prev _solder solder_cli || exit 1
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_flat_index_test || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
cat > /tmp/g.txt <<'G'
bench/programs/outer_log_softmax_mid_bf16.fusion|B=64 M=100 K=1024|
bench/programs/outer_log_softmax_mid_bf16.fusion|B=64 M=1000 K=1024|
bench/programs/outer_log_softmax_mid_bf16.fusion|B=8 M=1000 K=1024|
examples/outer_log_softmax_mid_f16.fusion|B=64 M=100 K=1024|
examples/outer_softmax_dim0_f32.fusion|B=1000 H=96|
examples/outer_rms_norm_T_f32.fusion|B=1024 H=4097|
examples/outer_layer_norm_T_f16.fusion|B=4096 H=16384|
G
for b in cand prev cand prev; do
  SOLDER=/tmp/$b/build/solder SOLDER_CACHE_DIR=/tmp/gc-$b timeout 60 bash bench/experiments/plan_grid.sh /tmp/g.txt | grep -v "^|--\|^| case" | sed "s/(scheduler)/$b/" >> $R/outer_ab.md
done
sort -s -t'|' -k2,2 $R/outer_ab.md; echo "outer at ${SECONDS}s" | tee -a $R/times.txt
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="20:037 26:126|009 17:145 36:111 37:116|138 11:053 6:011" OUT=$R/ab timeout 170 bash scripts/ab_variants.sh > $R/ab_log.txt 2>&1
cat $R/ab/ab.txt; echo "ab at ${SECONDS}s" | tee -a $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-38 PYTHONPATH=/tmp/cand/build/python timeout $((500-SECONDS)) python3 bench/variants.py --seed 38 --time-budget $((480-SECONDS)) -o $R/variants_seed38.json > $R/variants_seed38.txt 2>&1
echo "sweep exit $? at ${SECONDS}s" | tee -a $R/times.txt; grep -A45 "== status" $R/variants_seed38.txt | head -50
( timeout $((575-SECONDS)) /tmp/cand/build/tests/gpu_flat_index_test --gtest_brief=1 2>&1; echo "exit $?" ) | tail -8 | tee $R/gpu_flat_index_test.txt
rm -rf $R/ab/x/r[234]*.json
