# The untimed odd-rows-with-one-weight patch (oddweights.patch: 16-bit rows of odd length with
# one weight phase-shifted, the weight element by element) against main, new/prev/new/prev, on
# the 8 programs of seeds 15-19 whose plans change; then gpu_executor's W1-W5 sweep on the
# candidate (its new odd-row rms cases) and compute-sanitizer on one of them. Carry nothing:
# builds main (this tree) and main + the patch. Then run next/call79.sh (pins on seed 19 #080,
# #146) on the same warm machine.
R=$OUT; mkdir -p /tmp/o $R/x
rm -rf /tmp/cand /tmp/prev && mkdir -p /tmp/cand/src /tmp/prev/src
tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/prev/src
tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/cand/src
(cd /tmp/cand/src && patch -p1 -s < docs/results/2026-11-27c/next/oddweights.patch || echo "PATCH FAILED")
b() { cmake -S /tmp/$1/src -B /tmp/$1/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(command -v python3) > /tmp/o/b-$1.log 2>&1 && cmake --build /tmp/$1/build -j 8 --target solder _solder $2 >> /tmp/o/b-$1.log 2>&1 && echo "build ok $1" || { tail -20 /tmp/o/b-$1.log; echo "build FAILED $1"; }; }
(b prev "" > /tmp/o/br-prev.txt 2>&1 &)
b cand gpu_executor_test
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-prev.txt; echo "built at $SECONDS s"
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="15:051 16:096|159 17:030|069|115 18:029 19:047" OUT=$R bash scripts/ab_variants.sh
timeout 200 /tmp/cand/build/tests/gpu_executor_test --gtest_brief=1 --gtest_filter='*NormsOverTheHiddenSweep*:*NormsAcrossHiddenSizes*' > $R/t-exec.txt 2>&1; echo "executor exit $?"; tail -3 $R/t-exec.txt
command -v compute-sanitizer >/dev/null && PYTHONPATH=/tmp/cand/build/python timeout 120 compute-sanitizer --print-limit 5 python3 bench/variants.py --seed 19 --only '^(047) ' --no-probe --no-peers --time-budget 10 -o /tmp/o/s.json 2>&1 | grep -E "ERROR SUMMARY|status"
cd $R && tar -cf x.tar x && rm -rf x
