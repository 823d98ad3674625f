# Two untimed patches, stacked (oddweights.patch: 16-bit rows of odd length with one weight
# phase-shifted, the weight element by element; f32phased.patch: f32 rows phase-shifted in
# vectors of 4), against main, new/prev/new/prev, on the programs of seeds 15-19 whose plans
# change (8 and 12, disjoint, so each figure belongs to one patch); then the GPU tests of both
# (gpu_executor's hidden-size sweeps, gpu_inner_shift) and compute-sanitizer on one program of
# each. Carry nothing: builds main (this tree) and main + the patches. Then run next/call79.sh
# (pins on seed 19 #080, #146) on the same warm machine.
R=$OUT; mkdir -p /tmp/o $R/x
rm -rf /tmp/cand /tmp/prev && mkdir -p /tmp/cand/src /tmp/prev/src
tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/prev/src
tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/cand/src
(cd /tmp/cand/src && for p in oddweights f32phased; do patch -p1 -s < docs/results/2026-11-27c/next/$p.patch || echo "PATCH FAILED $p"; done)
b() { cmake -S /tmp/$1/src -B /tmp/$1/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(command -v python3) > /tmp/o/b-$1.log 2>&1 && cmake --build /tmp/$1/build -j 8 --target solder _solder $2 >> /tmp/o/b-$1.log 2>&1 && echo "build ok $1" || { tail -20 /tmp/o/b-$1.log; echo "build FAILED $1"; }; }
(b prev "" > /tmp/o/br-prev.txt 2>&1 &)
b cand "gpu_executor_test gpu_inner_shift_test"
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-prev.txt; echo "built at $SECONDS s"
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="15:051|037|042|114|137|145 16:096|159 17:030|069|115|079|091 18:029|004|050|060 19:047|060|129" OUT=$R bash scripts/ab_variants.sh
[ $SECONDS -lt 420 ] && timeout 120 /tmp/cand/build/tests/gpu_executor_test --gtest_brief=1 --gtest_filter='*NormsOverTheHiddenSweep*:*NormsAcrossHiddenSizes*' > $R/t-exec.txt 2>&1; echo "executor exit $?"; tail -3 $R/t-exec.txt
[ $SECONDS -lt 480 ] && timeout 90 /tmp/cand/build/tests/gpu_inner_shift_test --gtest_brief=1 > $R/t-shift.txt 2>&1; echo "inner_shift exit $?"; tail -3 $R/t-shift.txt
[ $SECONDS -lt 520 ] && command -v compute-sanitizer >/dev/null && PYTHONPATH=/tmp/cand/build/python timeout 70 compute-sanitizer --print-limit 5 python3 bench/variants.py --seed 19 --only '^(047|129) ' --no-probe --no-peers --time-budget 10 -o /tmp/o/s.json 2>&1 | grep -E "ERROR SUMMARY|status"
cd $R && tar -cf x.tar x && rm -rf x
