# main 361ee14 (outerfill + treduce merged): treduce's GPU test (its sum epilogue no longer a sqrt
# of a cancelling sum) and memcheck, then call51's pins on seed 14's 2-D pointwise programs and
# staged transposed norms.
R=$OUT; mkdir -p /tmp/o
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log; echo "built at $SECONDS s"
T=build-device/tests
timeout 120 $T/gpu_transpose_test --gtest_brief=1 '--gtest_filter=*Partial*' > $R/t-transpose.txt 2>&1; echo "gpu_transpose Partial exit $? $SECONDS s"; grep -E "PASSED|FAILED|Failure" -A3 $R/t-transpose.txt | head -12
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $T/gpu_transpose_test --gtest_brief=1 '--gtest_filter=*Partial*' > $R/memcheck.txt 2>&1; echo "memcheck exit $? $SECONDS s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt
pin() { re=$1 plan=$2; [ $SECONDS -gt 560 ] && return; P=(); [ -n "$plan" ] && P=(--plan "$plan")
  PYTHONPATH=$PWD/build-device/python timeout 40 python3 bench/variants.py --seed 14 --only "$re" --no-probe --no-peers --time-budget 30 "${P[@]}" -o /tmp/o/p.json > /tmp/o/p.txt 2>&1
  python3 -c "import json,sys; [print(r['name'][:44], '|', sys.argv[1] or '(scheduler)', '|', r.get('solder_us'), r.get('pct_copy'), r.get('status'), (r.get('solder_err') or '')[:60]) for r in json.load(open('/tmp/o/p.json'))['programs']]" "$plan" 2>&1 | tee -a $R/pins.txt; }
for p in "" unroll=2 unroll=4 threads=512 one_row; do pin '^(085|006|053|073|091) ' "$p"; done
for p in "" "threads=512,threads_per_row=16,rows_per_block=32,prefetch=0" "threads=1024,threads_per_row=32,rows_per_block=32,min_blocks=1,prefetch=0"; do pin '^(132|146|122) ' "$p"; done
echo "done at $SECONDS s"
