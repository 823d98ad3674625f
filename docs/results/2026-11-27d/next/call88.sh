# The last golden kernel the outer tail step changed (W4 einsum 2, a tiny outer mul+sum), new
# (main HEAD) against prev (before the tail step), new/prev/new/prev; then the outer GPU tests
# on new. Carry .devbase: prev.tar = git archive f58fb02 (before the tail step), new.tar = git
# archive main.
R=$OUT; mkdir -p /tmp/o
(bash scripts/build_archive.sh prev solder > /tmp/o/br-prev.txt 2>&1 &)
bash scripts/build_archive.sh new solder gpu_outer_reduction_test > /tmp/o/br-new.txt 2>&1
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-new.txt /tmp/o/br-prev.txt; echo "built at $SECONDS s"
for which in new prev new prev; do
  SOLDER_CACHE_DIR=/tmp/sc-$which timeout 60 /tmp/$which/build/solder bench examples/w4_einsum_2.fusion --peers off --json /tmp/o/g.json > /tmp/o/g.txt 2>&1
  python3 -c "import json,sys; r=json.load(open('/tmp/o/g.json'))['records'][0]; print(sys.argv[1], 'w4_einsum_2', round(r['time_us']['median'],2), r['kernel_resources'][0].get('params'))" $which | tee -a $R/bench.txt
done
SOLDER_CACHE_DIR=/tmp/sc-t timeout $((280-SECONDS)) /tmp/new/build/tests/gpu_outer_reduction_test --gtest_brief=1 > $R/t-outer.txt 2>&1; echo "gpu_outer_reduction_test exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' $R/t-outer.txt | tr '\n' ' ')"; grep -B2 -A3 Failure $R/t-outer.txt | head -12
