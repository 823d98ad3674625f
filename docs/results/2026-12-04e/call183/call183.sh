# call183 (owed by the session of 2026-12-04 18:30): two untimed scheduler patches against HEAD,
# pins of seed 49/50's worst, and the quotient tests. call184.sh follows (rolled_tail.patch).
# outer_twice.patch: the outer scheduler's first candidate at 2048 threads resident (32
# registers for 256-thread blocks); 49 #021's pin of it ran 50.6 -> 44.5 us (call179).
# inner_loads_model.patch: the inner register model counts the loads of two or more row
# inputs; 4 final plans move over seeds 44-50.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
N=docs/results/2026-12-04d/next
( bash scripts/build_patched.sh twice $N/outer_twice.patch _solder solder_cli > $R/build_twice.txt 2>&1 ) &
( bash scripts/build_patched.sh model $N/inner_loads_model.patch _solder solder_cli > $R/build_model.txt 2>&1 ) &
bash scripts/build_patched.sh cand '' _solder solder_cli gpu_executor_test | tail -1 || exit 1
wait; tail -1 $R/build_twice.txt $R/build_model.txt; echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/twice/build PREV=/tmp/cand/build OUT=$R/ab_twice PROGS="45:010|105|103|135 46:117|149 47:032|102|077|142 48:142|071|137|150 49:021|053 50:089|028" bash scripts/ab_variants.sh | tail -20
NEW=/tmp/model/build PREV=/tmp/cand/build OUT=$R/ab_model PROGS="44:073 45:007|061 50:052" bash scripts/ab_variants.sh | tail -5
for d in ab_twice ab_model; do cp $R/$d/ab.txt $R/$d.txt; rm -rf $R/$d; done
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
SOLDER_CACHE_DIR=/tmp/grid-cache PYTHONPATH=/tmp/cand/build/python timeout $((570-SECONDS)) python3 bench/experiments/variant_plan_grid.py $N/grid183.txt --no-peers > $R/grid183.md 2>$R/grid183.err; echo "grid exit $? at ${SECONDS}s" | tee -a $R/times.txt
cat $R/grid183.md
# The quotient tests, refactored onto expect_special_pairs after call180 (not yet run so).
( timeout $((595-SECONDS)) /tmp/cand/build/tests/gpu_executor_test --gtest_brief=1 --gtest_filter='*Quotient*' 2>&1; echo "gpu_executor_test exit $?" ) | tail -4
