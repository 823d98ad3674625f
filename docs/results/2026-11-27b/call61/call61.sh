# (1) Golden kernels owed a same-run measurement: prev = 27907f9, new = main; prev/new/prev/new,
# then solder compare. (2) Pins of the transpose plan on seed 16 #084 #125 #033, seed 15 #050 #011.
R=$OUT; mkdir -p /tmp/o
(bash scripts/build_archive.sh prev solder > /tmp/o/br-prev.txt 2>&1 &)
bash scripts/build_archive.sh new solder _solder > /tmp/o/br-new.txt 2>&1
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-new.txt /tmp/o/br-prev.txt; echo "built at $SECONDS s"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
i=0
for which in prev new prev new; do i=$((i+1))
  SOLDER_CACHE_DIR=/tmp/sc-g-$which timeout 120 /tmp/$which/build/solder bench examples/outer_colsum_bf16.fusion --size B=37 --size H=1030 --peers off --json $R/colsum-$which-$i.json > $R/colsum-$which-$i.txt 2>&1
  SOLDER_CACHE_DIR=/tmp/sc-g-$which timeout 200 /tmp/$which/build/solder bench w5_gelu_bias_bf16 --size B=8192 --size H=4096,20480,65536 --peers off --json $R/w5-$which-$i.json > $R/w5-$which-$i.txt 2>&1
  echo "pass $i $which $SECONDS s"
done
for t in colsum w5; do /tmp/new/build/solder compare $R/$t-prev-3.json $R/$t-new-4.json | tee -a $R/compare.txt; /tmp/new/build/solder compare $R/$t-prev-1.json $R/$t-new-2.json | tee -a $R/compare.txt; done
pin() { seed=$1 re=$2 plan=$3; [ $SECONDS -gt 540 ] && return; P=(); [ -n "$plan" ] && P=(--plan "$plan")
  SOLDER_CACHE_DIR=/tmp/sc-pin PYTHONPATH=/tmp/new/build/python timeout 60 python3 bench/variants.py --seed $seed --only "$re" --no-probe --no-peers --time-budget 40 "${P[@]}" -o /tmp/o/p.json > /tmp/o/p.txt 2>&1
  python3 -c "import json,sys; [print(r['name'][:44], '|', sys.argv[1] or '(scheduler)', '|', r.get('solder_us'), r.get('pct_copy'), r.get('status'), str(r.get('error') or '')[:90], r.get('plans')) for r in json.load(open('/tmp/o/p.json'))['programs']]" "$plan" 2>&1 | tee -a $R/pins.txt; }
for p in "" "tile_rows=32" "tile_cols=32" "tile_rows=32,tile_cols=32" "threads=512" "threads=256" "min_blocks=8" "tile_rows=32,threads=256,min_blocks=8"; do
  pin 16 '^(084|125|033) ' "$p"; pin 15 '^(050|011) ' "$p"; done
echo "done at $SECONDS s"
