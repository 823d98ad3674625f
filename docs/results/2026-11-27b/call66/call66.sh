# A pin grid of the outer_norm plan (threads x cluster) on the transposed by-hand norms whose
# outputs now keep eager's transposed layout: seed 15 #066 #135, seed 16 #065 #107.
R=$OUT; mkdir -p /tmp/o
[ -x /tmp/new/build/solder ] || bash scripts/build_archive.sh new solder _solder
pin() { seed=$1 re=$2 plan=$3; P=(); [ -n "$plan" ] && P=(--plan "$plan")
  SOLDER_CACHE_DIR=/tmp/sc-pin PYTHONPATH=/tmp/new/build/python timeout 60 python3 bench/variants.py --seed $seed --only "$re" --no-probe --no-peers --time-budget 40 "${P[@]}" -o /tmp/o/p.json > /tmp/o/p.txt 2>&1
  python3 -c "import json,sys; [print(r['name'][:44], '|', sys.argv[1] or '(scheduler)', '|', r.get('solder_us'), r.get('pct_copy'), r.get('status'), str(r.get('error') or '')[:60], r.get('plans')) for r in json.load(open('/tmp/o/p.json'))['programs']]" "$plan" 2>&1 | tee -a $R/grid.txt; }
for t in 256 512 1024; do for c in 2 4 8; do
  [ $SECONDS -gt 520 ] && break
  pin 15 '^(066|135) ' "threads=$t,cluster=$c"; pin 16 '^(065|107) ' "threads=$t,cluster=$c"; done; done
pin 15 '^(066|135) ' ""; pin 16 '^(065|107) ' ""
echo "done $SECONDS s"
