# A fresh seed (40) beside torch.compile and eager, on main with next/narrow_div.patch as call149
# built it (rebuilt where the machine is a fresh one).
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
[ -x /tmp/narrow/build/solder ] || bash scripts/build_patched.sh narrow docs/results/2026-12-03/next/narrow_div.patch _solder solder_cli || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-40 PYTHONPATH=/tmp/narrow/build/python timeout $((580-SECONDS)) python3 bench/variants.py --seed 40 --time-budget $((560-SECONDS)) -o $R/variants_seed40.json > $R/variants_seed40.txt 2>&1
echo "sweep exit $? at ${SECONDS}s" | tee -a $R/times.txt; grep -A45 "== status" $R/variants_seed40.txt | head -50
