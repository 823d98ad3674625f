# (1) Pins of the outer_norm plan on the transposed by-hand norms it now takes (their outputs in
# eager's transposed layout): seed 15 #066 #135, seed 16 #065 #009. (2) Seed 17 sweep on main.
R=$OUT; mkdir -p /tmp/o $R/x
[ -x /tmp/new/build/solder ] || bash scripts/build_archive.sh new solder _solder
pin() { seed=$1 re=$2 plan=$3; P=(); [ -n "$plan" ] && P=(--plan "$plan")
  SOLDER_CACHE_DIR=/tmp/sc-pin PYTHONPATH=/tmp/new/build/python timeout 60 python3 bench/variants.py --seed $seed --only "$re" --no-probe --no-peers --time-budget 40 "${P[@]}" -o /tmp/o/p.json > /tmp/o/p.txt 2>&1
  python3 -c "import json,sys; [print(r['name'][:44], '|', sys.argv[1] or '(scheduler)', '|', r.get('solder_us'), r.get('pct_copy'), r.get('status'), str(r.get('error') or '')[:90], r.get('plans')) for r in json.load(open('/tmp/o/p.json'))['programs']]" "$plan" 2>&1 | tee -a $R/pins.txt; }
for p in "" "cluster=1" "cluster=2" "cluster=4" "cluster=16" "threads=512" "threads=256" "persistent_batch=0"; do
  [ $SECONDS -gt 200 ] && break
  pin 15 '^(066|135) ' "$p"; pin 16 '^(065|009) ' "$p"; done
echo "pins done $SECONDS s"
SOLDER_CACHE_DIR=/tmp/sc-17 PYTHONPATH=/tmp/new/build/python timeout $((595-SECONDS)) python3 bench/variants.py --seed 17 --time-budget $((575-SECONDS)) -o $R/x/variants_seed17.json > $R/x/variants_seed17.txt 2>&1
echo "sweep exit $? $SECONDS s"; grep -A40 "== status" $R/x/variants_seed17.txt | head -60
cd $R && tar -cf x.tar x && rm -rf x
