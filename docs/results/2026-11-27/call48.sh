# ropezero (a pad's shifted vectors wholly outside its window read as zeros without loads; a
# window's index in 32 bits where every index fits) against prev = main 3834a51, on the rope
# programs of seeds 3, 6-13 and seed 8 #067 (CPU explain: the programs whose plans change);
# then the shift GPU tests and memcheck of the rope cases.
R=$OUT; mkdir -p /tmp/o
(bash .devbase/br.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash .devbase/br.sh new solder _solder gpu_shift_loads_test gpu_symbolic_cat_test > /tmp/o/br-new.txt 2>&1
until grep -qE "build ok|FAILED" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-new.txt /tmp/o/br-prev.txt; echo "built at $SECONDS s"
n=0
run() { which=$1 seed=$2 re=$3; n=$((n+1)); PP=/tmp/$which/build/python
  SOLDER_CACHE_DIR=/tmp/sc-$which-$n PYTHONPATH=$PP timeout 90 python3 bench/variants.py --seed $seed --only "$re" --no-probe --no-peers --time-budget 60 -o /tmp/o/r$n-$which-$seed.json > /tmp/o/r$n.txt 2>&1; }
for which in new prev new prev; do
  [ $SECONDS -gt 330 ] && { echo "skip pass $which (time)"; continue; }
  run $which 8 '^(014|085|146|067) '
  run $which 9 '^(002|104) '
  run $which 10 '^(086|106|110) '
  run $which 11 '^(077|012) '
  run $which 12 '^(056|130|153|156) '
  run $which 13 '^(018|033|055|147|153) '
  run $which 3 '^(061) '; run $which 6 '^(031) '; run $which 7 '^(123) '
  S=/tmp/$which/build/solder
  SOLDER_CACHE_DIR=/tmp/sc-n$which-$n timeout 60 $S bench examples/rope_rotate_half_bf16.fusion --peers off --budget-ms 40 --json /tmp/o/b.json > /dev/null 2>&1
  python3 -c "import json; r=json.load(open('/tmp/o/b.json'))['records'][0]; print('$which rope_rotate_half_bf16', r.get('case'), round(r['time_us']['median'],1), 'us', round(r['pct_of_copy'],1), '%copy')" >> $R/named.txt 2>&1
  echo "== $which $SECONDS s"
done
cat $R/named.txt
python3 - <<'PY' | tee $R/ab.txt
import json, glob, re
rows = {}
for f in sorted(glob.glob('/tmp/o/r*-*.json'), key=lambda f: int(re.search(r'/r(\d+)-', f).group(1))):
    which, seed = re.search(r'-(prev|new)-(\d+)\.json', f).groups()
    for r in json.load(open(f))['programs']:
        d = rows.setdefault((int(seed), r['name']), {}).setdefault(which, [])
        d.append((r.get('solder_us') or float('nan'), r.get('status')))
for (s, n), d in sorted(rows.items()):
    us = lambda w: ' '.join(f"{a:6.1f}" for a, _ in d.get(w, []))
    print(f"seed {s:2d} {n[:56]:56s} us prev {us('prev')} new {us('new')} {[x[1] for x in d.get('new', [])]}")
PY
echo "timings done at $SECONDS s"
T=/tmp/new/build/tests
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $T/gpu_shift_loads_test --gtest_brief=1 '--gtest_filter=*Rope*:*Padded*' > $R/memcheck.txt 2>&1; echo "memcheck exit $? $SECONDS s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt
for spec in "gpu_shift_loads_test -*Rope*:*Padded*" "gpu_symbolic_cat_test *"; do set -f; set -- $spec; set +f; [ $SECONDS -gt 500 ] && { echo "skip $1 (time)"; continue; }; timeout $((560-SECONDS)) $T/$1 --gtest_brief=1 "--gtest_filter=$2" > /tmp/o/t-$1.log 2>&1; echo "$1 exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' /tmp/o/t-$1.log | tr '\n' ' ')"; grep -B2 -A3 Failure /tmp/o/t-$1.log | head -12; done 2>&1 | tee $R/tests.txt
