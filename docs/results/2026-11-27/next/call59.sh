# Where the transposed-pointwise gap goes (prepared 2026-11-27 16:10): ncu of seed 16 #084
# (sigmoid of a transposed f32 4096x3000 into f16, the transpose template at 79 % of a copy,
# 1.25x torch.compile) and #125 (f32 16384x770, vec 2), Solder's kernel beside torch.compile's
# Triton kernel. Builds main (prev.tar).
R=$OUT; mkdir -p /tmp/o
bash .devbase/br.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1; cat /tmp/o/br-prev.txt; echo "built at $SECONDS s"
for prog in 084 125; do for k in solder_transpose triton; do
  [ $SECONDS -gt 500 ] && break
  PYTHONPATH=/tmp/prev/build/python timeout 120 ncu --clock-control none -k "regex:$k" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
    python3 bench/variants.py --seed 16 --only "^($prog) " --no-probe --time-budget 20 -o /tmp/o/ncu.json > $R/ncu-$prog-$k.txt 2>&1
  echo "ncu $prog $k exit $? $SECONDS s"; grep -E "Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Block Size|Grid Size|Warp Cycles Per Issued|Stall" $R/ncu-$prog-$k.txt | head -14
done; done
echo "done at $SECONDS s"
