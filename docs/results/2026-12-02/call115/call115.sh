# This stop's A/B, one call. Three builds of this tree in parallel:
#   main: the tree (15a0b4a: f16/bf16 tanh and gelu_tanh through tanhf; 9b347d5: rows in flight
#         at vec 1);
#   prev: the tree with prev.patch (those two commits' src reverted: 43542bc's kernels);
#   neg: the tree + next/call112/neg_unrounded.patch (a negated f16/bf16 value not rounded back).
# ab1: main against prev over seed 30's programs with f16/bf16 tanh or gelu_tanh results and
# its two vec-1 programs (#024, #059; #028 was WRONG with tanh.approx). ab2: neg against main
# over RoPE programs. Then the GPU tests of both changes.
R=$OUT; D=docs/results/2026-12-02/call115; mkdir -p /tmp/o $R/ab1 $R/ab2
export SOLDER_ROOT=$PWD
(bash scripts/build_patched.sh neg docs/results/2026-12-02/next/call112/neg_unrounded.patch solder _solder > /tmp/o/br-neg.txt 2>&1 &)
(bash scripts/build_patched.sh prev $D/prev.patch solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash scripts/build_patched.sh main '' solder _solder gpu_row_unroll_test || exit 1
until grep -qE "build (ok|FAILED)" /tmp/o/br-neg.txt 2>/dev/null && grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done
tail -1 /tmp/o/br-neg.txt; tail -1 /tmp/o/br-prev.txt
NEW=/tmp/main/build PREV=/tmp/prev/build OUT=$R/ab1 PROGS="30:012|024|028|034|059|064|072|075|104|134|147|155" bash scripts/ab_variants.sh
NEW=/tmp/neg/build PREV=/tmp/main/build OUT=$R/ab2 PROGS="25:130 26:046 27:145 28:116 29:088|135" bash scripts/ab_variants.sh
(cd $R && tar -cf x.tar ab1/x ab2/x && rm -rf ab1/x ab2/x)
PYTHONPATH=/tmp/main/build/python timeout 120 python3 -m pytest -q python/tests/test_gpu_torch.py -k RoundedTanh 2>&1 | tail -3 | tee $R/t-rounded-tanh.txt
timeout $((570 - SECONDS)) /tmp/main/build/tests/gpu_row_unroll_test --gtest_brief=1 2>&1 | tail -4 | tee $R/t-gpu_row_unroll_test.txt
