# Final main: the Python GPU tests, then a seed 18 sweep (fresh programs, beside torch.compile).
R=$OUT; mkdir -p /tmp/o $R/x
bash scripts/build_archive.sh new solder _solder > /tmp/o/br-new.txt 2>&1; cat /tmp/o/br-new.txt
PYTHONPATH=/tmp/new/build/python timeout 120 python3 -m unittest discover -s python/tests > $R/python-gpu.txt 2>&1; echo "python tests exit $? $SECONDS s"; tail -3 $R/python-gpu.txt; grep -E "^(FAIL|ERROR):" $R/python-gpu.txt | head
SOLDER_CACHE_DIR=/tmp/sc-18 PYTHONPATH=/tmp/new/build/python timeout $((595-SECONDS)) python3 bench/variants.py --seed 18 --time-budget $((570-SECONDS)) -o $R/x/variants_seed18.json > $R/x/variants_seed18.txt 2>&1
echo "sweep exit $? $SECONDS s"; grep -A48 "== status" $R/x/variants_seed18.txt | head -64
cd $R && tar -cf x.tar x && rm -rf x
