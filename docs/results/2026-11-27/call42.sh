# (1) main c6fdb7d (no phased rows where only outputs vary along rows) against prev = 25c826c on
# seed 12 #020 and seed 10 #139. (2) Probe: outer_norm declined (SOLDER_PROBE_NO_OUTER_NORM=1, so
# inner takes the transposed-input norms with staged tiles) against outer_norm, same build.
R=$OUT; mkdir -p /tmp/o
(bash .devbase/br.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash .devbase/br.sh probe solder _solder gpu_executor_test gpu_flat_index_test > /tmp/o/br-probe.txt 2>&1
until grep -qE "build ok|FAILED" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-*.txt; echo "built at $SECONDS s"
n=0
run() { which=$1 seed=$2 re=$3; n=$((n+1)); PP=/tmp/probe/build/python; [ $which = prev ] && PP=/tmp/prev/build/python; E=; [ $which = probe ] && E=1
  env ${E:+SOLDER_PROBE_NO_OUTER_NORM=1} SOLDER_CACHE_DIR=/tmp/sc-$which-$n PYTHONPATH=$PP timeout 90 python3 bench/variants.py --seed $seed --only "$re" --no-probe --no-peers --time-budget 80 -o /tmp/o/r$n-$which-$seed.json > /tmp/o/r$n.txt 2>&1; }

NORMS='^(057|093|011|029|009|017|002|109|063|127) '
for round in A B B A; do
  if [ $round = A ]; then run prev 12 '^020 '; run prev 10 '^139 '; run new 12 "$NORMS"; else run new 12 '^020 '; run new 10 '^139 '; run probe 12 "$NORMS"; fi
  echo "== $round $SECONDS s"
done
python3 - <<'PY' | tee $R/ab.txt
import json, glob, re
rows = {}
for f in sorted(glob.glob('/tmp/o/r*-*.json'), key=lambda f: int(re.search(r'/r(\d+)-', f).group(1))):
    which, seed = re.search(r'-(prev|new|probe)-(\d+)\.json', f).groups()
    for r in json.load(open(f))['programs']:
        d = rows.setdefault((int(seed), r['name']), {}).setdefault(which, [])
        d.append((r.get('solder_us') or float('nan'), r.get('solder_first_call_ms') or float('nan'), r.get('status')))
for (s, n), d in sorted(rows.items()):
    us = lambda w: ' '.join(f"{a:6.1f}" for a, _, _ in d.get(w, []))
    print(f"seed {s:2d} {n[:56]:56s} us prev {us('prev')} new {us('new')} probe {us('probe')} {[x[2] for x in d.get('new', []) + d.get('probe', [])]}")
PY
S=/tmp/probe/build/solder
for e in "" 1; do for c in "examples/outer_layer_norm_T_f16.fusion --size B=5120 --size H=6144" "examples/outer_softmax_dim0_f32.fusion --size B=8192 --size H=4096" "examples/outer_rms_norm_T_f32.fusion --size B=16384 --size H=512"; do
  env ${e:+SOLDER_PROBE_NO_OUTER_NORM=1} SOLDER_CACHE_DIR=/tmp/sc-b$e timeout 60 $S bench $c --peers off --budget-ms 40 --json /tmp/o/b.json > /dev/null 2>&1
  python3 -c "import json,sys; r=json.load(open('/tmp/o/b.json'))['records'][0]; print('probe=$e', sys.argv[1], round(r['time_us']['median'],1), 'us', round(r['pct_of_copy'],1), '%copy')" "$c"; done; done 2>&1 | tee $R/named.txt
T=/tmp/probe/build/tests
timeout $((590-SECONDS)) $T/gpu_executor_test --gtest_brief=1 '--gtest_filter=*EveryWorkload*:*NonContiguous*:*PhaseShiftedPointwiseRows*:*Views*' > /tmp/o/t1.log 2>&1; echo "gpu_executor exit $? $SECONDS s"; grep -E "^\[  (PASSED|FAILED)" /tmp/o/t1.log | tee $R/tests.txt
