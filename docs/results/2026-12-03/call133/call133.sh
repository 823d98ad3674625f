# Pointwise 2-D plans with evenly filled passes (the candidate, main's working tree) against
# 3d3f636, A/B alternating, over every seed 34/35 program whose plan changed; then the transpose
# pins of grid.txt (no peers).
#   Before: git archive -o .devbase/prev.tar 3d3f636
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
(bash scripts/build_archive.sh prev _solder > /tmp/br-prev.txt 2>&1 &)
bash scripts/build_patched.sh main '' _solder || exit 1
until grep -qE "build (ok|FAILED)" /tmp/br-prev.txt 2>/dev/null; do sleep 2; done; tail -1 /tmp/br-prev.txt
echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/main/build PREV=/tmp/prev/build OUT=$R/ab PROGS="34:119|125|129 35:005|025|037|080|085|151|158" bash scripts/ab_variants.sh > /dev/null 2>&1
tail -14 $R/ab/ab.txt
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
PYTHONPATH=/tmp/main/build/python SOLDER_CACHE_DIR=/tmp/pg timeout $((590-SECONDS)) python3 bench/experiments/variant_plan_grid.py docs/results/2026-12-03/call133/grid.txt --no-peers > $R/grid.md 2>$R/grid.err
cat $R/grid.md
echo "done at ${SECONDS}s" | tee -a $R/times.txt
