# Two candidates against main 659e877 in one run: (1) one_row vectors (full/dims operands in
# runs at the flat index load as vectors; chunks across one row end take the vector path) over
# sweep programs with odd rows beside broadcast operands; (2) held_time.patch (the outer_norm
# model: held rows at 1.8x, re-reads in 128-byte lines only) over transposed norms and outer
# softmaxes, the scheduler's plan of each build; then GPU tests of (1).
R=$OUT; mkdir -p $R; D=docs/results/2026-12-03/call144
export SOLDER_ROOT=$PWD
bash scripts/build_archive.sh prev _solder solder_cli || exit 1
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_row_unroll_test gpu_flat_index_test || exit 1
bash scripts/build_patched.sh held $D/held_time.patch _solder solder_cli || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="37:138|070 11:053 27:153|049 8:142|127 33:080|068 29:036 35:085" OUT=$R/ab timeout 200 bash scripts/ab_variants.sh > $R/ab_log.txt 2>&1
cat $R/ab/ab.txt; echo "ab at ${SECONDS}s" | tee -a $R/times.txt
for b in held prev held prev; do
  for c in "examples/outer_layer_norm_T_f16.fusion B=4096 H=16384" "examples/outer_layer_norm_T_f16.fusion B=5120 H=6144" "bench/programs/outer_rms_norm_T_f16.fusion B=5120 H=6144" "examples/outer_rms_norm_T_f32.fusion B=2048 H=16384" "examples/outer_softmax_dim0_f32.fusion B=8192 H=4096" "bench/programs/outer_log_softmax_T_f16.fusion B=4096 H=8192" "bench/programs/outer_layer_norm_bias_T_bf16.fusion B=4096 H=16384" "bench/programs/outer_rms_norm_T_bf16.fusion B=5120 H=6144" "examples/outer_rms_norm_T_f32.fusion B=16384 H=3000"; do
    set -- $c; echo "$c|"; done > /tmp/g_$b.txt
  sed -i 's/^\([^ ]*\) \(.*\)|$/\1|\2|/' /tmp/g_$b.txt
  SOLDER=/tmp/$b/build/solder SOLDER_CACHE_DIR=/tmp/gc-$b timeout 90 bash bench/experiments/plan_grid.sh /tmp/g_$b.txt | sed "s/(scheduler)/$b/" >> $R/outer_ab.md
done
echo "outer at ${SECONDS}s" | tee -a $R/times.txt
NEW=/tmp/held/build PREV=/tmp/prev/build PROGS="26:009|030|126 37:116 36:111 17:145 20:037" OUT=$R/abo timeout $((500-SECONDS)) bash scripts/ab_variants.sh > $R/abo_log.txt 2>&1
cat $R/abo/ab.txt; echo "abo at ${SECONDS}s" | tee -a $R/times.txt
( timeout $((585-SECONDS)) /tmp/cand/build/tests/gpu_row_unroll_test --gtest_brief=1 --gtest_filter='*OneRow*:*TheSweeps*' 2>&1; echo "exit $?" ) | tail -30 > $R/gpu_row_unroll_test.txt
tail -12 $R/gpu_row_unroll_test.txt; echo "tests at ${SECONDS}s" | tee -a $R/times.txt
sort $R/outer_ab.md | uniq > /dev/null; cat $R/outer_ab.md
rm -rf $R/ab/x/r[234]*.json $R/abo/x/r[234]*.json
