# The two untimed patches (treduce-varmean.patch: var_mean through partial-reduction tiles,
# seed 16 #007; halfwarp.patch: 16-bit rows of 333 at half a warp) against main, new/prev/new/prev,
# then gpu_transpose *Partial* and compute-sanitizer on the candidate. Carry nothing: the
# script builds main (this tree) and main + both patches.
R=$OUT; mkdir -p /tmp/o $R/x
rm -rf /tmp/cand /tmp/prev && mkdir -p /tmp/cand/src /tmp/prev/src
tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/prev/src
tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/cand/src
(cd /tmp/cand/src && for p in docs/results/2026-11-27b/next/treduce-varmean.patch docs/results/2026-11-27b/next/halfwarp.patch; do patch -p1 -s < $p || echo "PATCH FAILED $p"; done)
b() { cmake -S /tmp/$1/src -B /tmp/$1/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(command -v python3) > /tmp/o/b-$1.log 2>&1 && cmake --build /tmp/$1/build -j 8 --target solder _solder $2 >> /tmp/o/b-$1.log 2>&1 && echo "build ok $1" || { tail -20 /tmp/o/b-$1.log; echo "build FAILED $1"; }; }
(b prev "" > /tmp/o/br-prev.txt 2>&1 &)
b cand gpu_transpose_test
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-prev.txt; echo "built at $SECONDS s"
mkdir -p /tmp/new && ln -sfn /tmp/cand/build /tmp/new/build
n=0
for which in new prev new prev; do
  for sr in "16 007|081" "15 055|074|132" "8 155" "9 066|158" "10 119" "11 113" "14 157"; do set -- $sr; n=$((n+1))
    B=/tmp/prev/build; [ $which = new ] && B=/tmp/cand/build
    SOLDER_CACHE_DIR=/tmp/sc-$which PYTHONPATH=$B/python timeout 60 python3 bench/variants.py --seed $1 --only "^($2) " --no-probe --no-peers --time-budget 40 -o $R/x/r$n-$which-$1.json > $R/x/r$n.txt 2>&1
  done; echo "pass $which $SECONDS s"
done
python3 bench/ab_table.py $R/x | tee $R/ab.txt
timeout 200 /tmp/cand/build/tests/gpu_transpose_test --gtest_brief=1 --gtest_filter='*Partial*' > $R/t-partial.txt 2>&1; echo "partial exit $?"; tail -3 $R/t-partial.txt
command -v compute-sanitizer >/dev/null && timeout 200 compute-sanitizer --print-limit 5 /tmp/cand/build/tests/gpu_transpose_test --gtest_brief=1 --gtest_filter='*Partial*' 2>&1 | tail -4
cd $R && tar -cf x.tar x && rm -rf x
