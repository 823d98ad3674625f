# Where the transposed-pointwise gap goes (prepared 2026-11-27): (1) pins of the transpose plan
# (tiles, threads, blocks per SM) on seed 16 #084 #125 #033 and seed 15 #050 #011 (Solder only);
# (2) ncu (last, below) of seed 16 #084 (sigmoid of a transposed f32 4096x3000 into f16: the transpose template
# at 79 % of a copy, 1.25x torch.compile), Solder's kernel beside torch.compile's Triton kernel.
# Builds main (prev.tar).
R=$OUT; mkdir -p /tmp/o
bash .devbase/br.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1; cat /tmp/o/br-prev.txt; echo "built at $SECONDS s"
pin() { seed=$1 re=$2 plan=$3; [ $SECONDS -gt 330 ] && return; P=(); [ -n "$plan" ] && P=(--plan "$plan")
  PYTHONPATH=/tmp/prev/build/python timeout 60 python3 bench/variants.py --seed $seed --only "$re" --no-probe --no-peers --time-budget 40 "${P[@]}" -o /tmp/o/p.json > /tmp/o/p.txt 2>&1
  python3 -c "import json,sys; [print(r['name'][:44], '|', sys.argv[1] or '(scheduler)', '|', r.get('solder_us'), r.get('pct_copy'), r.get('status'), str(r.get('error') or '')[:90], r.get('plans')) for r in json.load(open('/tmp/o/p.json'))['programs']]" "$plan" 2>&1 | tee -a $R/pins.txt; }
for p in "" "tile_rows=32" "tile_cols=32" "tile_rows=32,tile_cols=32" "threads=512" "threads=256" "min_blocks=8" "tile_rows=32,threads=256,min_blocks=8"; do
  pin 16 '^(084|125|033) ' "$p"; pin 15 '^(050|011) ' "$p"; done
# (3) Small programs (seed 16's seven under 5 MB, 1-3 us over torch.compile): with and without
# the L2 flush (a spin kernel in its place), beside torch.compile: is the gap cold code and
# constants (Solder's cubins are 14-70 KB)?
for fl in "" "--no-l2-flush"; do
  [ $SECONDS -gt 420 ] && break
  PYTHONPATH=/tmp/prev/build/python timeout 150 python3 bench/variants.py --seed 16 --only '^(143|140|006|063|123|131|138|149|112) ' --no-probe --time-budget 120 $fl -o $R/small$fl.json > /tmp/o/small.txt 2>&1
  python3 -c "import json,sys; [print(sys.argv[1] or 'flush', r['name'][:40], r.get('solder_us'), r.get('compile_us')) for r in json.load(open(sys.argv[2]))['programs']]" "$fl" "$R/small$fl.json" | tee -a $R/small.txt
done
for prog in 084; do for k in solder_transpose triton; do
  [ $SECONDS -gt 500 ] && break
  PYTHONPATH=/tmp/prev/build/python timeout 120 ncu --clock-control none -k "regex:$k" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
    python3 bench/variants.py --seed 16 --only "^($prog) " --no-probe --time-budget 20 -o /tmp/o/ncu.json > $R/ncu-$prog-$k.txt 2>&1
  echo "ncu $prog $k exit $? $SECONDS s"; grep -E "Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Block Size|Grid Size|Warp Cycles Per Issued|Stall" $R/ncu-$prog-$k.txt | head -14
done; done
echo "done at $SECONDS s"
