# Next stop's first call (untimed work of stop 45). Three builds: main (this tree), main plus
# next/lone_idle.patch (the outer_norm lone-block idle term, timed in call95 as
# call95/lone_idle.patch and since restricted to non-Welford combines; taken back out of main
# because the golden kernel it changes, outer_rms_norm_T_f32 B=2048 H=16384, could not be
# measured in stop 45), and main plus next/kept_tile_splits.patch (kept tiles of partial
# reductions split their reduced indices over gridDim.y: seed 26 #059; CPU kernel simulator
# tred_ 90 ok, CPU tests pass; untimed).
# 1. lone_idle: the changed golden kernel and the golden outer norms, alternating; then its
#    programs (call95's gains: seed 26 #009, #030, seed 17 #145).
# 2. kept_tile_splits vs main over the kept-tile programs (no loss allowed), then its GPU test.
R=$OUT; N=docs/results/2026-12-01/next; mkdir -p /tmp/o $R/lone $R/kept
(bash scripts/build_patched.sh prev '' solder _solder > /tmp/o/br-prev.txt 2>&1 &)
(bash scripts/build_patched.sh lone $N/lone_idle.patch solder _solder > /tmp/o/br-lone.txt 2>&1 &)
bash scripts/build_patched.sh cand $N/kept_tile_splits.patch solder _solder gpu_transpose_test || exit 1
for b in prev lone; do until grep -qE "build (ok|FAILED)" /tmp/o/br-$b.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-$b.txt; done
for which in lone prev lone prev; do
  for a in "examples/outer_rms_norm_T_f32.fusion B=2048 H=16384" "examples/outer_layer_norm_T_f16.fusion B=5120 H=6144" "bench/programs/outer_rms_norm_T_f16.fusion B=5120 H=6144"; do
    set -- $a
    SOLDER_CACHE_DIR=/tmp/sc-$which timeout 60 /tmp/$which/build/solder bench $1 --size $2 --size $3 --peers off --json /tmp/o/g.json > /tmp/o/g.txt 2>&1
    python3 -c "import json,sys; r=json.load(open('/tmp/o/g.json'))['records'][0]; print(sys.argv[1], sys.argv[2].split('/')[-1], sys.argv[3], round(r['time_us']['median'],2))" $which $1 "$2 $3" 2>&1 | tee -a $R/golden.txt
  done
done
NEW=/tmp/lone/build PREV=/tmp/prev/build PROGS="26:009|030 17:145" OUT=$R/lone bash scripts/ab_variants.sh
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="26:059|054|124 16:007|053 22:035 9:114" OUT=$R/kept bash scripts/ab_variants.sh
SOLDER_CACHE_DIR=/tmp/sc-t timeout $((585 - SECONDS)) /tmp/cand/build/tests/gpu_transpose_test --gtest_brief=1 --gtest_filter='*PartialReductionsOfDisagreeing*' > $R/t-transpose.txt 2>&1; echo "gpu_transpose_test exit $?"; grep -E "FAILED|PASSED|Failure" $R/t-transpose.txt | head
cd $R && tar -cf x.tar lone/x kept/x && rm -rf lone/x kept/x
