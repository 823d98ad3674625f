# Divisions under narrow results, final form (cand: the tree, `div_narrow`: the reciprocal's
# product, the IEEE division only for subnormal divisors) against main 9abec40 (prev): the
# bool-masked softmaxes, W5's softmax sizes (every changed golden kernel) and seed 40 #026.
# Then which f32 divisions take the IEEE division's slow path (zero, NaN, subnormal numerators),
# and a guard's cost and exactness (bench/experiments/f32_div_paths.cu), with the SASS of a / b.
#   git archive -o .devbase/prev.tar 9abec40; carry [".devbase"]
R=$OUT; mkdir -p $R; D=docs/results/2026-12-03/call152
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh cand '' _solder solder_cli || exit 1
bash scripts/build_archive.sh prev _solder solder_cli || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="38:013|116 32:020 34:028 33:082 36:066 39:007 40:026|147|072" OUT=$R/ab timeout 240 bash scripts/ab_variants.sh > $R/ab_log.txt 2>&1
cat $R/ab/ab.txt; echo "ab at ${SECONDS}s" | tee -a $R/times.txt
rm -rf $R/ab/x/r[234]*.json
for b in cand prev cand prev; do
  SOLDER=/tmp/$b/build/solder SOLDER_CACHE_DIR=/tmp/gc-$b timeout 100 bash bench/experiments/plan_grid.sh $D/grid.txt | grep -v "^|--\|^| case" | sed "s/(scheduler)/$b/" >> $R/grid.md
done
sort -s -t'|' -k2,2 $R/grid.md; echo "grid at ${SECONDS}s" | tee -a $R/times.txt
nvcc -O3 -arch=sm_90 bench/experiments/f32_div_paths.cu -o /tmp/f32_div && timeout 120 /tmp/f32_div | tee $R/f32_div_paths.txt
cuobjdump -sass -fun '_Z3runILi0EEvPKfS1_Pfl' /tmp/f32_div > $R/div_sass.txt 2>&1 || cuobjdump -sass /tmp/f32_div > $R/div_sass.txt 2>&1
grep -c "" $R/div_sass.txt; grep -n "FCHK\|MUFU\|CALL\|BRA" $R/div_sass.txt | head -20
echo "micro at ${SECONDS}s" | tee -a $R/times.txt
