# call161: held cuts of several inputs (x + r held in x's slots: seed 43 #076, seed 44 #152;
# seed 42 #036's one-input cut as a control), the working tree against main dc2a26e.
#   git archive -o .devbase/prev.tar dc2a26e; carry [".devbase"]
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
( bash scripts/build_archive.sh prev _solder > $R/build_prev.txt 2>&1 ) &
bash scripts/build_patched.sh cand '' _solder > $R/build_cand.txt 2>&1; wait
tail -1 $R/build_cand.txt $R/build_prev.txt; echo "built at ${SECONDS}s"
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="43:076 44:152 42:036" OUT=$R/multi timeout 100 bash scripts/ab_variants.sh | tail -4
cp $R/multi/ab.txt $R/ab.txt 2>/dev/null; rm -rf $R/multi/x; echo "end at ${SECONDS}s"
