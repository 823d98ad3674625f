# Next session's first call: cand51 = main + outerfill (outer plans with few rows and few kept
# tiles narrow TX until every SM has a tile) + treduce (partial reductions whose two inputs are
# fast along different kept dims through the transpose template's tiles) against prev = main,
# on the 24 programs of seeds 8-14 whose plans change (CPU explain: 22 outerfill, seed 14 #136 and
# seed 11 #010 treduce), runs new/prev/new/prev; W4 einsum 2 (its golden changes); then the new
# GPU test and memcheck. Pins: call51.sh.
# Prepared (2026-11-27 13:46): prev.tar = main b4fe380, new.tar = cand51 (main merged); redo if either moved.
R=$OUT; mkdir -p /tmp/o
(bash .devbase/br.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash .devbase/br.sh new solder _solder gpu_transpose_test gpu_outer_reduction_test > /tmp/o/br-new.txt 2>&1
until grep -qE "build ok|FAILED" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-new.txt /tmp/o/br-prev.txt; echo "built at $SECONDS s"
n=0
run() { which=$1 seed=$2 re=$3; n=$((n+1)); PP=/tmp/$which/build/python
  SOLDER_CACHE_DIR=/tmp/sc-$which-$n PYTHONPATH=$PP timeout 60 python3 bench/variants.py --seed $seed --only "$re" --no-probe --no-peers --time-budget 40 -o /tmp/o/r$n-$which-$seed.json > /tmp/o/r$n.txt 2>&1; }
for which in new prev new prev; do
  run $which 8 '^(031|035|044|062|098) '; run $which 9 '^(011) '; run $which 10 '^(042|082|083|114) '
  run $which 11 '^(010|078|082|158) '; run $which 12 '^(003|060) '; run $which 13 '^(054|068|098|141) '; run $which 14 '^(099|136|159) '
  echo "== $which $SECONDS s"
done
python3 bench/ab_table.py /tmp/o | tee $R/ab.txt
# The default-suite case whose golden it changes: W4 einsum 2 (its outer kernel).
for which in new prev new prev; do SOLDER_CACHE_DIR=/tmp/sc-w4$which timeout 60 /tmp/$which/build/solder bench --suite default --workload w4_einsum_2 --peers off --budget-ms 40 --json /tmp/o/w4-$which.json > /dev/null 2>&1
  python3 -c "import json; [print('$which', r.get('case') or r.get('name'), r['time_us']['median']) for r in json.load(open('/tmp/o/w4-$which.json'))['records']]" 2>&1 | tee -a $R/named.txt; done
T=/tmp/new/build/tests
timeout 200 $T/gpu_transpose_test --gtest_brief=1 '--gtest_filter=*Partial*:*FullReductions*' > $R/t-transpose.txt 2>&1; echo "gpu_transpose exit $? $SECONDS s"; grep -E "PASSED|FAILED|Failure" -A3 $R/t-transpose.txt | head -12
timeout 150 $T/gpu_outer_reduction_test --gtest_brief=1 '--gtest_filter=*FewKept*:*KindsAndDtypes*' > $R/t-outer.txt 2>&1; echo "gpu_outer_reduction exit $? $SECONDS s"; grep -E "PASSED|FAILED|Failure" -A3 $R/t-outer.txt | head -12
[ $SECONDS -lt 480 ] && timeout $((560-SECONDS)) compute-sanitizer --tool memcheck --error-exitcode 9 $T/gpu_transpose_test --gtest_brief=1 '--gtest_filter=*Partial*' > $R/memcheck.txt 2>&1; echo "memcheck exit $? $SECONDS s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt
echo "done at $SECONDS s"
