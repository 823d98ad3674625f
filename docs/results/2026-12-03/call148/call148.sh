# A fresh seed (39) beside torch.compile and eager, on main as call147 built it (rebuilt where the
# machine is a fresh one).
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
[ -x /tmp/cand/build/solder ] || bash scripts/build_patched.sh cand '' _solder solder_cli || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-39 PYTHONPATH=/tmp/cand/build/python timeout $((580-SECONDS)) python3 bench/variants.py --seed 39 --time-budget $((560-SECONDS)) -o $R/variants_seed39.json > $R/variants_seed39.txt 2>&1
echo "sweep exit $? at ${SECONDS}s" | tee -a $R/times.txt; grep -A45 "== status" $R/variants_seed39.txt | head -50
