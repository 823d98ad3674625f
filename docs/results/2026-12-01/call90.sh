# main (outer tail step + where over 16-bit bits, both re-applied from 2026-11-27d/next) against
# 7f37ffb (carried as .devbase/prev.tar), new/prev/new/prev in one run: the programs of call88
# and call89 (seeds 17-21), the four golden kernels the tail step changes; then
# gpu_outer_reduction_test on main, compute-sanitizer on seed 19 #146/#047, and the open
# mixed-layout class beside torch.compile (the H200's first figures for them).
R=$OUT; mkdir -p /tmp/o $R/x
rm -rf /tmp/cand && mkdir -p /tmp/cand/src && tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/cand/src
(bash scripts/build_archive.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
cmake -S /tmp/cand/src -B /tmp/cand/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(command -v python3) > /tmp/o/b.log 2>&1 && cmake --build /tmp/cand/build -j 16 --target solder _solder gpu_outer_reduction_test >> /tmp/o/b.log 2>&1 && echo "build ok cand $SECONDS s" || { tail -20 /tmp/o/b.log; exit 1; }
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-prev.txt; echo "built at $SECONDS s"
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="17:044|092 18:084|092|115 19:041|047|070|073|077|123|146 20:043|021|009|034|105|110 21:092|101|023|029|054|083|103|133|136" OUT=$R bash scripts/ab_variants.sh
for which in cand prev cand prev; do tag=$([ $which = cand ] && echo new || echo prev)
  for e in "outer_colsum_bf16 B=16384 H=3072" "outer_colsum_bf16 B=37 H=1030" "outer_mean_mid_f16 B=8192 H=1024" "w4_einsum_2"; do set -- $e
    f=$1; shift; S=(); for s in "$@"; do S+=(--size $s); done
    [ -f examples/$f.fusion ] && f=examples/$f.fusion
    SOLDER_CACHE_DIR=/tmp/sc-$which timeout 60 /tmp/$which/build/solder bench $f "${S[@]}" --peers off --json /tmp/o/g.json > /tmp/o/g.txt 2>&1
    python3 -c "import json,sys; r=json.load(open('/tmp/o/g.json'))['records'][0]; print(sys.argv[1], sys.argv[2], sys.argv[3], round(r['time_us']['median'],2))" $tag $f "$*" 2>&1 | tee -a $R/golden.txt
  done
done
echo "golden done $SECONDS s"
SOLDER_CACHE_DIR=/tmp/sc-t timeout 120 /tmp/cand/build/tests/gpu_outer_reduction_test --gtest_brief=1 > $R/t-outer.txt 2>&1; echo "gpu_outer_reduction_test exit $? $(grep -E '^\[  (PASSED|FAILED)' $R/t-outer.txt | tr '\n' ' ')"
command -v compute-sanitizer >/dev/null && PYTHONPATH=/tmp/cand/build/python timeout 60 compute-sanitizer --print-limit 5 python3 bench/variants.py --seed 19 --only '^(146|047) ' --no-probe --no-peers --time-budget 10 -o /tmp/o/s.json 2>&1 | grep -E "ERROR SUMMARY|status" | head
for sp in "20 103" "19 159|089" "16 128"; do set -- $sp
  [ $SECONDS -lt 520 ] && SOLDER_CACHE_DIR=/tmp/sc-cand PYTHONPATH=/tmp/cand/build/python timeout 70 python3 bench/variants.py --seed $1 --only "^($2) " --time-budget 40 -o $R/x/mixed-$1.json > $R/x/mixed-$1.txt 2>&1
done
grep -h -E "^\[" $R/x/mixed-*.txt
cd $R && tar -cf x.tar x && rm -rf x
