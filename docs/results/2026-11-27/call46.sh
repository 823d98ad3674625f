# cand46 = main 4f98c6a + keptorder (kept dims in the dominant input's memory order) + phase1
# (phased rows at a phase step of one element) against prev = main, on the 24 programs whose
# plans change in seeds 8-13 (CPU explain); then the new GPU tests and memcheck.
R=$OUT; mkdir -p /tmp/o
(bash .devbase/br.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash .devbase/br.sh new solder _solder gpu_outer_reduction_test gpu_inner_shift_test > /tmp/o/br-new.txt 2>&1
until grep -qE "build ok|FAILED" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-new.txt /tmp/o/br-prev.txt; echo "built at $SECONDS s"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
n=0
run() { which=$1 seed=$2 re=$3; n=$((n+1)); PP=/tmp/$which/build/python
  SOLDER_CACHE_DIR=/tmp/sc-$which-$n PYTHONPATH=$PP timeout 90 python3 bench/variants.py --seed $seed --only "$re" --no-probe --no-peers --time-budget 60 -o /tmp/o/r$n-$which-$seed.json > /tmp/o/r$n.txt 2>&1; }
for which in prev new new prev; do
  [ $SECONDS -gt 430 ] && { echo "skip pass $which (time)"; continue; }
  run $which 8 '^(000|026|051|093|154|155) '
  run $which 9 '^(066|079|146|158) '
  run $which 10 '^(053|119) '
  run $which 11 '^(057|112|113|126|130) '
  run $which 12 '^(052|068|045|060) '
  run $which 13 '^(009|134|122) '
  echo "== $which $SECONDS s"
done
python3 - <<'PY' | tee $R/ab.txt
import json, glob, re
rows = {}
for f in sorted(glob.glob('/tmp/o/r*-*.json'), key=lambda f: int(re.search(r'/r(\d+)-', f).group(1))):
    which, seed = re.search(r'-(prev|new)-(\d+)\.json', f).groups()
    for r in json.load(open(f))['programs']:
        d = rows.setdefault((int(seed), r['name']), {}).setdefault(which, [])
        d.append((r.get('solder_us') or float('nan'), r.get('solder_first_call_ms') or float('nan'), r.get('status')))
for (s, n), d in sorted(rows.items()):
    us = lambda w: ' '.join(f"{a:6.1f}" for a, _, _ in d.get(w, []))
    print(f"seed {s:2d} {n[:56]:56s} us prev {us('prev')} new {us('new')} {[x[2] for x in d.get('new', [])]}")
PY
echo "timings done at $SECONDS s"
T=/tmp/new/build/tests
for spec in "gpu_outer_reduction_test *" "gpu_inner_shift_test *Phased*"; do set -f; set -- $spec; set +f; [ $SECONDS -gt 540 ] && { echo "skip $1 (time)"; continue; }; timeout $((580-SECONDS)) $T/$1 --gtest_brief=1 "--gtest_filter=$2" > /tmp/o/t-$1.log 2>&1; echo "$1 exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' /tmp/o/t-$1.log | tr '\n' ' ')"; grep -B2 -A3 Failure /tmp/o/t-$1.log | head -12; done 2>&1 | tee $R/tests.txt
