# Next stop's first call (untimed this stop: the device time ran out). A/B of resident weights
# only where blocks take several rows (no_one_row_residents.patch: new = tree + patch) against
# the tree (prev) over the programs whose plans held resident weights in blocks of one row
# each (seed 28 #117 ran 110 us so, 41 with 512-thread clusters: call104); then #117's
# spill-free shapes. The golden kernels do not change (golden_test passes with the patch).
R=$OUT; D=docs/results/2026-12-02/next/call105; mkdir -p /tmp/o $R/ab
(bash scripts/build_patched.sh prev '' solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash scripts/build_patched.sh new $D/no_one_row_residents.patch solder _solder || exit 1
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-prev.txt
NEW=/tmp/new/build PREV=/tmp/prev/build OUT=$R/ab PROGS="28:117 16:018|027 19:110|011 23:032|088 27:131 20:075 21:053" bash scripts/ab_variants.sh
PYTHONPATH=/tmp/new/build/python SOLDER_CACHE_DIR=/tmp/sc-g timeout $((400 - SECONDS)) python3 bench/experiments/variant_plan_grid.py $D/grid.txt --no-peers 2>&1 | tee $R/grid.md
cd $R && tar -cf x.tar ab/x && rm -rf ab/x
