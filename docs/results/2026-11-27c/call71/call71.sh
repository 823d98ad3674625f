# Phased rows first only where cheaper by the access model (new = main bc4ed17) against its
# parent (prev): the two seed-18 programs whose plans change (#082, #107) and two phased ones
# that keep their plans (#011, #121), new/prev/new/prev.
R=$OUT; mkdir -p /tmp/o $R/x
(bash scripts/build_archive.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash scripts/build_archive.sh new solder _solder > /tmp/o/br-new.txt 2>&1
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-new.txt /tmp/o/br-prev.txt; echo "built at $SECONDS s"
n=0
for which in new prev new prev; do n=$((n+1))
  SOLDER_CACHE_DIR=/tmp/sc-$which PYTHONPATH=/tmp/$which/build/python timeout 60 python3 bench/variants.py --seed 18 --only '^(082|107|011|121) ' --no-probe --no-peers --time-budget 40 -o $R/x/r$n-$which-18.json > $R/x/r$n.txt 2>&1
done
python3 bench/ab_table.py $R/x | tee $R/ab.txt
python3 -c "
import json
for r in json.load(open('$R/x/r1-new-18.json'))['programs']: print(r['name'][:50], r.get('plans'))"
# Python tests (GPU ones included) on main's build
PYTHONPATH=/tmp/new/build/python timeout 300 python3 -m unittest discover -s python/tests > $R/python.txt 2>&1; echo "python exit $?"; tail -4 $R/python.txt
grep -E "FAIL|ERROR|eager" $R/python.txt | head
cd $R && tar -cf x.tar x && rm -rf x
