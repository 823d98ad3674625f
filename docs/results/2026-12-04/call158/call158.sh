# call158: stop 60's owed device work and this session's held cuts. Main (b10fdeb) on the GPU:
# GpuFlatIndex.StridedColumns (new), compute-sanitizer on it, gpu_horizontal_fusion_test, the
# strided columns A/B'd against b8a89b5 over the sweep's strided slices; outer_small_blocks.patch
# A/B; held_cut.patch (outer_norm's held rows hold a masked / scaled input's value): its GPU tests
# and an A/B over the sweep programs whose kernels take a cut; pinned wider tiles for seed 43
# #090 and 42 #036 (grid090.txt); W4's host µs.
#   git archive -o .devbase/prev.tar b8a89b5; carry [".devbase"]
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
N=docs/results/2026-12-04/next
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_flat_index_test gpu_horizontal_fusion_test || exit 1
( bash scripts/build_archive.sh prev _solder solder_cli > $R/build_prev.txt 2>&1 ) &
( bash scripts/build_patched.sh cut $N/held_cut.patch (applied as 5902444) _solder gpu_outer_norm_test > $R/build_cut.txt 2>&1 ) &
( bash scripts/build_patched.sh small docs/results/2026-12-03/next/outer_small_blocks.patch _solder > $R/build_small.txt 2>&1 ) &
echo "cand built at ${SECONDS}s" | tee $R/times.txt
( timeout 150 /tmp/cand/build/tests/gpu_flat_index_test --gtest_brief=1 2>&1; echo "exit $?" ) | tail -6 | tee $R/gpu_flat_index_test.txt
( timeout 60 /tmp/cand/build/tests/gpu_horizontal_fusion_test --gtest_brief=1 2>&1; echo "exit $?" ) | tail -4 | tee $R/gpu_horizontal_fusion_test.txt
( timeout 90 compute-sanitizer --tool memcheck /tmp/cand/build/tests/gpu_flat_index_test --gtest_brief=1 --gtest_filter='*StridedColumns' 2>&1; echo "exit $?" ) | tail -6 | tee $R/sanitizer_strided.txt
wait; tail -1 $R/build_prev.txt $R/build_cut.txt $R/build_small.txt; echo "tests at ${SECONDS}s" | tee -a $R/times.txt
( timeout 200 /tmp/cut/build/tests/gpu_outer_norm_test --gtest_brief=1 2>&1; echo "exit $?" ) | tail -8 | tee $R/gpu_outer_norm_test_cut.txt
echo "cut tests at ${SECONDS}s" | tee -a $R/times.txt
NEW=/tmp/cut/build PREV=/tmp/cand/build PROGS="42:036|150|048 43:063|011" OUT=$R/cut timeout 120 bash scripts/ab_variants.sh | tail -7
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="43:107 42:053 41:067 36:067" OUT=$R/strided timeout 100 bash scripts/ab_variants.sh | tail -6
NEW=/tmp/small/build PREV=/tmp/cand/build PROGS="42:009|093|136|145 43:036|083|105" OUT=$R/small timeout 100 bash scripts/ab_variants.sh | tail -9
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
SOLDER_CACHE_DIR=/tmp/gc-cand timeout 40 /tmp/cand/build/solder bench w4_einsum_1 w4_einsum_2 w4_einsum_3 w4_einsum_4 w4_einsum_5 w4_einsum_6 --peers off 2>&1 | tail -9 | tee $R/w4_host.txt
PYTHONPATH=/tmp/cand/build/python timeout $((590-SECONDS)) python3 bench/experiments/variant_plan_grid.py $N/grid090.txt --no-peers > $R/grid090.md 2>&1; cut -c1-220 $R/grid090.md
echo "end at ${SECONDS}s" | tee -a $R/times.txt
