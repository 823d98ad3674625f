# Final: main 00501e6 (staged outputs + L1 rule, outer narrow tiles, streamed ties, flat 32-bit row offsets) vs prev = 94581ba (main + redorder). Then GPU tests.
R=$OUT; S=build-device/solder; T=build-device/tests; mkdir -p /tmp/o
(bash .devbase/br.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log
until grep -qE "build ok|FAILED" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-prev.txt; echo "built at $SECONDS s"
run() { which=$1 seed=$2 re=$3; PP=$PWD/build-device/python; [ $which = prev ] && PP=/tmp/prev/build/python
  PYTHONPATH=$PP timeout 75 python3 bench/variants.py --seed $seed --only "$re" --no-probe --time-budget 65 -o /tmp/o/v$seed-$which.json > $R/v$seed-$which.txt 2>&1; }
for which in prev new; do
  run $which 9 '^(047|114|038|023|024|049|069|089|125) '
  run $which 10 '^(084|105|133|137|097|015|001|102) '
  run $which 8 '^(003|132|015|030|112) '
  echo "== $which $SECONDS s"
done
python3 - <<'PY' | tee $R/ab.txt
import json
for s in (9, 10, 8):
    a = {r['name']: r for r in json.load(open(f'/tmp/o/v{s}-prev.json'))['programs']}
    b = {r['name']: r for r in json.load(open(f'/tmp/o/v{s}-new.json'))['programs']}
    for n in sorted(a):
        ra, rb = a[n], b.get(n, {})
        f = lambda r, k: r.get(k) or float('nan')
        print(f"seed {s:2d} {n[:62]:62s} prev {f(ra,'solder_us'):7.1f} new {f(rb,'solder_us'):7.1f} us  compile {f(ra,'compile_us'):7.1f}/{f(rb,'compile_us'):7.1f}  {rb.get('status')}")
PY
for which in prev new; do B=$S; [ $which = prev ] && B=/tmp/prev/build/solder; timeout 30 $B bench examples/outer_colsum_bf16.fusion --size B=37 --size H=1030 --peers off 2>&1 | grep "outer_colsum_bf16/" | tail -1 | sed "s/^/$which /"; done | tee $R/goldens.txt
echo "timings done at $SECONDS s"
for spec in "gpu_flat_index_test *" "gpu_split_rows_test *" "gpu_outer_reduction_test -*WorkloadsAcrossSizes*" "gpu_executor_test *EveryWorkload*:*NonContiguous*:*PhaseShiftedPointwiseRows*:*ReductionsOverDimsApartInMemory*" "gpu_shift_loads_test *"; do set -f; set -- $spec; set +f; [ $SECONDS -gt 470 ] && { echo "skip $1 (time)"; continue; }; timeout $((500-SECONDS)) $T/$1 --gtest_brief=1 "--gtest_filter=$2" > /tmp/o/t-$1.log 2>&1; echo "$1 exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' /tmp/o/t-$1.log | tr '\n' ' ')"; grep -B2 -A3 Failure /tmp/o/t-$1.log | head -12; done 2>&1 | tee $R/tests.txt
