# cand 3c..: GPU tests of the layout work and outer_norm, then seed 9 full sweep (idle host)
R=$OUT; S=build-device/solder; T=build-device/tests; mkdir -p /tmp/o
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log; echo "built at $SECONDS s"
(cd python/tests && PYTHONPATH=$OLDPWD/build-device/python timeout 120 python3 -m unittest -v test_gpu_torch.FastCall) > $R/python_fastcall.txt 2>&1; tail -12 $R/python_fastcall.txt
for spec in "gpu_transpose_test *" "gpu_outer_norm_test *MiddleAxis*" "gpu_executor_test *NonContiguous*:*EveryElementwise*:*PhaseShifted*:*Cat*"; do set -f; set -- $spec; set +f; timeout 150 $T/$1 --gtest_brief=1 "--gtest_filter=$2" > /tmp/o/t-$1.log 2>&1; echo "$1 exit $? $SECONDS s $(grep -E '^\[  (PASSED|FAILED)' /tmp/o/t-$1.log | tr '\n' ' ')"; grep -B2 -A3 Failure /tmp/o/t-$1.log | head -8; done 2>&1 | tee $R/tests.txt
echo "sweep from $SECONDS s"
PYTHONPATH=$PWD/build-device/python timeout $((592-SECONDS)) python3 bench/variants.py --seed 9 --time-budget $((575-SECONDS-15)) -o $R/variants_seed9.json > $R/variants_seed9.txt 2>&1; echo "sweep exit $? at $SECONDS s"; grep -A60 "% of a same-bytes" $R/variants_seed9.txt | head -45
