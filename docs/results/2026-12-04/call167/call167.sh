# call167: (1) rows of a wave or two spread over more threads (few_rows_threads: under 256
# threads an SM in all): same-run A/B against b232100 (git archive -o .devbase/prev.tar; carry
# [".devbase"]) over the 14 programs of seeds 40-46 whose plans change; (2) grid.txt (no peers).
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
( bash scripts/build_archive.sh prev _solder solder_cli > $R/build_prev.txt 2>&1 ) &
bash scripts/build_patched.sh cand '' _solder solder_cli || exit 1
wait; tail -1 $R/build_prev.txt; echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/cand/build PREV=/tmp/prev/build OUT=$R/ab PROGS="40:128|135 41:065|089|101 42:035|066 43:103|156 45:060|062|070 46:041|072" bash scripts/ab_variants.sh | tail -16
cp $R/ab/ab.txt $R/ab.txt; rm -rf $R/ab/x
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-grid PYTHONPATH=/tmp/cand/build/python timeout $((590-SECONDS)) python3 bench/experiments/variant_plan_grid.py docs/results/2026-12-04/call167/grid.txt --no-peers > $R/grid.md 2> $R/grid.err
echo "grid exit $? at ${SECONDS}s" | tee -a $R/times.txt
cut -c1-150 $R/grid.md
