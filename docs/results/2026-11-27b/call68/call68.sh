# Pins on the full reductions of slices (new = main 37d9113): rows in flight 2-8, threads.
R=$OUT; mkdir -p /tmp/o
[ -x /tmp/new/build/solder ] || bash scripts/build_archive.sh new solder _solder
pin() { seed=$1 re=$2 plan=$3; P=(); [ -n "$plan" ] && P=(--plan "$plan")
  SOLDER_CACHE_DIR=/tmp/sc-pin PYTHONPATH=/tmp/new/build/python timeout 60 python3 bench/variants.py --seed $seed --only "$re" --no-probe --no-peers --time-budget 40 "${P[@]}" -o /tmp/o/p.json > /tmp/o/p.txt 2>&1
  python3 -c "import json,sys; [print(r['name'][:44], '|', sys.argv[1] or '(scheduler)', '|', r.get('solder_us'), r.get('pct_copy'), r.get('status'), str(r.get('error') or '')[:60], r.get('plans')) for r in json.load(open('/tmp/o/p.json'))['programs']]" "$plan" 2>&1 | tee -a $R/pins.txt; }
for p in "" "row_unroll=8" "row_unroll=6" "row_unroll=2" "threads=256,row_unroll=4" "threads=96,row_unroll=4" "threads=96,row_unroll=8"; do
  [ $SECONDS -gt 250 ] && break
  pin 17 '^(059) ' "$p"; pin 13 '^(120) ' "$p"; done
echo "done $SECONDS s"
