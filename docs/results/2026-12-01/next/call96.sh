# Next stop's first call (untimed work of stop 45). Three builds: main (this tree), main without
# the lone-block idle term (next/lone_idle_revert.patch: the golden kernel it changed,
# outer_rms_norm_T_f32 B=2048 H=16384, is unmeasured), and main plus next/kept_tile_splits.patch
# (kept tiles of partial reductions split their reduced indices over gridDim.y: seed 26 #059;
# CPU kernel simulator tred_ 90 ok, CPU tests pass; untimed).
# 1. The golden kernel, lone-term revert vs main, alternating.
# 2. kept_tile_splits vs main over the kept-tile programs (no loss allowed), then its GPU test.
R=$OUT; N=docs/results/2026-12-01/next; mkdir -p /tmp/o $R/x
(bash scripts/build_patched.sh prev '' solder _solder > /tmp/o/br-prev.txt 2>&1 &)
(bash scripts/build_patched.sh nolone $N/lone_idle_revert.patch solder > /tmp/o/br-nolone.txt 2>&1 &)
bash scripts/build_patched.sh cand $N/kept_tile_splits.patch solder _solder gpu_transpose_test || exit 1
for b in prev nolone; do until grep -qE "build (ok|FAILED)" /tmp/o/br-$b.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-$b.txt; done
for which in prev nolone prev nolone; do
  SOLDER_CACHE_DIR=/tmp/sc-$which timeout 60 /tmp/$which/build/solder bench examples/outer_rms_norm_T_f32.fusion --size B=2048 --size H=16384 --peers off --json /tmp/o/g.json > /tmp/o/g.txt 2>&1
  python3 -c "import json,sys; r=json.load(open('/tmp/o/g.json'))['records'][0]; print(sys.argv[1], round(r['time_us']['median'],2))" $which 2>&1 | tee -a $R/golden.txt
done
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="26:059|054|124 16:007|053 22:035 9:114" OUT=$R bash scripts/ab_variants.sh
SOLDER_CACHE_DIR=/tmp/sc-t timeout 240 /tmp/cand/build/tests/gpu_transpose_test --gtest_brief=1 --gtest_filter='*PartialReductionsOfDisagreeing*' > $R/t-transpose.txt 2>&1; echo "gpu_transpose_test exit $?"; grep -E "FAILED|PASSED|Failure" $R/t-transpose.txt | head
cd $R && tar -cf x.tar x && rm -rf x
