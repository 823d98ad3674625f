# A fresh seed (30) beside torch.compile on main with window_index32 landed (call112 A/B), the whole call.
R=$OUT
bash scripts/build_patched.sh main '' solder _solder || exit 1
SOLDER_CACHE_DIR=/tmp/sc-30 PYTHONPATH=/tmp/main/build/python timeout $((575-SECONDS)) python3 bench/variants.py --seed 30 --time-budget $((555-SECONDS)) -o $R/variants_seed30.json > $R/variants_seed30.txt 2>&1
echo "sweep exit $? $SECONDS s"; grep -A40 "== status" $R/variants_seed30.txt | head -45
