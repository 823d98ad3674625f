# call187 (owed by the session of 2026-12-04 20:30): strided_cap.patch (VEC capped where General
# operands a few bytes apart are read element by element) against HEAD, over the strided slices
# of seeds 44-51 whose plans it moves (>= 1 MB), and the GPU test of them with the patch.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
N=docs/results/2026-12-04e/next
( bash scripts/build_patched.sh prev '' _solder > $R/build_prev.txt 2>&1 ) &
bash scripts/build_patched.sh cand $N/strided_cap.patch _solder gpu_flat_index_test | tail -1 || exit 1
wait; tail -n 1 $R/build_prev.txt; echo "built at ${SECONDS}s"
( timeout 60 /tmp/cand/build/tests/gpu_flat_index_test --gtest_brief=1 --gtest_filter='*StridedColumns*' 2>&1; echo "gpu_flat_index_test exit $?" ) | tail -3
echo "test at ${SECONDS}s"
NEW=/tmp/cand/build PREV=/tmp/prev/build OUT=$R/ab PROGS="44:042 45:054|139 48:036|037|091|104 49:094|137 50:082|105|107 51:007|062|106|138" timeout 200 bash scripts/ab_variants.sh | tail -18
cp $R/ab/ab.txt $R/ab.txt; rm -rf $R/ab; echo "ab at ${SECONDS}s"
