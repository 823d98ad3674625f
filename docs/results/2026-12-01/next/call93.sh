# Rows of two warps for tiles that reduce their columns (next/two_warp_rows.patch, untimed;
# CPU kernel simulator xred_ 72 ok incl. 16-bit rows of odd length) against main, in one run:
# the sum over dim 1 of x * y, bf16, x transposed (bench/programs/sum_mul_T_bf16.fusion, in
# the patch) at H = 8191 (main: inner reads x element by element) and H = 8192 (unchanged),
# new/prev/new/prev; then gpu_transpose_test's partial-reduction tests on the patched build
# (their 16-bit odd-K cases take the new rows). Land only if both pass and H = 8191 gains.
R=$OUT; mkdir -p /tmp/o
rm -rf /tmp/cand /tmp/prev && mkdir -p /tmp/cand/src /tmp/prev/src
tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/prev/src
tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/cand/src
(cd /tmp/cand/src && git apply docs/results/2026-12-01/next/two_warp_rows.patch 2>/dev/null || patch -p1 -s < docs/results/2026-12-01/next/two_warp_rows.patch || echo "PATCH FAILED")
b() { cmake -S /tmp/$1/src -B /tmp/$1/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(command -v python3) > /tmp/o/b-$1.log 2>&1 && cmake --build /tmp/$1/build -j 8 --target solder $2 >> /tmp/o/b-$1.log 2>&1 && echo "build ok $1" || { tail -20 /tmp/o/b-$1.log; echo "build FAILED $1"; }; }
(b prev "" > /tmp/o/br-prev.txt 2>&1 &)
b cand gpu_transpose_test
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-prev.txt
for which in cand prev cand prev; do
  for h in 8191 8192; do
    SOLDER_CACHE_DIR=/tmp/sc-$which timeout 60 /tmp/$which/build/solder bench /tmp/cand/src/bench/programs/sum_mul_T_bf16.fusion --size B=2048 --size H=$h --peers off --json /tmp/o/g.json > /tmp/o/g.txt 2>&1
    python3 -c "import json,sys; r=json.load(open('/tmp/o/g.json'))['records'][0]; print(sys.argv[1], 'H='+sys.argv[2], round(r['time_us']['median'],2), r.get('pct_of_copy'))" $which $h 2>&1 | tee -a $R/bench.txt
  done
done
SOLDER_CACHE_DIR=/tmp/sc-t timeout 300 /tmp/cand/build/tests/gpu_transpose_test --gtest_brief=1 --gtest_filter='*PartialReductions*' > $R/t-transpose.txt 2>&1; echo "gpu_transpose_test exit $?"; grep -E "FAILED|PASSED|Failure" $R/t-transpose.txt | head
