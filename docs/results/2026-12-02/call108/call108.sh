# A fresh seed (29) beside torch.compile on main after this stop's change (inner resident weights
# only where blocks take several rows), the whole call.
R=$OUT
bash scripts/build_patched.sh main '' solder _solder || exit 1
SOLDER_CACHE_DIR=/tmp/sc-29 PYTHONPATH=/tmp/main/build/python timeout $((575-SECONDS)) python3 bench/variants.py --seed 29 --time-budget $((555-SECONDS)) -o $R/variants_seed29.json > $R/variants_seed29.txt 2>&1
echo "sweep exit $? $SECONDS s"; grep -A40 "== status" $R/variants_seed29.txt | head -45
