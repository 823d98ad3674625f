# call170: a fresh seed (47) of the variant sweep on this session's code (outer_norm's retry
# order, few-row spreading, plain cluster reductions, the phased-rows launch check).
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh cand '' _solder solder_cli || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-47 PYTHONPATH=/tmp/cand/build/python timeout $((400-SECONDS)) python3 bench/variants.py --seed 47 --time-budget $((380-SECONDS)) -o $R/variants_seed47.json > $R/variants_seed47.txt 2>&1
echo "sweep exit $? at ${SECONDS}s" | tee -a $R/times.txt; grep -A48 "== status" $R/variants_seed47.txt | head -60
