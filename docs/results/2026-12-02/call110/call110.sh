# A/B of row_waves2.patch (rows in flight down to 2 waves of resident blocks, from 4: call109's
# pins of seed 29 #139 and #047 at row_unroll=2 were 8 and 12 % faster) against the tree, over
# every seed 28 and 29 program whose plan it changes.
R=$OUT; D=docs/results/2026-12-02/call110; mkdir -p /tmp/o $R/ab
(bash scripts/build_patched.sh prev '' solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash scripts/build_patched.sh new $D/row_waves2.patch solder _solder || exit 1
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-prev.txt
NEW=/tmp/new/build PREV=/tmp/prev/build OUT=$R/ab PROGS="28:012|016|017|046|061|131|152 29:045|047|056|082|103|139|147" bash scripts/ab_variants.sh
cd $R && tar -cf x.tar ab/x && rm -rf ab/x
