# Small programs of seed 16 with and without the L2 flush beside torch.compile; ncu of seed 16
# #084's transpose kernel beside torch.compile's Triton kernel. Uses /tmp/new from call61.
R=$OUT; mkdir -p /tmp/o $R/x
[ -x /tmp/new/build/solder ] || bash scripts/build_archive.sh new solder _solder
for fl in "" "--no-l2-flush"; do
  PYTHONPATH=/tmp/new/build/python timeout 150 python3 bench/variants.py --seed 16 --only '^(143|140|006|063|123|131|138|149|112) ' --no-probe --time-budget 120 $fl -o $R/x/small$fl.json > /tmp/o/small.txt 2>&1
  python3 -c "import json,sys; [print(sys.argv[1] or 'flush', r['name'][:40], r.get('solder_us'), r.get('compile_us'), r.get('status')) for r in json.load(open(sys.argv[2]))['programs']]" "$fl" "$R/x/small$fl.json" | tee -a $R/small.txt
done
for prog in 084; do for k in solder_transpose triton; do
  [ $SECONDS -gt 500 ] && break
  PYTHONPATH=/tmp/new/build/python timeout 120 ncu --clock-control none -k "regex:$k" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section SourceCounters \
    python3 bench/variants.py --seed 16 --only "^($prog) " --no-probe --time-budget 20 -o /tmp/o/ncu.json > $R/x/ncu-$prog-$k.txt 2>&1
  echo "ncu $prog $k exit $? $SECONDS s"; grep -E "Duration|DRAM Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Registers Per|Block Size|Grid Size|Warp Cycles Per Issued|Bank|Shared" $R/x/ncu-$prog-$k.txt | head -24
done; done
cd $R && tar -cf x.tar x && rm -rf x
echo "done at $SECONDS s"
