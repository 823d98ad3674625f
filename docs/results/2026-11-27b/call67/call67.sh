# Full reductions over sliced rows (rows in flight, even passes: main 37d9113 = new) against
# HEAD~1 (prev): gpu_row_unroll_test on new, the full reductions of slices of seeds
# 10, 12, 13, 14, 16, 17 new/prev/new/prev, then seed 17 #059 beside torch.compile.
R=$OUT; mkdir -p /tmp/o $R/x
(bash scripts/build_archive.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash scripts/build_archive.sh new solder _solder gpu_row_unroll_test > /tmp/o/br-new.txt 2>&1
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-new.txt /tmp/o/br-prev.txt; echo "built at $SECONDS s"
SOLDER_CACHE_DIR=/tmp/sc-t timeout 200 /tmp/new/build/tests/gpu_row_unroll_test --gtest_brief=1 > $R/t-rowunroll.txt 2>&1; echo "gpu_row_unroll_test exit $? $SECONDS s"; tail -3 $R/t-rowunroll.txt; grep -A5 Failure $R/t-rowunroll.txt | head -20
n=0
for which in new prev new prev; do
  for sr in "10 070" "12 112" "13 044|120" "14 064" "16 115" "17 059"; do set -- $sr; n=$((n+1))
    SOLDER_CACHE_DIR=/tmp/sc-$which PYTHONPATH=/tmp/$which/build/python timeout 60 python3 bench/variants.py --seed $1 --only "^($2) " --no-probe --no-peers --time-budget 30 -o $R/x/r$n-$which-$1.json > $R/x/r$n.txt 2>&1
  done; echo "pass $which $SECONDS s"
done
python3 bench/ab_table.py $R/x > $R/ab.txt 2>&1; cat $R/ab.txt
python3 -c "
import json,glob
for f in sorted(glob.glob('$R/x/r*-new-*.json'))[:6]:
  for r in json.load(open(f))['programs']: print(r['name'][:50], r.get('plans'))"
SOLDER_CACHE_DIR=/tmp/sc-new PYTHONPATH=/tmp/new/build/python timeout 90 python3 bench/variants.py --seed 17 --only '^(059) ' --no-probe --time-budget 60 -o $R/x/peers17.json > $R/x/peers17.txt 2>&1
python3 -c "import json; [print(r['name'][:50], r.get('solder_us'), r.get('compile_us'), r.get('pct_copy')) for r in json.load(open('$R/x/peers17.json'))['programs']]"
cd $R && tar -cf x.tar x && rm -rf x
