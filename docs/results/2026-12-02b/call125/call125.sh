# This stop's first call. raw.patch: f16/bf16 negation and |x| as sign-bit operations, f32
# constants that are values of the narrow type as operands of native f16/bf16 ops, outputs
# stored from native ops' bits (RoPE's rotate-half: f16 mul, xor, select, f16 mul, f16 add).
# Against main over RoPE programs, a scaled masked softmax (32 #020) and issue 26's RoPE.
# Then the rope patch's predicted loss (call124, never run: no machine) against main.
R=$OUT; D=docs/results/2026-12-02b/next; mkdir -p /tmp/o $R
export SOLDER_ROOT=$PWD
git apply -R $D/raw.patch || exit 1   # the tree is main + raw: main is the tree without it
(bash scripts/build_patched.sh raw $D/raw.patch solder_cli _solder > /tmp/o/br-raw.txt 2>&1 &)
(bash scripts/build_patched.sh norope docs/results/2026-12-02/next/no_rope.patch solder_cli _solder > /tmp/o/br-norope.txt 2>&1 &)
bash scripts/build_patched.sh main '' solder_cli _solder || exit 1
for b in raw norope; do until grep -qE "build (ok|FAILED)" /tmp/o/br-$b.txt 2>/dev/null; do sleep 2; done; tail -1 /tmp/o/br-$b.txt; done
echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/raw/build PREV=/tmp/main/build OUT=$R/ab-raw PROGS="32:027|034|046|020|105 29:135 31:007|062 30:064" bash scripts/ab_variants.sh
echo "ab-raw at ${SECONDS}s" | tee -a $R/times.txt
for b in main raw main raw; do
  for f in bench/programs/rope_rotate_half_bf16.fusion:B=64,M=4096 bench/programs/rope_f16.fusion:B=64,M=4096 bench/programs/rope_halves_4098_f16.fusion:B=64,M=128; do
    file=${f%%:*}; sz=${f#*:}; args=""; for s in ${sz//,/ }; do args="$args --size $s"; done
    SOLDER_CACHE_DIR=/tmp/sc-$b timeout 60 /tmp/$b/build/solder bench $file $args --peers off 2>&1 | grep -E "^rope" | sed "s/^/$b /" >> $R/rope_bench.txt
  done
done
sort -s -k1,1 $R/rope_bench.txt
echo "bench at ${SECONDS}s" | tee -a $R/times.txt
[ $SECONDS -lt 480 ] && NEW=/tmp/main/build PREV=/tmp/norope/build OUT=$R/ab-rope PROGS="28:153|069 25:061 32:027|034" bash scripts/ab_variants.sh
(cd $R && tar -cf x.tar ab*/x && rm -rf ab*/x)
