# Tiles that reduce their columns (942e880) against 717b29d (.devbase/prev.tar), new/prev/new/prev:
# every sweep program of seeds 9-23 with a pre_mul reduction over a T/perm x (the class, and the
# ones beside it whose plans must not move); the class beside torch.compile; the new GPU test,
# gpu_transpose_test and gpu_outer_reduction_test; compute-sanitizer on the split form (#159).
R=$OUT; mkdir -p /tmp/o $R/x
rm -rf /tmp/cand && mkdir -p /tmp/cand/src && tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/cand/src
(bash scripts/build_archive.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
cmake -S /tmp/cand/src -B /tmp/cand/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(command -v python3) > /tmp/o/b.log 2>&1 && cmake --build /tmp/cand/build -j 16 --target solder _solder gpu_transpose_test gpu_outer_reduction_test >> /tmp/o/b.log 2>&1 && echo "build ok cand $SECONDS s" || { tail -20 /tmp/o/b.log; exit 1; }
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-prev.txt; echo "built at $SECONDS s"
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="9:038|114|151 11:010|117 13:003|105 15:155 16:053|074|128 17:098 19:089|159 21:111 22:035|062|098 23:005" OUT=$R bash scripts/ab_variants.sh
for sp in "16 128" "19 159|089" "9 151|114" "22 062|098|035"; do set -- $sp
  SOLDER_CACHE_DIR=/tmp/sc-cand PYTHONPATH=/tmp/cand/build/python timeout 90 python3 bench/variants.py --seed $1 --only "^($2) " --time-budget 60 -o $R/x/peers-$1.json > $R/x/peers-$1.txt 2>&1
done
grep -h -E "^\[" $R/x/peers-*.txt
echo "peers done $SECONDS s"
SOLDER_CACHE_DIR=/tmp/sc-t timeout 200 /tmp/cand/build/tests/gpu_transpose_test --gtest_brief=1 > $R/t-transpose.txt 2>&1; echo "gpu_transpose_test exit $? $SECONDS s"; grep -E "FAILED|PASSED|Failure" $R/t-transpose.txt | head -10
command -v compute-sanitizer >/dev/null && PYTHONPATH=/tmp/cand/build/python timeout 60 compute-sanitizer --print-limit 5 python3 bench/variants.py --seed 19 --only '^(159|089) ' --no-probe --no-peers --time-budget 10 -o /tmp/o/s.json 2>&1 | grep -E "ERROR SUMMARY|status" | head
SOLDER_CACHE_DIR=/tmp/sc-t timeout $((590-SECONDS)) /tmp/cand/build/tests/gpu_outer_reduction_test --gtest_brief=1 > $R/t-outer.txt 2>&1; echo "gpu_outer_reduction_test exit $? $SECONDS s"; grep -E "FAILED|PASSED" $R/t-outer.txt | head
cd $R && tar -cf x.tar x && rm -rf x
