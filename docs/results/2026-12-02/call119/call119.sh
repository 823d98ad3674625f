# Next stop's third call: a fresh seed (31) beside torch.compile on main (with whatever
# call117's A/B landed), the whole call.
R=$OUT
bash scripts/build_patched.sh main '' solder _solder || exit 1
SOLDER_CACHE_DIR=/tmp/sc-31 PYTHONPATH=/tmp/main/build/python timeout $((575-SECONDS)) python3 bench/variants.py --seed 31 --time-budget $((555-SECONDS)) -o $R/variants_seed31.json > $R/variants_seed31.txt 2>&1
echo "sweep exit $? $SECONDS s"; grep -A40 "== status" $R/variants_seed31.txt | head -45
