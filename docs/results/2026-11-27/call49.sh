# ropezero2 (a pad's shifted vectors wholly outside its window read as zeros, no index32) against
# prev = main 3834a51 on six rope programs (two passes); then a fresh seed 14 sweep of main
# beside torch.compile.
R=$OUT; mkdir -p /tmp/o
(bash .devbase/br.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash .devbase/br.sh new solder _solder > /tmp/o/br-new.txt 2>&1
until grep -qE "build ok|FAILED" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-new.txt /tmp/o/br-prev.txt; echo "built at $SECONDS s"
n=0
run() { which=$1 seed=$2 re=$3; n=$((n+1)); PP=/tmp/$which/build/python
  SOLDER_CACHE_DIR=/tmp/sc-$which-$n PYTHONPATH=$PP timeout 60 python3 bench/variants.py --seed $seed --only "$re" --no-probe --no-peers --time-budget 40 -o /tmp/o/r$n-$which-$seed.json > /tmp/o/r$n.txt 2>&1; }
for which in new prev; do
  run $which 13 '^(018|153) '; run $which 8 '^(085|014) '; run $which 10 '^(106) '; run $which 11 '^(077) '
  echo "== $which $SECONDS s"
done
python3 - <<'PY' | tee $R/ab.txt
import json, glob, re
rows = {}
for f in sorted(glob.glob('/tmp/o/r*-*.json'), key=lambda f: int(re.search(r'/r(\d+)-', f).group(1))):
    which, seed = re.search(r'-(prev|new)-(\d+)\.json', f).groups()
    for r in json.load(open(f))['programs']:
        rows.setdefault((int(seed), r['name']), {}).setdefault(which, []).append((r.get('solder_us') or float('nan'), r.get('status')))
for (s, n), d in sorted(rows.items()):
    us = lambda w: ' '.join(f"{a:6.1f}" for a, _ in d.get(w, []))
    print(f"seed {s:2d} {n[:56]:56s} us prev {us('prev')} new {us('new')} {[x[1] for x in d.get('new', [])]}")
PY
B=$((430-SECONDS-40)); echo "sweep budget $B s at $SECONDS s"
PYTHONPATH=/tmp/prev/build/python timeout $((470-SECONDS)) python3 bench/variants.py --seed 14 --time-budget $B -o $R/variants_seed14.json > $R/variants_seed14.txt 2>&1; echo "sweep exit $? at $SECONDS s"; grep -A60 "% of a same-bytes" $R/variants_seed14.txt | grep -v "^ *solder_\|^ *view" | head -40
