# ncu of the seed-18 programs furthest behind torch.compile (#140 var_mean over dim 0 of bf16
# 1024x12288, outer grid split, 1.63x; #097 amax over dim 1 of f16 4096^2, 1.14x; #141 layer norm
# of a bf16 slice, 1.12x), Solder's kernel beside Triton's; and seed 16 #065 (outer_norm
# log_softmax) at the scheduler's plan and the best pin (threads=256,cluster=8). Main + this tree.
R=$OUT; mkdir -p /tmp/o $R/x
rm -rf /tmp/new && mkdir -p /tmp/new/src && tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/new/src
cmake -S /tmp/new/src -B /tmp/new/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(command -v python3) > /tmp/o/b.log 2>&1 && cmake --build /tmp/new/build -j 16 --target solder _solder >> /tmp/o/b.log 2>&1 && echo "build ok $SECONDS s" || { tail -20 /tmp/o/b.log; exit 1; }
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats"
prof() {  # seed prog kernel-regex tag [pin]
  [ $SECONDS -gt 540 ] && return
  P=(); [ -n "${5:-}" ] && P=(--plan "$5")
  PYTHONPATH=/tmp/new/build/python timeout 100 ncu --clock-control none -k "regex:$3" --launch-skip 3 --launch-count 1 $S \
    python3 bench/variants.py --seed $1 --only "^($2) " --no-probe $([ $3 = triton ] || echo --no-peers) --time-budget 20 "${P[@]}" -o /tmp/o/ncu.json > $R/x/ncu-$1-$2-$4.txt 2>&1
  echo "== ncu $1 $2 $4 exit $? $SECONDS s"; grep -E "^  [a-z_]+.*\(|Duration|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Size|Grid Size|Warp Cycles Per Issued|Issued Warp Per|No Eligible|Stall" $R/x/ncu-$1-$2-$4.txt | head -16
}
prof 18 140 solder solder; prof 18 140 triton triton
prof 18 097 solder solder; prof 18 097 triton triton
prof 16 065 solder sched; prof 16 065 solder pin256c8 threads=256,cluster=8
prof 18 141 solder solder; prof 18 141 triton triton
cd $R && tar -cf x.tar x && rm -rf x
