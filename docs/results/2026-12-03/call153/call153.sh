# Divisions under narrow results: which form. cand (the tree: div_narrow, the reciprocal's product
# with a subnormal divisor scaled) against f16 (call153/narrow_f16.patch: div_f16, the product and
# one correction, call150's form, whose registers send bf16 softmax H=65536 to the looped row) and
# main 9abec40 (prev), on the bool-masked softmaxes and W5's softmax; H=65536's other plans pinned.
#   git archive -o .devbase/prev.tar 9abec40; carry [".devbase"]
R=$OUT; mkdir -p $R; D=docs/results/2026-12-03/call153
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh cand '' _solder solder_cli || exit 1
bash scripts/build_patched.sh f16 $D/narrow_f16.patch _solder solder_cli || exit 1
[ -x /tmp/prev/build/solder ] || bash scripts/build_archive.sh prev _solder solder_cli || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/cand/build PREV=/tmp/f16/build PROGS="38:013|116 32:020 34:028 36:066 39:007" OUT=$R/ab timeout 200 bash scripts/ab_variants.sh > $R/ab_log.txt 2>&1
cat $R/ab/ab.txt; echo "ab at ${SECONDS}s" | tee -a $R/times.txt
rm -rf $R/ab/x/r[234]*.json
for b in cand f16 prev cand f16 prev; do
  SOLDER=/tmp/$b/build/solder SOLDER_CACHE_DIR=/tmp/gc-$b timeout 100 bash bench/experiments/plan_grid.sh $D/grid.txt | grep -v "^|--\|^| case" | sed "s/(scheduler)/$b/; s/| \([a-z_]*=[^|]*\) |/| \1 $b |/" >> $R/grid.md
done
sort -s -t'|' -k2,2 $R/grid.md; echo "grid at ${SECONDS}s" | tee -a $R/times.txt
