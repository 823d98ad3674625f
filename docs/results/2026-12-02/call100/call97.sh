# Next stop's second call: main (with whatever call96 landed) on a fresh seed (27) beside
# torch.compile, the whole call for the sweep.
R=$OUT
bash scripts/build_patched.sh main '' solder _solder || exit 1
SOLDER_CACHE_DIR=/tmp/sc-27 PYTHONPATH=/tmp/main/build/python timeout $((570-SECONDS)) python3 bench/variants.py --seed 27 --time-budget $((550-SECONDS)) -o $R/variants_seed27.json > $R/variants_seed27.txt 2>&1
echo "sweep exit $? $SECONDS s"; grep -A40 "== status" $R/variants_seed27.txt | head -45
