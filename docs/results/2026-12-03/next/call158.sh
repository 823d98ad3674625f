# call158 (prepared in stop 60, not run): the strided columns (7b3110c + its follow-up) on the
# GPU: GpuFlatIndex.StridedColumns (new), compute-sanitizer on part of it, and A/B against
# b8a89b5 over the sweep's strided slices; outer_small_blocks.patch A/B over the small outer
# norms it replans (seeds 42-43); a fresh seed (44) with first-call times (outer_norm's first
# four candidates now compile side by side: seed 42 #150 took 2706 ms in call155); W4's host µs.
#   git archive -o .devbase/prev.tar b8a89b5; carry [".devbase"]
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_flat_index_test gpu_horizontal_fusion_test || exit 1
( bash scripts/build_archive.sh prev _solder solder_cli > $R/build_prev.txt 2>&1 ) &
( bash scripts/build_patched.sh small docs/results/2026-12-03/next/outer_small_blocks.patch _solder > $R/build_small.txt 2>&1 ) &
( timeout 150 /tmp/cand/build/tests/gpu_flat_index_test --gtest_brief=1 2>&1; echo "exit $?" ) | tail -6 | tee $R/gpu_flat_index_test.txt
( timeout 60 /tmp/cand/build/tests/gpu_horizontal_fusion_test --gtest_brief=1 2>&1; echo "exit $?" ) | tail -4 | tee $R/gpu_horizontal_fusion_test.txt
( timeout 90 compute-sanitizer --tool memcheck /tmp/cand/build/tests/gpu_flat_index_test --gtest_brief=1 --gtest_filter='*StridedColumns' 2>&1; echo "exit $?" ) | tail -6 | tee $R/sanitizer_strided.txt
wait; tail -1 $R/build_prev.txt $R/build_small.txt; echo "tests at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="43:107 42:053 41:067 36:067" OUT=$R/strided timeout 150 bash scripts/ab_variants.sh | tail -6
NEW=/tmp/small/build PREV=/tmp/cand/build PROGS="42:009|093|136|145 43:036|083|105" OUT=$R/small timeout 150 bash scripts/ab_variants.sh | tail -9
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
# Issue 26's host-time target: W4's six einsums, wall µs per call from C++ (<= 15) beside GPU µs.
SOLDER_CACHE_DIR=/tmp/gc-cand timeout 60 /tmp/cand/build/solder bench w4_einsum_1 w4_einsum_2 w4_einsum_3 w4_einsum_4 w4_einsum_5 w4_einsum_6 --peers off 2>&1 | tail -9 | tee $R/w4_host.txt
SOLDER_CACHE_DIR=/tmp/sc-44 PYTHONPATH=/tmp/cand/build/python timeout $((585-SECONDS)) python3 bench/variants.py --seed 44 --time-budget $((560-SECONDS)) -o $R/variants_seed44.json > $R/variants_seed44.txt 2>&1
echo "sweep exit $? at ${SECONDS}s" | tee -a $R/times.txt; grep -A48 "== status" $R/variants_seed44.txt | head -56
