# ncu durations of small programs' kernels, Solder's against torch.compile's (Triton), to tell
# whether call84's ~1 us gap (no L2 flush: 5.57 vs 3.9 us, 4.19 vs 3.46) is in the kernels.
R=$OUT; mkdir -p /tmp/o $R/x
rm -rf /tmp/new && mkdir -p /tmp/new/src && tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/new/src
cmake -S /tmp/new/src -B /tmp/new/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(command -v python3) > /tmp/o/b.log 2>&1 && cmake --build /tmp/new/build -j 16 --target solder _solder >> /tmp/o/b.log 2>&1 && echo "build ok $SECONDS s" || { tail -20 /tmp/o/b.log; exit 1; }
prof() {  # seed prog kernel-regex tag
  PYTHONPATH=/tmp/new/build/python timeout 120 ncu --clock-control none -k "regex:$3" --launch-skip 5 --launch-count 3 --section SpeedOfLight --section LaunchStats --section Occupancy \
    python3 bench/variants.py --seed $1 --only "^($2) " --no-probe $([ $3 = triton ] || echo --no-peers) --time-budget 20 -o /tmp/o/ncu.json > $R/x/ncu-$1-$2-$4.txt 2>&1
  echo "== ncu $1 $2 $4 exit $? $SECONDS s"; grep -E "^  [a-zA-Z_]+.*\(|Duration|Registers Per|Block Size|Grid Size|Achieved Occupancy" $R/x/ncu-$1-$2-$4.txt | head -16
}
prof 20 043 solder solder; prof 20 043 triton compile
prof 21 092 solder solder; prof 21 092 triton compile
prof 20 091 solder solder; prof 20 091 triton compile
cd $R && tar -cf x.tar x && rm -rf x
