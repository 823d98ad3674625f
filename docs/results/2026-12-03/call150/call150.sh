# next/narrow_div.patch (narrow): f32 quotients read only by narrower results take div_f16's
# reciprocal and one correction. Against main (cand) on the bool-masked softmaxes at 56-62 % of a
# copy (hypothesis: the IEEE division's slow path on NaN rows and zero numerators) and on plain
# softmaxes (W5's shape, a short and a long row; a sliced f16 one); pinned plans of seed 39 #007.
# Reuses call149's builds where the machine is still warm.
R=$OUT; mkdir -p $R; D=docs/results/2026-12-03/call150
export SOLDER_ROOT=$PWD
[ -x /tmp/cand/build/solder ] || bash scripts/build_patched.sh cand '' _solder solder_cli || exit 1
[ -x /tmp/narrow/build/solder ] || bash scripts/build_patched.sh narrow docs/results/2026-12-03/next/narrow_div.patch _solder solder_cli || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/narrow/build PREV=/tmp/cand/build PROGS="38:013|116 32:020 34:028 33:082 36:066 39:007" OUT=$R/ab timeout 240 bash scripts/ab_variants.sh > $R/ab_log.txt 2>&1
cat $R/ab/ab.txt; echo "ab at ${SECONDS}s" | tee -a $R/times.txt
rm -rf $R/ab/x/r[234]*.json
for b in narrow cand narrow cand; do
  SOLDER=/tmp/$b/build/solder SOLDER_CACHE_DIR=/tmp/gc-$b timeout 100 bash bench/experiments/plan_grid.sh $D/grid.txt | grep -v "^|--\|^| case" | sed "s/(scheduler)/$b/" >> $R/grid.md
done
sort -s -t'|' -k2,2 $R/grid.md; echo "grid at ${SECONDS}s" | tee -a $R/times.txt
for pl in "" "vec=8 col_vec=1" "vec=8 col_vec=1 prefetch=0" "prefetch=0"; do
  SOLDER_CACHE_DIR=/tmp/pin007 PYTHONPATH=/tmp/cand/build/python timeout 60 python3 bench/variants.py --programs 39:007 --plan "$pl" \
    --no-probe --no-peers -o /tmp/p.json > /dev/null 2>&1
  python3 -c "import json,sys; r=json.load(open('/tmp/p.json'))['programs'][0]; print('39:007 |', sys.argv[1] or '(scheduler)', '|', r.get('solder_us'), r.get('pct_copy'), r.get('plans'))" "$pl" | tee -a $R/pins.txt
done
echo "pins at ${SECONDS}s" | tee -a $R/times.txt
