# main + (shift threshold 0.75 unless phased, transpose threads from staged operands, speculative
# first batch of compiles on hosts of >= 8 cores) against prev = main 7d1.. (HEAD before them).
# Solder only (--no-peers), a fresh kernel cache per run (first calls are cold compiles).
R=$OUT; T=build-device/tests; mkdir -p /tmp/o
(bash .devbase/br.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log
until grep -qE "build ok|FAILED" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-prev.txt; echo "built at $SECONDS s"
n=0
run() { which=$1 seed=$2 re=$3; n=$((n+1)); PP=$PWD/build-device/python; [ $which = prev ] && PP=/tmp/prev/build/python
  SOLDER_CACHE_DIR=/tmp/sc-$which-$n PYTHONPATH=$PP timeout 80 python3 bench/variants.py --seed $seed --only "$re" --no-probe --no-peers --time-budget 70 -o /tmp/o/r$n-$which-$seed.json > /tmp/o/r$n.txt 2>&1; }
for which in prev new new prev; do
  run $which 11 '^(019|080|033|111|000|141|095|039|147|107|054) '
  run $which 10 '^(147|084) '
  run $which 9 '^(065) '
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
    ms = lambda w: ' '.join(f"{b:5.0f}" for _, b, _ in d.get(w, []))
    print(f"seed {s:2d} {n[:56]:56s} us prev {us('prev')} new {us('new')} | first ms prev {ms('prev')} new {ms('new')} {[x[2] for x in d.get('new', [])]}")
PY
echo "timings done at $SECONDS s"
for spec in "gpu_transpose_test *" "gpu_shift_loads_test *" "gpu_executor_test *EveryWorkload*:*NonContiguous*:*Transpose*"; do set -f; set -- $spec; set +f; [ $SECONDS -gt 480 ] && { echo "skip $1 (time)"; continue; }; timeout $((540-SECONDS)) $T/$1 --gtest_brief=1 "--gtest_filter=$2" > /tmp/o/t-$1.log 2>&1; echo "$1 exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' /tmp/o/t-$1.log | tr '\n' ' ')"; grep -B2 -A3 Failure /tmp/o/t-$1.log | head -12; done 2>&1 | tee $R/tests.txt
