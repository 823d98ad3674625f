# Seed 11's worst programs under pinned plans (Solder only, --no-peers), main 1dcccc4: which plan
# choices would pay. Base runs first and last (noise).
R=$OUT; mkdir -p /tmp/o
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log; echo "built at $SECONDS s"
i=0
pin() { re=$1 plan=$2; i=$((i+1)); PYTHONPATH=$PWD/build-device/python timeout 90 python3 bench/variants.py --seed 11 --only "^($re) " --no-probe --no-peers --plan "$plan" --time-budget 80 -o /tmp/o/p$i.json > /tmp/o/p$i.txt 2>&1
  python3 -c "
import json,sys
for r in json.load(open('/tmp/o/p$i.json'))['programs']:
    print(f\"{r['name'][:58]:58s} {sys.argv[1] or '(scheduler)':42s} {r.get('solder_us') or float('nan'):8.1f} us {r.get('pct_copy') or 0:6.1f} % {r.get('status')} {r.get('error','')[:80]}\")
" "$plan"; }
BASE='141|016|066|143|019|053|077|080|132|142|081|131|126'
{
pin "$BASE" ""
pin "141|016|066" "vec=4,col_vec=0"
pin "019" "vec=4,shift"
pin "053" "threads=256"
pin "053" "threads=128"
pin "053" "one_row,threads=256"
pin "077" "vec=4"
pin "077" "threads=128"
pin "077" "threads=512"
pin "080" "tile_rows=32,tile_cols=64,threads=256"
pin "080" "threads=256,min_blocks=4"
pin "132|142|081|131" "unroll=8,min_blocks=2"
pin "132|142|081|131" "rows_per_block=32"
pin "132|142|081|131" "threads=512,rows_per_block=32"
pin "$BASE" ""
} 2>&1 | tee $R/pins.txt
echo "done at $SECONDS s"
