# Outer reductions' last rows in one step (next/outer_tail.patch) against main, new/prev/new/prev,
# in one run: the four golden kernels it changes (colsum bf16 16384x3072 and 37x1030, mean over
# the middle axis f16 8192x1024, W4 einsum 2) and the small/tall outer programs of call87; then
# gpu_outer_reduction_test on the patched build. Carry nothing. Land the patch only if no golden
# kernel loses.
R=$OUT; mkdir -p /tmp/o $R/x
rm -rf /tmp/cand /tmp/prev && mkdir -p /tmp/cand/src /tmp/prev/src
tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/prev/src
tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/cand/src
(cd /tmp/cand/src && patch -p1 -s < docs/results/2026-11-27d/next/outer_tail.patch || echo "PATCH FAILED")
b() { cmake -S /tmp/$1/src -B /tmp/$1/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(command -v python3) > /tmp/o/b-$1.log 2>&1 && cmake --build /tmp/$1/build -j 8 --target solder _solder $2 >> /tmp/o/b-$1.log 2>&1 && echo "build ok $1" || { tail -20 /tmp/o/b-$1.log; echo "build FAILED $1"; }; }
(b prev "" > /tmp/o/br-prev.txt 2>&1 &)
b cand gpu_outer_reduction_test
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-prev.txt; echo "built at $SECONDS s"
n=0
for which in cand prev cand prev; do n=$((n+1)); tag=$([ $which = cand ] && echo new || echo prev)
  for sd in "20 043|021|009" "21 092|101"; do set -- $sd
    SOLDER_CACHE_DIR=/tmp/sc-$which PYTHONPATH=/tmp/$which/build/python timeout 90 python3 bench/variants.py --seed $1 --only "^($2) " --no-probe --no-peers --time-budget 60 -o $R/x/r$n-$tag-$1.json > $R/x/r$n-$1.txt 2>&1
  done
  for e in "outer_colsum_bf16 B=16384 H=3072" "outer_colsum_bf16 B=37 H=1030" "outer_mean_mid_f16 B=8192 H=1024" "w4_einsum_2"; do set -- $e
    f=$1; shift; S=(); for s in "$@"; do S+=(--size $s); done
    SOLDER_CACHE_DIR=/tmp/sc-$which timeout 60 /tmp/$which/build/solder bench examples/$f.fusion "${S[@]}" --peers off --json /tmp/o/g.json > /tmp/o/g.txt 2>&1
    python3 -c "import json,sys; r=json.load(open('/tmp/o/g.json'))['records'][0]; print(sys.argv[1], sys.argv[2], sys.argv[3], round(r['time_us']['median'],2), r['kernel_resources'][0].get('params'))" $tag $f "$*" | tee -a $R/bench.txt
  done
  echo "pass $n $tag $SECONDS s"
done
python3 bench/ab_table.py $R/x | tee $R/ab.txt
SOLDER_CACHE_DIR=/tmp/sc-t timeout $((590-SECONDS)) /tmp/cand/build/tests/gpu_outer_reduction_test --gtest_brief=1 > $R/t-outer.txt 2>&1; echo "gpu_outer_reduction_test exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' $R/t-outer.txt | tr '\n' ' ')"
cd $R && tar -cf x.tar x && rm -rf x
