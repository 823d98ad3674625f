# Branch innershift (rebased on main 30a4e9f) against main: seed 9 #144, seed 10 #067/#095 and the
# plan grid; innershift's GPU tests (+ memcheck); the owed gpu_executor/gpu_shift_loads on main.
R=$OUT; S=build-device/solder; T=build-device/tests; mkdir -p /tmp/o
(bash .devbase/br.sh inner solder _solder gpu_inner_shift_test gpu_shift_loads_test gpu_inner_staged_test gpu_split_rows_test > /tmp/o/br-inner.txt 2>&1 &)
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log
until grep -qE "build ok|FAILED" /tmp/o/br-inner.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-inner.txt; echo "built at $SECONDS s"
run() { which=$1 seed=$2 re=$3; PP=$PWD/build-device/python; [ $which = inner ] && PP=/tmp/inner/build/python
  PYTHONPATH=$PP timeout 60 python3 bench/variants.py --seed $seed --only "$re" --no-probe --time-budget 50 -o /tmp/o/v$seed-$which.json > $R/v$seed-$which.txt 2>&1; }
for which in main inner main inner; do run $which 9 '^(144|047) '; run $which 10 '^(067|095|012) '; cp /tmp/o/v9-$which.json /tmp/o/v9-$which-$SECONDS.json; cp /tmp/o/v10-$which.json /tmp/o/v10-$which-$SECONDS.json; echo "== $which $SECONDS s"; done
python3 - <<'PY' | tee $R/ab.txt
import json, glob
for s in (9, 10):
    rows = {}
    for which in ('main', 'inner'):
        for f in sorted(glob.glob(f'/tmp/o/v{s}-{which}-*.json')):
            for r in json.load(open(f))['programs']:
                rows.setdefault(r['name'], {}).setdefault(which, []).append((r.get('solder_us') or float('nan'), r.get('compile_us') or float('nan'), r.get('status')))
    for n, d in sorted(rows.items()):
        fmt = lambda w: ' '.join(f"{a:6.1f}" for a, _, _ in d.get(w, []))
        print(f"seed {s:2d} {n[:60]:60s} main {fmt('main')} inner {fmt('inner')} compile {' '.join(f'{c:6.1f}' for _, c, _ in d.get('inner', []))} {[x[2] for x in d.get('inner', [])]}")
PY
SOLDER=/tmp/inner/build/solder timeout 150 bench/experiments/plan_grid.sh /tmp/inner/bench/experiments/innershift_grid.txt > $R/grid.md 2>&1; cat $R/grid.md
echo "timings done at $SECONDS s"
IT=/tmp/inner/build/tests
for spec in "$IT/gpu_inner_shift_test *" "$IT/gpu_shift_loads_test *" "$IT/gpu_inner_staged_test *" "$IT/gpu_split_rows_test *" "$T/gpu_executor_test *EveryWorkload*:*NonContiguous*:*PhaseShiftedPointwiseRows*:*ReductionsOverDimsApartInMemory*" "$T/gpu_shift_loads_test *"; do set -f; set -- $spec; set +f; [ $SECONDS -gt 480 ] && { echo "skip $1 (time)"; continue; }; b=$(basename $1); timeout $((520-SECONDS)) $1 --gtest_brief=1 "--gtest_filter=$2" > /tmp/o/t-$b.log 2>&1; echo "$1 exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' /tmp/o/t-$b.log | tr '\n' ' ')"; grep -B2 -A3 Failure /tmp/o/t-$b.log | head -12; done 2>&1 | tee $R/tests.txt
[ $SECONDS -lt 540 ] && timeout $((585-SECONDS)) compute-sanitizer --tool memcheck $IT/gpu_inner_shift_test --gtest_brief=1 '--gtest_filter=*PinnedPlans*' > $R/memcheck.txt 2>&1; echo "memcheck exit $?"; tail -4 $R/memcheck.txt
