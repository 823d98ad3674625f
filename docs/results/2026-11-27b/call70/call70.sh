# Pins on seed 18's two worst: #082 (pointwise over an expanded f32 weight and a bool mask:
# phased vectors of 8 with the weight element by element, or vectors of 4) and #140 (outer
# var_mean over dim 0 of bf16 1024x12288, grid split).
R=$OUT; mkdir -p /tmp/o
[ -x /tmp/new/build/solder ] || bash scripts/build_archive.sh new solder _solder
pin() { seed=$1 re=$2 plan=$3; P=(); [ -n "$plan" ] && P=(--plan "$plan")
  SOLDER_CACHE_DIR=/tmp/sc-pin PYTHONPATH=/tmp/new/build/python timeout 60 python3 bench/variants.py --seed $seed --only "$re" --no-probe --no-peers --time-budget 40 "${P[@]}" -o /tmp/o/p.json > /tmp/o/p.txt 2>&1
  python3 -c "import json,sys; [print(r['name'][:44], '|', sys.argv[1] or '(scheduler)', '|', r.get('solder_us'), r.get('pct_copy'), r.get('status'), str(r.get('error') or '')[:80], r.get('plans')) for r in json.load(open('/tmp/o/p.json'))['programs']]" "$plan" 2>&1 | tee -a $R/pins.txt; }
for p in "" "vec=4,col_vec=0" "vec=4,col_vec=0,row_unroll=1" "row_unroll=1"; do pin 18 '^(082) ' "$p"; done
for p in "" "unroll=1" "rows_per_block=32" "threads=512" "rows_per_block=8"; do pin 18 '^(140) ' "$p"; done
echo "done $SECONDS s"
