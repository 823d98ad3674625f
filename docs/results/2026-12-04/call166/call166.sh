# call166: (1) outer_norm's retry after a spill tries the best-ranked shape with all rows in
# shared memory before the same tile so (three programs change plan): same-run A/B against
# dec125b (git archive -o .devbase/prev.tar; carry [".devbase"]); (2) grid.txt: pinned plans of
# the programs slower than torch.compile in seeds 45-46.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
( bash scripts/build_archive.sh prev _solder solder_cli > $R/build_prev.txt 2>&1 ) &
bash scripts/build_patched.sh cand '' _solder solder_cli || exit 1
wait; tail -1 $R/build_prev.txt; echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/cand/build PREV=/tmp/prev/build OUT=$R/ab PROGS="40:079 43:090|158" bash scripts/ab_variants.sh | tail -8
cp $R/ab/ab.txt $R/ab.txt; rm -rf $R/ab/x
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-grid PYTHONPATH=/tmp/cand/build/python timeout $((590-SECONDS)) python3 bench/experiments/variant_plan_grid.py docs/results/2026-12-04/call166/grid.txt > $R/grid.md 2> $R/grid.err
echo "grid exit $? at ${SECONDS}s" | tee -a $R/times.txt
cut -c1-200 $R/grid.md
