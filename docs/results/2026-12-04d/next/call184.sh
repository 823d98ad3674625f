# call184 (after call183, on the same machine if still warm): rolled_tail.patch against HEAD.
# The flat template's tail chunk rolled where UNROLL > 1 (compile time: 50 #055 828 -> 480 ms on
# the 2-core machine); 13 golden kernels change text, and W2's f32 e4m3 sat full reduction falls
# from unroll=4 to unroll=1 (its rolled tail spills 8 bytes at 32 registers): fix that first.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
N=docs/results/2026-12-04d/next
( bash scripts/build_patched.sh rolled $N/rolled_tail.patch _solder solder_cli > $R/build_rolled.txt 2>&1 ) &
[ -x /tmp/cand/build/solder ] || bash scripts/build_patched.sh cand '' _solder solder_cli | tail -1
wait; tail -1 $R/build_rolled.txt; echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/rolled/build PREV=/tmp/cand/build OUT=$R/ab_rolled PROGS="50:055" bash scripts/ab_variants.sh | tail -2
python3 - $R/ab_rolled/x <<'PY' | tee $R/first_calls_rolled.txt
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/r[12]-*.json")):
    for p in json.load(open(f))["programs"]:
        print(f.split("/")[-1][:7], p["seed"], p["name"][:50], round(p.get("solder_first_call_ms") or -1), p.get("kernels_compiled"))
PY
cp $R/ab_rolled/ab.txt $R/ab_rolled.txt; rm -rf $R/ab_rolled
# The golden kernels rolled_tail.patch changes, both builds.
{ for H in 1024 4098 5140; do echo "bench/programs/scale.fusion|B=8192 H=$H|"; done
  for ty in bf16 f32; do for fm in e4m3 e5m2; do for s in sat nosat; do echo "examples/w2_fp8_${ty}_${fm}_${s}.fusion|N=2097152|"; done; done; done
  echo "examples/w3_combined.fusion|B=1024|"; echo "examples/w3_split_stack.fusion|B=1024|"; } > $R/golden_grid.txt
for b in cand rolled; do echo "== $b"; SOLDER=/tmp/$b/build/solder SOLDER_CACHE_DIR=/tmp/gg-$b bash bench/experiments/plan_grid.sh $R/golden_grid.txt; done | tee $R/golden_grid.md
echo "golden at ${SECONDS}s" | tee -a $R/times.txt
