# call183 (owed by the session of 2026-12-04 18:30): two patches against HEAD, then pins.
# outer_twice.patch: the outer scheduler's first candidate at 2048 threads resident (32
# registers for 256-thread blocks); 49 #021's pin of it ran 50.6 -> 44.5 us (call179).
# rolled_tail.patch: the flat template's tail chunk rolled where UNROLL > 1 (compile time:
# 50 #055 828 -> 480 ms on the 2-core machine); 13 golden kernels change text, and W2's f32
# e4m3 sat full reduction falls from unroll=4 to unroll=1 (its rolled tail spills 8 bytes at 32).
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
N=docs/results/2026-12-04d/next
( bash scripts/build_patched.sh twice $N/outer_twice.patch _solder solder_cli > $R/build_twice.txt 2>&1 ) &
( bash scripts/build_patched.sh rolled $N/rolled_tail.patch _solder solder_cli > $R/build_rolled.txt 2>&1 ) &
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_executor_test | tail -1 || exit 1
wait; tail -1 $R/build_twice.txt $R/build_rolled.txt; echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/twice/build PREV=/tmp/cand/build OUT=$R/ab_twice PROGS="45:010|105|103|135 46:117|149 47:032|102|077|142 48:142|071|137|150 49:021|053 50:089|028" bash scripts/ab_variants.sh | tail -20
NEW=/tmp/rolled/build PREV=/tmp/cand/build OUT=$R/ab_rolled PROGS="50:055" bash scripts/ab_variants.sh | tail -2
python3 - $R/ab_rolled/x <<'PY' | tee $R/first_calls_rolled.txt
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/r[12]-*.json")):
    for p in json.load(open(f))["programs"]:
        print(f.split("/")[-1][:7], p["seed"], p["name"][:50], round(p.get("solder_first_call_ms") or -1), p.get("kernels_compiled"))
PY
for d in ab_twice ab_rolled; do cp $R/$d/ab.txt $R/$d.txt; rm -rf $R/$d; done
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
# The golden kernels rolled_tail.patch changes, both builds.
{ for H in 1024 4098 5140; do echo "bench/programs/scale.fusion|B=8192 H=$H|"; done
  for ty in bf16 f32; do for fm in e4m3 e5m2; do for s in sat nosat; do echo "examples/w2_fp8_${ty}_${fm}_${s}.fusion|N=2097152|"; done; done; done
  echo "examples/w3_combined.fusion|B=1024|"; echo "examples/w3_split_stack.fusion|B=1024|"; } > $R/golden_grid.txt
for b in cand rolled; do echo "== $b"; SOLDER=/tmp/$b/build/solder SOLDER_CACHE_DIR=/tmp/gg-$b bash bench/experiments/plan_grid.sh $R/golden_grid.txt; done | tee $R/golden_grid.md
echo "golden at ${SECONDS}s" | tee -a $R/times.txt
SOLDER_CACHE_DIR=/tmp/grid-cache PYTHONPATH=/tmp/cand/build/python timeout $((590-SECONDS)) python3 bench/experiments/variant_plan_grid.py $N/grid183.txt --no-peers > $R/grid183.md 2>$R/grid183.err; echo "grid exit $? at ${SECONDS}s" | tee -a $R/times.txt
cat $R/grid183.md
# The quotient tests, refactored onto expect_special_pairs after call180 (not yet run so).
( timeout $((595-SECONDS)) /tmp/cand/build/tests/gpu_executor_test --gtest_brief=1 --gtest_filter='*Quotient*' 2>&1; echo "gpu_executor_test exit $?" ) | tail -4
