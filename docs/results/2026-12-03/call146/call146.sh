# Owed from stop 56: gpu_row_unroll_test at a1272ad's kernels (TheSweepsShapes at M = 999 and
# 99). New, against a1272ad (prev): partial-reduction transposes admitted where their tiles and
# grid splits (not their tiles alone) reach the SMs (seed 38 #132; cand8: splits of 8 reduced
# indices instead of 16, split8.patch; pinned plans of #132); per-row inputs (a bool mask per
# row) loaded with the inner template's next-row prefetch (softmax with mask_bool_col programs).
R=$OUT; mkdir -p $R; D=docs/results/2026-12-03/call146
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_row_unroll_test || exit 1
bash scripts/build_patched.sh cand8 $D/split8.patch _solder solder_cli || exit 1
bash scripts/build_archive.sh prev _solder solder_cli || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
( timeout 150 /tmp/cand/build/tests/gpu_row_unroll_test --gtest_brief=1 2>&1; echo "exit $?" ) | tail -15 | tee $R/gpu_row_unroll_test.txt
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
for b in cand cand8 prev; do
  SOLDER=/tmp/$b/build/solder SOLDER_CACHE_DIR=/tmp/gc-$b timeout 100 bash bench/experiments/plan_grid.sh $D/grid.txt | grep -v "^|--\|^| case" | sed "s/(scheduler)/$b/" >> $R/grid.md
done
sort -s -t'|' -k2,2 $R/grid.md; echo "grid at ${SECONDS}s" | tee -a $R/times.txt
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="38:132|013|116 32:020 34:028 36:066 33:082" OUT=$R/ab timeout 240 bash scripts/ab_variants.sh > $R/ab_log.txt 2>&1
cat $R/ab/ab.txt; echo "ab at ${SECONDS}s" | tee -a $R/times.txt
# Seed 38 #147 (f32 rows of 5140, a [1, H] bool mask; the 2-D plan's last pass idles 4 % of its
# lanes): pinned plans, one process each, Solder only.
for pl in "" "one_row row_unroll=1 threads=256" "row_unroll=1" "threads=256 row_unroll=2" "row_unroll=4"; do
  SOLDER_CACHE_DIR=/tmp/pin147 PYTHONPATH=/tmp/cand/build/python timeout 60 python3 bench/variants.py --programs 38:147 --plan "$pl" \
    --no-probe --no-peers -o /tmp/p147.json > /dev/null 2>&1
  python3 -c "import json,sys; r=json.load(open('/tmp/p147.json'))['programs'][0]; print('147 |', sys.argv[1] or '(scheduler)', '|', r.get('solder_us'), r.get('pct_copy'), r.get('plans'))" "$pl" | tee -a $R/pins147.txt
done
echo "pins at ${SECONDS}s" | tee -a $R/times.txt
rm -rf $R/ab/x/r[234]*.json
