# where over 16-bit values as a bit select (where_bits.patch, untimed) against main,
# new/prev/new/prev, on the 22 programs of seeds 17-21 whose kernels it changes (masked softmaxes
# and pointwise wheres in f16/bf16; seed 19 #146 is the masked softmax at 52 % of a copy; each
# program is checked against torch), then compute-sanitizer on #146 and #047. Carry nothing:
# builds main (this tree) and main + the patch.
R=$OUT; mkdir -p /tmp/o $R/x
rm -rf /tmp/cand /tmp/prev && mkdir -p /tmp/cand/src /tmp/prev/src
tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/prev/src
tar --exclude=./build* --exclude=./.devbase -cf - . | tar -xf - -C /tmp/cand/src
(cd /tmp/cand/src && patch -p1 -s < docs/results/2026-11-27d/next/where_bits.patch || echo "PATCH FAILED")
b() { cmake -S /tmp/$1/src -B /tmp/$1/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=$(command -v python3) > /tmp/o/b-$1.log 2>&1 && cmake --build /tmp/$1/build -j 8 --target solder _solder >> /tmp/o/b-$1.log 2>&1 && echo "build ok $1" || { tail -20 /tmp/o/b-$1.log; echo "build FAILED $1"; }; }
(b prev > /tmp/o/br-prev.txt 2>&1 &)
b cand
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-prev.txt; echo "built at $SECONDS s"
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="17:044|092 18:084|092|115 19:041|047|070|073|077|123|146 20:034|105|110 21:023|029|054|083|103|133|136" OUT=$R bash scripts/ab_variants.sh
[ $SECONDS -lt 540 ] && command -v compute-sanitizer >/dev/null && PYTHONPATH=/tmp/cand/build/python timeout 50 compute-sanitizer --print-limit 5 python3 bench/variants.py --seed 19 --only '^(146|047) ' --no-probe --no-peers --time-budget 10 -o /tmp/o/s.json 2>&1 | grep -E "ERROR SUMMARY|status"
cd $R && tar -cf x.tar x && rm -rf x
