# The landing candidate (interleave only where streamed element-by-element operands outnumber
# vector ones; div_f16) against cfbd80a, same run: the interleaved programs, call129's losers
# and the f16 divisions of seeds 28-33 (softmax by hand: exp rounded to f16, so its division
# takes div_f16), A/B alternating; then a fresh seed (34) beside torch.compile.
#   Before: git archive -o .devbase/prev.tar cfbd80a
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
(bash scripts/build_archive.sh prev _solder > /tmp/br-prev.txt 2>&1 &)
bash scripts/build_patched.sh main '' _solder || exit 1
until grep -qE "build (ok|FAILED)" /tmp/br-prev.txt 2>/dev/null; do sleep 2; done; tail -1 /tmp/br-prev.txt
echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/main/build PREV=/tmp/prev/build OUT=$R/ab PROGS="27:049 28:012|131 29:036|066 30:082|149 31:095|144 32:105|108|126 33:038|061|067|068|074|080|082|088" bash scripts/ab_variants.sh > /dev/null 2>&1
tail -25 $R/ab/ab.txt
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-34 PYTHONPATH=/tmp/main/build/python timeout $((535-SECONDS)) python3 bench/variants.py --seed 34 --time-budget $((510-SECONDS)) -o $R/variants_seed34.json > $R/variants_seed34.txt 2>&1
echo "sweep exit $? $SECONDS s"; grep -A45 "== status" $R/variants_seed34.txt | head -50
