# rowsflight (rows in flight for 2-D pointwise rows of several passes) against prev = main
# 4f34bf1 over the 47 programs of seeds 8-14 whose plans change (CPU explain), new/prev/new;
# W5 gelu_bias bf16 (its golden changes); gpu_row_unroll_test + memcheck; pins on seed 14 #132,
# #146, #122 (staged transposed norms: tiles of 32 rows) on prev.
R=$OUT; mkdir -p /tmp/o
(bash .devbase/br.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash .devbase/br.sh new solder _solder gpu_row_unroll_test > /tmp/o/br-new.txt 2>&1
until grep -qE "build ok|FAILED" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-new.txt /tmp/o/br-prev.txt; echo "built at $SECONDS s"
n=0
run() { which=$1 seed=$2 re=$3; n=$((n+1)); PP=/tmp/$which/build/python
  SOLDER_CACHE_DIR=/tmp/sc-$which-$n PYTHONPATH=$PP timeout 90 python3 bench/variants.py --seed $seed --only "$re" --no-probe --no-peers --time-budget 60 -o /tmp/o/r$n-$which-$seed.json > /tmp/o/r$n.txt 2>&1; }
for which in new prev new; do
  [ $SECONDS -gt 420 ] && break
  run $which 8 '^(074|081|095|134|148) '; run $which 9 '^(053|056|057|068) '; run $which 10 '^(009|047|056|109|139|140|143|144) '
  run $which 11 '^(037|041|084|137|141|143) '; run $which 12 '^(012|020|048|053|065|074|075|079|133|146) '; run $which 13 '^(049|096|121) '
  run $which 14 '^(006|036|053|065|079|085|089|091|092|093|103) '
  echo "== $which $SECONDS s"
done
python3 bench/ab_table.py /tmp/o | tee $R/ab.txt
for which in new prev new prev; do SOLDER_CACHE_DIR=/tmp/sc-w5$which timeout 60 /tmp/$which/build/solder bench --suite default --workload w5_gelu_bias_bf16 --peers off --budget-ms 40 --json /tmp/o/w5-$which.json > /dev/null 2>&1
  python3 -c "import json; [print('$which', r.get('case') or r.get('name'), r['time_us']['median']) for r in json.load(open('/tmp/o/w5-$which.json'))['records']]" 2>&1 | tee -a $R/named.txt; done
T=/tmp/new/build/tests
timeout 150 $T/gpu_row_unroll_test --gtest_brief=1 > $R/t-rowunroll.txt 2>&1; echo "gpu_row_unroll exit $? $SECONDS s"; grep -E "PASSED|FAILED|Failure" -A3 $R/t-rowunroll.txt | head -12
[ $SECONDS -lt 500 ] && timeout $((570-SECONDS)) compute-sanitizer --tool memcheck --error-exitcode 9 $T/gpu_row_unroll_test --gtest_brief=1 '--gtest_filter=*Sweeps*' > $R/memcheck.txt 2>&1; echo "memcheck exit $? $SECONDS s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt
pin() { re=$1 plan=$2; [ $SECONDS -gt 560 ] && return; P=(); [ -n "$plan" ] && P=(--plan "$plan")
  PYTHONPATH=/tmp/prev/build/python timeout 40 python3 bench/variants.py --seed 14 --only "$re" --no-probe --no-peers --time-budget 30 "${P[@]}" -o /tmp/o/p.json > /tmp/o/p.txt 2>&1
  python3 -c "import json,sys; [print(r['name'][:44], '|', sys.argv[1] or '(scheduler)', '|', r.get('solder_us'), r.get('pct_copy'), r.get('status'), str(r.get('error') or '')[:90]) for r in json.load(open('/tmp/o/p.json'))['programs']]" "$plan" 2>&1 | tee -a $R/pins.txt; }
for p in "" "threads=512,threads_per_row=16,rows_per_block=32,prefetch=0" "threads=1024,threads_per_row=32,rows_per_block=32,min_blocks=1,prefetch=0"; do pin '^(132|146|122) ' "$p"; done
echo "done at $SECONDS s"
