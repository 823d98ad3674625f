# Pins on seed 19's worst (main 7bce3be + revert = this tree): #080 pointwise over an expanded
# bf16 [128, 1000, 333] (phased vec 8, 64 threads, 4 rows in flight: 27 % of a copy, 136 us
# against 74.7) and #146 masked softmax by hand, bf16 64x1000x768 (52 %, 139 against 82).
R=$OUT; mkdir -p /tmp/o
rm -rf /tmp/new && mkdir -p /tmp/new/src && tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/new/src
cmake -S /tmp/new/src -B /tmp/new/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(command -v python3) > /tmp/o/b.log 2>&1 && cmake --build /tmp/new/build -j 16 --target solder _solder >> /tmp/o/b.log 2>&1 && echo "build ok $SECONDS s" || { tail -20 /tmp/o/b.log; exit 1; }
pin() {  # prog pin
  [ $SECONDS -gt 280 ] && return
  P=(); [ -n "$2" ] && P=(--plan "$2")
  PYTHONPATH=/tmp/new/build/python SOLDER_CACHE_DIR=/tmp/sc-g timeout 40 python3 bench/variants.py --seed 19 --only "^($1) " --no-probe --no-peers --time-budget 20 "${P[@]}" -o /tmp/o/p.json > /tmp/o/p.txt 2>&1
  python3 -c "import json,sys; [print('s19#'+sys.argv[1], sys.argv[2] or '(scheduler)', round(r.get('solder_us') or -1,1), r.get('pct_copy') and round(r['pct_copy'],1), r.get('plans'), r.get('status')) for r in json.load(open('/tmp/o/p.json'))['programs']]" "$1" "$2" 2>&1 | tee -a $R/grid.txt
}
for p in "" row_unroll=1 threads=128 threads=256,row_unroll=1 vec=1,col_vec=0,threads=256,row_unroll=1 vec=1,col_vec=0,threads=256 vec=4,threads=64 threads=64,row_unroll=2; do pin 080 "$p"; done
for p in "" threads_per_row=64 prefetch=0 threads_per_row=32,rows_per_block=4 threads_per_row=128,rows_per_block=2; do pin 146 "$p"; done
