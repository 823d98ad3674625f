# call184 (after call183, on the same machine if still warm): two codegen patches that cut
# compile time, against HEAD; both change golden kernels, timed here in both builds.
# rolled_tail.patch: the flat template's tail chunk rolled where UNROLL > 1 (50 #055's kernel
# 828 -> 480 ms to compile on the 2-core machine; full reductions keep theirs); 5 golden kernels
# change text.
# outer_combine.patch: the outer template's combine of a block's TY row partials rows-outer,
# unrolled by 4 (50 #035's outer sum 277 -> 202 ms to compile); 5 golden kernels change.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
N=docs/results/2026-12-04d/next
( bash scripts/build_patched.sh rolled $N/rolled_tail.patch _solder solder_cli > $R/build_rolled.txt 2>&1 ) &
( bash scripts/build_patched.sh combine $N/outer_combine.patch _solder solder_cli > $R/build_combine.txt 2>&1 ) &
[ -x /tmp/cand/build/solder ] || bash scripts/build_patched.sh cand '' _solder solder_cli | tail -1
wait; tail -1 $R/build_rolled.txt $R/build_combine.txt; echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/rolled/build PREV=/tmp/cand/build OUT=$R/ab_rolled PROGS="50:055" bash scripts/ab_variants.sh | tail -2
NEW=/tmp/combine/build PREV=/tmp/cand/build OUT=$R/ab_combine PROGS="50:035|029|092|148|144|089 49:021|057 48:137 47:142" bash scripts/ab_variants.sh | tail -11
for d in ab_rolled ab_combine; do
  python3 - $R/$d/x <<'PY' | tee $R/first_calls_$d.txt
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/r[12]-*.json")):  # the cold passes
    for p in json.load(open(f))["programs"]:
        print(f.split("/")[-1][:7], p["seed"], p["name"][:50], round(p.get("solder_first_call_ms") or -1), p.get("kernels_compiled"))
PY
  cp $R/$d/ab.txt $R/$d.txt; rm -rf $R/$d
done
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
# The golden kernels each patch changes, in both builds.
{ for H in 1024 4098 5140; do echo "bench/programs/scale.fusion|B=8192 H=$H|"; done
  echo "examples/w3_combined.fusion|B=1024|"; echo "examples/w3_split_stack.fusion|B=1024|"; } > $R/golden_rolled.txt
{ echo "examples/outer_bn_stats_f16.fusion|B=32 H=512|"; echo "examples/outer_colsum_bf16.fusion|B=16384 H=3072|"
  echo "examples/outer_colsum_bf16.fusion|B=37 H=1030|"; echo "examples/outer_mean_mid_f16.fusion|B=8192 H=1024|"
  echo "examples/w4_einsum_2.fusion||"; } > $R/golden_combine.txt
for b in cand rolled; do echo "== $b"; SOLDER=/tmp/$b/build/solder SOLDER_CACHE_DIR=/tmp/gg-$b bash bench/experiments/plan_grid.sh $R/golden_rolled.txt; done | tee $R/golden_rolled.md
for b in cand combine; do echo "== $b"; SOLDER=/tmp/$b/build/solder SOLDER_CACHE_DIR=/tmp/gg-$b bash bench/experiments/plan_grid.sh $R/golden_combine.txt; done | tee $R/golden_combine.md
echo "golden at ${SECONDS}s" | tee -a $R/times.txt
