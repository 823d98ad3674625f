# Next session's first call (prepared 2026-11-27 16:10). cand58 = main + treduce-varmean (var_mean
# through the partial-reduction tiles: seed 16 #007) + halfwarp (16-bit rows of 333 at half a warp,
# 3 vectors of 8 a thread: seed 8 #155, seed 9 #066 #158, seed 10 #119, seed 11 #113, seed 14 #157,
# seed 15 #055 #074 #132, seed 16 #081) against prev = main: the 11 programs of seeds 8-16 whose
# plans change (CPU explain), new/prev/new/prev; then the GPU tests of both and memcheck.
# Archive first: git archive main -o .devbase/prev.tar; git archive cand58 -o .devbase/new.tar
R=$OUT; mkdir -p /tmp/o
(bash .devbase/br.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash .devbase/br.sh new solder _solder gpu_transpose_test gpu_inner_shift_test gpu_executor_test > /tmp/o/br-new.txt 2>&1
until grep -qE "build ok|FAILED" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-new.txt /tmp/o/br-prev.txt; echo "built at $SECONDS s"
n=0
run() { which=$1 seed=$2 re=$3; n=$((n+1)); PP=/tmp/$which/build/python
  SOLDER_CACHE_DIR=/tmp/sc-$which-$n PYTHONPATH=$PP timeout 60 python3 bench/variants.py --seed $seed --only "$re" --no-probe --no-peers --time-budget 40 -o /tmp/o/r$n-$which-$seed.json > /tmp/o/r$n.txt 2>&1; }
for which in new prev new prev; do
  [ $SECONDS -gt 380 ] && break
  run $which 8 '^(155) '; run $which 9 '^(066|158) '; run $which 10 '^(119) '; run $which 11 '^(113) '
  run $which 14 '^(157) '; run $which 15 '^(055|074|132) '; run $which 16 '^(007|081) '
  echo "== $which $SECONDS s"
done
python3 bench/ab_table.py /tmp/o | tee $R/ab.txt
T=/tmp/new/build/tests
timeout 120 $T/gpu_transpose_test --gtest_brief=1 '--gtest_filter=*Partial*' > $R/t-transpose.txt 2>&1; echo "gpu_transpose Partial exit $? $SECONDS s"; grep -E "PASSED|FAILED|Failure" -A3 $R/t-transpose.txt | head -8
timeout 60 $T/gpu_inner_shift_test --gtest_brief=1 '--gtest_filter=*PhasedRows*' > $R/t-shift.txt 2>&1; echo "gpu_inner_shift exit $? $SECONDS s"; grep -E "PASSED|FAILED|Failure" -A3 $R/t-shift.txt | head -8
[ $SECONDS -lt 480 ] && timeout $((570-SECONDS)) compute-sanitizer --tool memcheck --error-exitcode 9 $T/gpu_transpose_test --gtest_brief=1 '--gtest_filter=*Partial*' > $R/memcheck.txt 2>&1; echo "memcheck exit $? $SECONDS s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt
echo "done at $SECONDS s"
