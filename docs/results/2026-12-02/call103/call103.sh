# A fresh seed (28) beside torch.compile on main after this stop's changes (the lone-block term,
# one_row crossings, kept-tile splits, General-input deference), the whole call.
R=$OUT
bash scripts/build_patched.sh main '' solder _solder || exit 1
SOLDER_CACHE_DIR=/tmp/sc-28 PYTHONPATH=/tmp/main/build/python timeout $((575-SECONDS)) python3 bench/variants.py --seed 28 --time-budget $((555-SECONDS)) -o $R/variants_seed28.json > $R/variants_seed28.txt 2>&1
echo "sweep exit $? $SECONDS s"; grep -A40 "== status" $R/variants_seed28.txt | head -45
