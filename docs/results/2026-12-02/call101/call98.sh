# Next stop's third call: next/grid96.txt's pinned plans of seed 26's programs still over 1.1x
# torch.compile or under 60 % of a copy (no torch.compile here: call92 has its figures); then
# next/general_inputs_defer.patch against main (untimed: outer_norm takes norms whose residual
# is in the inner layout beside a transposed x where inner's first plan does not stage x, which
# inner read element by element: seed 27 #071, bf16 4096x12288; seed 20 #103, f32 4096x12288,
# 575.7 us against torch.compile's 346.3 on the H100; seed 27 #107 is small; seed 26 #030 and
# #126 keep their plans). If kept_tile_splits landed first, the patch still applies (-U1).
R=$OUT; N=docs/results/2026-12-01/next; mkdir -p /tmp/o
(bash scripts/build_patched.sh cand $N/general_inputs_defer.patch solder _solder > /tmp/o/br-cand.txt 2>&1 &)
bash scripts/build_patched.sh main '' solder _solder || exit 1
PYTHONPATH=/tmp/main/build/python SOLDER_CACHE_DIR=/tmp/sc-g timeout 300 python3 bench/experiments/variant_plan_grid.py $N/grid96.txt --no-peers 2>&1 | tee $R/grid96.md
until grep -qE "build (ok|FAILED)" /tmp/o/br-cand.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-cand.txt
NEW=/tmp/cand/build PREV=/tmp/main/build PROGS="27:071|107|057 20:103 26:030|126" OUT=$R bash scripts/ab_variants.sh
cd $R && tar -cf x.tar x && rm -rf x
