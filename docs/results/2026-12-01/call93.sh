# The patch landed in the commit that added this call (git show that commit for it).
# next/reduced_tiles.patch (untimed; CPU kernel simulator xred_ 108 ok, tred_ 60 ok, full_ ok;
# CPU tests) against main, new/prev/new/prev in one run. It holds two changes to the transpose
# tiles that reduce their columns (next/two_warp_rows.patch is the first alone):
#  1. rows of 64 lanes over two warps: 16-bit columns whose vectors are single elements (odd
#     reduced lengths, misaligned y), which main declines to inner's element reads;
#  2. tiles whose rows are reduced too (tile_reduces_all): two inputs fast along different
#     reduced dims, a tile per kept index (seed 22 #062 var over [1, 2], f16 128x256x768: 124 us,
#     2.10x torch.compile on the H200; seed 9 #038; seed 21 #111), split over blocks.
# Also main's gpu_outer_reduction_test (owed since stop 44) in the time left.
# Times: bench/programs/sum_mul_T_bf16.fusion (in the patch) at H = 8191 / 8192, the three
# both-reduced programs and the column-reducing class of call91/92 (no loss allowed); then
# gpu_transpose_test's partial-reduction tests on the patched build.
R=$OUT; mkdir -p /tmp/o $R/x
(bash scripts/build_patched.sh prev '' solder _solder gpu_outer_reduction_test > /tmp/o/br-prev.txt 2>&1 &)
bash scripts/build_patched.sh cand docs/results/2026-12-01/next/reduced_tiles.patch solder _solder gpu_transpose_test || exit 1
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-prev.txt
for which in cand prev cand prev; do
  for h in 8191 8192; do
    SOLDER_CACHE_DIR=/tmp/sc-$which timeout 60 /tmp/$which/build/solder bench /tmp/cand/src/bench/programs/sum_mul_T_bf16.fusion --size B=2048 --size H=$h --peers off --json /tmp/o/g.json > /tmp/o/g.txt 2>&1
    python3 -c "import json,sys; r=json.load(open('/tmp/o/g.json'))['records'][0]; print(sys.argv[1], 'H='+sys.argv[2], round(r['time_us']['median'],2))" $which $h 2>&1 | tee -a $R/bench.txt
  done
done
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="9:038 21:111 22:062|098 16:128|053 19:089|159 13:003" OUT=$R bash scripts/ab_variants.sh
SOLDER_CACHE_DIR=/tmp/sc-t timeout 300 /tmp/cand/build/tests/gpu_transpose_test --gtest_brief=1 --gtest_filter='*PartialReductions*' > $R/t-transpose.txt 2>&1; echo "gpu_transpose_test exit $?"; grep -E "FAILED|PASSED|Failure" $R/t-transpose.txt | head
# Owed since stop 44 (the outer-tail change): main's gpu_outer_reduction_test, in the time left.
left=$((585 - SECONDS)); echo "outer test gets $left s"
SOLDER_CACHE_DIR=/tmp/sc-o timeout $left /tmp/prev/build/tests/gpu_outer_reduction_test > $R/t-outer.txt 2>&1; echo "gpu_outer_reduction_test exit $?"; grep -E "OK|FAILED|PASSED|Failure" $R/t-outer.txt | head -20
cd $R && tar -cf x.tar x && rm -rf x
