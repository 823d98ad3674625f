# Outer (column) reductions that are latency-bound: seed 18 #140 (var_mean over dim 0 of bf16
# 1024x12288, U2 at 4 blocks an SM after U4 spilled: ~7 round trips a thread) pinned to more
# rows in flight at fewer blocks an SM; issue 25's column var_mean (bf16 100352x512) and column
# sum (bf16 16384x3072) under the same pins. Main + this tree (built in call74 if still warm).
R=$OUT; mkdir -p /tmp/o
if [ ! -x /tmp/new/build/solder ]; then
  rm -rf /tmp/new && mkdir -p /tmp/new/src && tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/new/src
  cmake -S /tmp/new/src -B /tmp/new/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(command -v python3) > /tmp/o/b.log 2>&1 && cmake --build /tmp/new/build -j 16 --target solder _solder >> /tmp/o/b.log 2>&1 && echo "build ok $SECONDS s" || { tail -20 /tmp/o/b.log; exit 1; }
fi
for p in "" unroll=2,min_blocks=4 unroll=4,min_blocks=3 unroll=4,min_blocks=2 unroll=8,min_blocks=2 unroll=8,min_blocks=3 unroll=4,min_blocks=3,rows_per_block=8 unroll=2,min_blocks=4,rows_per_block=8 unroll=4,min_blocks=4,max_registers=80; do
  [ $SECONDS -gt 500 ] && break
  P=(); [ -n "$p" ] && P=(--plan "$p")
  PYTHONPATH=/tmp/new/build/python SOLDER_CACHE_DIR=/tmp/sc-g timeout 60 python3 bench/variants.py --seed 18 --only "^(140) " --no-probe --no-peers --time-budget 30 "${P[@]}" -o /tmp/o/p.json > /tmp/o/p.txt 2>&1
  python3 -c "import json,sys; [print('s18#140', sys.argv[1] or '(scheduler)', round(r.get('solder_us') or -1,1), r.get('plans'), r.get('status')) for r in json.load(open('/tmp/o/p.json'))['programs']]" "$p" 2>&1 | tee -a $R/grid.txt
  for c in "outer_var_mean_bf16 B=100352 H=512" "outer_colsum_bf16 B=16384 H=3072"; do set -- $c
    SOLDER_CACHE_DIR=/tmp/sc-g timeout 60 /tmp/new/build/solder bench examples/$1.fusion --size $2 --size $3 --peers off "${P[@]}" --json /tmp/o/g.json > /tmp/o/g.txt 2>&1
    python3 -c "import json,sys; r=json.load(open('/tmp/o/g.json'))['records'][0]; print(sys.argv[2], sys.argv[1] or '(scheduler)', round(r['time_us']['median'],1), round(r['pct_of_copy'],1), r['kernel_resources'][0].get('params'), r['kernel_resources'][0].get('registers'))" "$p" "$1" 2>&1 | tail -1 | tee -a $R/grid.txt
  done
done
