# Same-run A/B of this stop's three untimed changes against f2ca6ae (the lone-block term
# landed): prev = this tree + to_f2ca6ae.patch. Each program is touched by one change only:
#  - flat one_row vectors across one row end unrolled (d2fa274): phased one_row programs;
#  - transpose kept tiles split over gridDim.y in the grid_split form only (aa49dab): seed 26
#    #059 (split), seed 16 #007 (unsplit: must match prev);
#  - outer_norm's General-input deference (a566753): norms of x + r, x transposed.
# Then the GPU tests of the changed paths and a grid of seed 27's #079 and #145.
R=$OUT; D=docs/results/2026-12-02/call102; mkdir -p /tmp/o $R/ab
(bash scripts/build_patched.sh prev $D/to_f2ca6ae.patch solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash scripts/build_patched.sh new '' solder _solder gpu_flat_index_test gpu_transpose_test gpu_outer_norm_test || exit 1
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-prev.txt
NEW=/tmp/new/build PREV=/tmp/prev/build OUT=$R/ab PROGS="27:153|049|071|107|057 16:014|032|086|007 18:150 19:132|135 20:148|151|062|103|112 23:079|060|065 26:026|070|059 17:031|103 21:047|116 24:092" bash scripts/ab_variants.sh
for t in "gpu_flat_index_test *" "gpu_transpose_test *PartialReductionsOfDisagreeing*" "gpu_outer_norm_test *NormOfTransposedPlusResidual*"; do
  set -- $t
  SOLDER_CACHE_DIR=/tmp/sc-t timeout 120 /tmp/new/build/tests/$1 --gtest_brief=1 --gtest_filter="$2" > $R/t-$1.txt 2>&1; echo "$1 exit $?"; grep -E "FAILED|PASSED|Failure" $R/t-$1.txt | head -5
done
PYTHONPATH=/tmp/new/build/python SOLDER_CACHE_DIR=/tmp/sc-g timeout $((590 - SECONDS)) python3 bench/experiments/variant_plan_grid.py $D/grid.txt --no-peers 2>&1 | tee $R/grid.md
cd $R && tar -cf x.tar ab/x && rm -rf ab/x
