# Stop 57's owed timing: the landed kept-tile split rule (3f19fe2, main as it is: cand) against
# a1272ad (prev) on the programs and sizes whose split count it set without a timing of its own
# build (seed 26 #059: 3 splits as a1272ad; 256x128x512: 16 splits of 16, timed at 9 in call147).
# Also builds next/narrow_div.patch (narrow) for call150, which reuses the three builds.
#   git archive -o .devbase/prev.tar a1272ad; carry [".devbase"]
R=$OUT; mkdir -p $R; D=docs/results/2026-12-03/call149
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh cand '' _solder solder_cli || exit 1
bash scripts/build_archive.sh prev _solder solder_cli || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
for b in cand prev; do
  SOLDER=/tmp/$b/build/solder SOLDER_CACHE_DIR=/tmp/gc-$b timeout 100 bash bench/experiments/plan_grid.sh $D/grid.txt | grep -v "^|--\|^| case" | sed "s/(scheduler)/$b/" >> $R/grid.md
done
sort -s -t'|' -k2,2 $R/grid.md; echo "grid at ${SECONDS}s" | tee -a $R/times.txt
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="38:132 26:059 16:007 39:120" OUT=$R/ab timeout 200 bash scripts/ab_variants.sh > $R/ab_log.txt 2>&1
cat $R/ab/ab.txt; echo "ab at ${SECONDS}s" | tee -a $R/times.txt
rm -rf $R/ab/x/r[234]*.json
bash scripts/build_patched.sh narrow docs/results/2026-12-03/next/narrow_div.patch _solder solder_cli | tail -1
echo "narrow built at ${SECONDS}s" | tee -a $R/times.txt
