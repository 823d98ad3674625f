# A/B of one_row_unroll.patch (one_row plans load 2-4 vectors a thread ahead, by rows_in_flight's
# rule) against the tree, over one_row programs of seeds 16-28 (fast ones near a copy too).
R=$OUT; D=docs/results/2026-12-02/call107; mkdir -p /tmp/o $R/ab
(bash scripts/build_patched.sh prev '' solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash scripts/build_patched.sh new $D/one_row_unroll.patch solder _solder || exit 1
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-prev.txt
NEW=/tmp/new/build PREV=/tmp/prev/build OUT=$R/ab PROGS="28:042|128|034 27:025|052|153|063|129 20:148 16:014 26:026|070" bash scripts/ab_variants.sh
cd $R && tar -cf x.tar ab/x && rm -rf ab/x
