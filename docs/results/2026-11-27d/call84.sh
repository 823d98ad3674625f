# Why small programs trail torch.compile by ~1 us (seeds 20/21's worst lists: 0.0-0.3 MB
# programs at 4.6-6.7 us against 3.8-5.4): each timed beside torch.compile with the L2 flushed
# (the sweep's way) and without it (a spin kernel instead: code and constants stay cached),
# and the outer reductions pinned to unroll=1 (less code to fetch cold). Then the Python GPU
# tests. main = this tree.
R=$OUT; mkdir -p /tmp/o $R/x
rm -rf /tmp/new && mkdir -p /tmp/new/src && tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/new/src
cmake -S /tmp/new/src -B /tmp/new/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(command -v python3) > /tmp/o/b.log 2>&1 && cmake --build /tmp/new/build -j 16 --target solder _solder >> /tmp/o/b.log 2>&1 && echo "build ok $SECONDS s" || { tail -20 /tmp/o/b.log; exit 1; }
run() {  # seed progs tag [args...]
  s=$1 p=$2 t=$3; shift 3
  PYTHONPATH=/tmp/new/build/python SOLDER_CACHE_DIR=/tmp/sc-g timeout 120 python3 bench/variants.py --seed $s --only "^($p) " --no-probe --time-budget 100 "$@" -o $R/x/$t-$s.json > $R/x/$t-$s.txt 2>&1
  python3 -c "import json,sys; [print(sys.argv[1], sys.argv[2], r['name'][:60], 'solder', round(r.get('solder_us') or -1,2), 'compile', round((r.get('peers') or {}).get('compile_us') or r.get('compile_us') or -1, 2), r.get('plans')) for r in json.load(open(sys.argv[3]))['programs']]" $t $s $R/x/$t-$s.json 2>&1 | tee -a $R/grid.txt
  echo "$t $s done $SECONDS s"
}
run 20 "002|043|091" flush
run 21 "092|034" flush
run 20 "002|043|091" noflush --no-l2-flush
run 21 "092|034" noflush --no-l2-flush
run 20 "043" unroll1 --no-peers --plan unroll=1
run 21 "092" unroll1 --no-peers --plan unroll=1
PYTHONPATH=/tmp/new/build/python timeout $((590-SECONDS)) python3 -m unittest discover -s python/tests > $R/x/python-gpu.txt 2>&1; echo "python tests exit $? $SECONDS s"; tail -3 $R/x/python-gpu.txt; grep -E "^(FAIL|ERROR):" $R/x/python-gpu.txt | head
cd $R && tar -cf x.tar x && rm -rf x
