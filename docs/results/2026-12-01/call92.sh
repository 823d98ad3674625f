# 60d847b (splits up to a wave, the parallel finish) against 717b29d (.devbase/prev.tar),
# new/prev/new/prev on the split cases call91 timed (seed 13 #003 and seed 22 #098 lost there);
# the GPU tests of partial reductions through tiles; then a fresh seed (26) beside torch.compile
# with the time left.
R=$OUT; mkdir -p /tmp/o $R/x
rm -rf /tmp/cand && mkdir -p /tmp/cand/src && tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/cand/src
(bash scripts/build_archive.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
cmake -S /tmp/cand/src -B /tmp/cand/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(command -v python3) > /tmp/o/b.log 2>&1 && cmake --build /tmp/cand/build -j 16 --target solder _solder gpu_transpose_test >> /tmp/o/b.log 2>&1 && echo "build ok cand $SECONDS s" || { tail -20 /tmp/o/b.log; exit 1; }
SOLDER_CACHE_DIR=/tmp/sc-t timeout 150 /tmp/cand/build/tests/gpu_transpose_test --gtest_brief=1 --gtest_filter='*PartialReductions*' > $R/t-transpose.txt 2>&1; echo "gpu_transpose_test (partial) exit $? $SECONDS s"; grep -E "FAILED|PASSED|Failure" $R/t-transpose.txt | head -10
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-prev.txt
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="13:003 22:098 19:089|159 16:128|053" OUT=$R/ab bash scripts/ab_variants.sh > /dev/null 2>&1; cat $R/ab/ab.txt; rm -rf $R/ab/x
echo "ab done $SECONDS s"
SOLDER_CACHE_DIR=/tmp/sc-26 PYTHONPATH=/tmp/cand/build/python timeout $((515-SECONDS)) python3 bench/variants.py --seed 26 --time-budget $((490-SECONDS)) -o $R/variants_seed26.json > $R/variants_seed26.txt 2>&1
echo "sweep exit $? $SECONDS s"; grep -A40 "== status" $R/variants_seed26.txt | head -45
