# main (outer_norm leaves transposed-input norms whose rows inner stages to inner) against prev =
# c6fdb7d, on every program whose scheduler changes in seeds 8-12 (CPU explain) and the named
# transposed norms; then GPU tests of both forms and memcheck of the staged inner plans.
R=$OUT; T=build-device/tests; mkdir -p /tmp/o
(bash .devbase/br.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log
until grep -qE "build ok|FAILED" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-prev.txt; echo "built at $SECONDS s"
n=0
run() { which=$1 seed=$2 re=$3; n=$((n+1)); PP=$PWD/build-device/python; [ $which = prev ] && PP=/tmp/prev/build/python
  SOLDER_CACHE_DIR=/tmp/sc-$which-$n PYTHONPATH=$PP timeout 90 python3 bench/variants.py --seed $seed --only "$re" --no-probe --no-peers --time-budget 80 -o /tmp/o/r$n-$which-$seed.json > /tmp/o/r$n.txt 2>&1; }
for which in prev new new prev; do
  run $which 12 '^(002|009|057|111|123) '
  run $which 8 '^(007|028|042|100|116) '
  run $which 9 '^(071|102|130|152|155|157) '
  run $which 10 '^(027|066) '
  run $which 11 '^(024|040|104) '
  for c in "examples/outer_rms_norm_T_f32.fusion --size B=16384 --size H=512" "bench/programs/outer_layer_norm_w_T_f32.fusion --size B=5120 --size H=6144" "examples/outer_layer_norm_T_f16.fusion --size B=5120 --size H=6144"; do
    S=build-device/solder; [ $which = prev ] && S=/tmp/prev/build/solder
    SOLDER_CACHE_DIR=/tmp/sc-n$which timeout 60 $S bench $c --peers off --budget-ms 40 --json /tmp/o/b.json > /dev/null 2>&1
    python3 -c "import json,sys; r=json.load(open('/tmp/o/b.json'))['records'][0]; print('$which', sys.argv[1], round(r['time_us']['median'],1), 'us', round(r['pct_of_copy'],1), '%copy')" "$c"; done >> $R/named.txt 2>&1
  echo "== $which $SECONDS s"
done
sort -k2 $R/named.txt
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
for spec in "gpu_outer_norm_test *NormsOfTransposedViews*" "gpu_inner_staged_test *"; do set -f; set -- $spec; set +f; [ $SECONDS -gt 520 ] && { echo "skip $1 (time)"; continue; }; timeout $((570-SECONDS)) $T/$1 --gtest_brief=1 "--gtest_filter=$2" > /tmp/o/t-$1.log 2>&1; echo "$1 exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' /tmp/o/t-$1.log | tr '\n' ' ')"; grep -B2 -A3 Failure /tmp/o/t-$1.log | head -12; done 2>&1 | tee $R/tests.txt
[ $SECONDS -lt 540 ] && timeout $((590-SECONDS)) compute-sanitizer --tool memcheck --error-exitcode 9 $T/gpu_inner_staged_test --gtest_brief=1 '--gtest_filter=*NormsOfTransposedInputs*' > $R/memcheck.txt 2>&1; echo "memcheck exit $?"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt
