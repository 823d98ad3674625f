# This stop's sweep: a fresh seed (32) beside torch.compile on main (split_runs and rope landed).
R=$OUT
bash scripts/build_patched.sh main '' solder _solder || exit 1
echo "built at ${SECONDS}s"
SOLDER_CACHE_DIR=/tmp/sc-32 PYTHONPATH=/tmp/main/build/python timeout $((380-SECONDS)) python3 bench/variants.py --seed 32 --time-budget $((355-SECONDS)) -o $R/variants_seed32.json > $R/variants_seed32.txt 2>&1
echo "sweep exit $? $SECONDS s"; grep -A45 "== status" $R/variants_seed32.txt | head -50
