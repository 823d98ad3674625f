# Branch combo (main 57b8e2f + fullstaged + rowunroll + regmodel, each CPU-verified, disjoint plan
# changes) against prev = main. Solder only (--no-peers), fresh kernel cache per run; then the
# branches' GPU tests and memcheck on combo.
R=$OUT; mkdir -p /tmp/o
(bash .devbase/br.sh combo solder _solder gpu_transpose_test gpu_row_unroll_test gpu_flat_index_test gpu_shift_loads_test gpu_executor_test gpu_inner_shift_test > /tmp/o/br-combo.txt 2>&1 &)
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log
until grep -qE "build ok|FAILED" /tmp/o/br-combo.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-combo.txt; echo "built at $SECONDS s"
n=0
run() { which=$1 seed=$2 re=$3; n=$((n+1)); PP=$PWD/build-device/python; [ $which = new ] && PP=/tmp/combo/build/python
  SOLDER_CACHE_DIR=/tmp/sc-$which-$n PYTHONPATH=$PP timeout 80 python3 bench/variants.py --seed $seed --only "$re" --no-probe --no-peers --time-budget 70 -o /tmp/o/r$n-$which-$seed.json > /tmp/o/r$n.txt 2>&1; }
for which in prev new new prev; do
  run $which 11 '^(129|042|053|121) '
  run $which 10 '^(102|154|156|095) '
  run $which 9 '^(064|085) '
  run $which 8 '^(104|142|046) '
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
[ $SECONDS -lt 420 ] && SOLDER=/tmp/combo/build/solder timeout $((470-SECONDS)) bench/experiments/plan_grid.sh bench/experiments/rowunroll_grid.txt > $R/grid.md 2>&1; tail -30 $R/grid.md
IT=/tmp/combo/build/tests
for spec in "$IT/gpu_transpose_test *" "$IT/gpu_row_unroll_test *" "$IT/gpu_flat_index_test *" "$IT/gpu_shift_loads_test *" "$IT/gpu_executor_test *EveryWorkload*:*NonContiguous*:*PhaseShiftedPointwiseRows*" "$IT/gpu_inner_shift_test *"; do set -f; set -- $spec; set +f; [ $SECONDS -gt 520 ] && { echo "skip $1 (time)"; continue; }; b=$(basename $1); timeout $((560-SECONDS)) $1 --gtest_brief=1 "--gtest_filter=$2" > /tmp/o/t-$b.log 2>&1; echo "$1 exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' /tmp/o/t-$b.log | tr '\n' ' ')"; grep -B2 -A3 Failure /tmp/o/t-$b.log | head -12; done 2>&1 | tee $R/tests.txt
[ $SECONDS -lt 550 ] && timeout $((590-SECONDS)) compute-sanitizer --tool memcheck $IT/gpu_row_unroll_test --gtest_brief=1 '--gtest_filter=*PinnedRows*' > $R/memcheck.txt 2>&1; echo "memcheck exit $?"; tail -4 $R/memcheck.txt
