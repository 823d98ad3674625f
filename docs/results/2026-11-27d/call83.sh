# main (this tree: both phased-rows patches, the bool-mask rule, the few-rows rule): seed 19
# #121 (f32 layer norm 100x333, the one few-rows program whose plan the last rule changed and
# that call80 did not time) under the scheduler and pinned to the phased plan it had before,
# new/pinned/new/pinned; then fresh seeds 20 and 21, each beside torch.compile in the same
# process, one after the other on this one GPU.
R=$OUT; mkdir -p /tmp/o $R/x
rm -rf /tmp/new && mkdir -p /tmp/new/src && tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/new/src
cmake -S /tmp/new/src -B /tmp/new/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(command -v python3) > /tmp/o/b.log 2>&1 && cmake --build /tmp/new/build -j 16 --target solder _solder >> /tmp/o/b.log 2>&1 && echo "build ok $SECONDS s" || { tail -20 /tmp/o/b.log; exit 1; }
pin() {  # seed prog pin
  P=(); [ -n "$3" ] && P=(--plan "$3")
  PYTHONPATH=/tmp/new/build/python SOLDER_CACHE_DIR=/tmp/sc-g timeout 40 python3 bench/variants.py --seed $1 --only "^($2) " --no-probe --no-peers --time-budget 15 "${P[@]}" -o /tmp/o/p.json > /tmp/o/p.txt 2>&1
  python3 -c "import json,sys; [print('s'+sys.argv[1]+'#'+sys.argv[2], sys.argv[3] or '(scheduler)', round(r.get('solder_us') or -1,2), r.get('plans'), r.get('status')) for r in json.load(open('/tmp/o/p.json'))['programs']]" "$1" "$2" "$3" 2>&1 | tee -a $R/grid.txt
}
for i in 1 2; do pin 19 121 ""; pin 19 121 "vec=4,col_vec=1,threads=64,threads_per_row=64,rows_per_block=1"; done
sweep() {  # seed
  SOLDER_CACHE_DIR=/tmp/sc-$1 PYTHONPATH=/tmp/new/build/python timeout $((595-SECONDS)) python3 bench/variants.py --seed $1 --time-budget $2 -o $R/x/variants_seed$1.json > $R/x/variants_seed$1.txt 2>&1
  echo "sweep $1 exit $? $SECONDS s"
}
sweep 20 $((330-SECONDS))
sweep 21 $((570-SECONDS))
for s in 20 21; do echo "== seed $s"; grep -A30 "== status" $R/x/variants_seed$s.txt | head -34; done
cd $R && tar -cf x.tar x && rm -rf x
