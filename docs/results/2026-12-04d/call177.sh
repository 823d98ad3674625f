# call177 (owed by the CPU-only session of 2026-12-04 16:25-19:25): the compile driver's early
# return and three candidates at once (2cdfcbb, f390c65), one row of R x C over rows at another
# stride (8825f31), staged bytes packed by permutes (the transpose template), against 33f3e2e
# (rev.patch): same-run A/B of run times and cold first calls, then the new GPU tests.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
D=docs/results/2026-12-04c/next
( bash scripts/build_patched.sh prev $D/rev.patch _solder solder_cli > $R/build_prev.txt 2>&1 ) &
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_flat_index_test gpu_transpose_test || exit 1
wait; tail -1 $R/build_prev.txt; echo "built at ${SECONDS}s" | tee $R/times.txt
# one_row over strided halves: 48 #119, 46 #146, 40 #050, 44 #053/#131, 45 #155, 48 #023/#085
# (cat pieces); 48 #019 (a transposed bool mask: 114 registers uncapped before, the 64 cap now);
# first calls: 48 #019, #133 (transposes that spilled twice), #052, #152, #135 (outer_norm).
NEW=/tmp/cand/build PREV=/tmp/prev/build OUT=$R/ab PROGS="48:119|023|085|019|133|052|152|135 46:146 40:050 44:053|131 45:155" bash scripts/ab_variants.sh | tail -14
python3 - $R/ab/x <<'PY' | tee $R/first_calls.txt
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/r[12]-*.json")):  # the cold passes
    for p in json.load(open(f))["programs"]:
        print(f.split("/")[-1][:7], p["seed"], p["name"][:60], round(p.get("solder_first_call_ms") or -1), p.get("kernels_compiled"))
PY
cp $R/ab/ab.txt $R/ab.txt; rm -rf $R/ab/x
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
( timeout $((440-SECONDS)) /tmp/cand/build/tests/gpu_flat_index_test --gtest_brief=1 2>&1; echo "gpu_flat_index_test exit $?" ) | tail -6 | tee $R/gpu_tests.txt
( timeout $((520-SECONDS)) /tmp/cand/build/tests/gpu_transpose_test --gtest_brief=1 --gtest_filter='*TransposedBoolMasks:*DtypesBroadcastsAndMisalignment' 2>&1; echo "gpu_transpose_test exit $?" ) | tail -6 | tee -a $R/gpu_tests.txt
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
# 48 #133 (a mean over a transposed f16 input; 128 registers, 2 blocks of 256 an SM): the
# scheduler's plan against the CPU-compiled pin of 64 registers, no spill.
printf '48:133|\n48:133|threads=512,tile_rows=32\n48:133|threads=512\n' > $R/grid133.txt
SOLDER_CACHE_DIR=/tmp/grid-cache PYTHONPATH=/tmp/cand/build/python timeout $((590-SECONDS)) python3 bench/experiments/variant_plan_grid.py $R/grid133.txt --no-peers > $R/grid133.md 2>$R/grid133.err; echo "grid exit $? at ${SECONDS}s" | tee -a $R/times.txt
cat $R/grid133.md
