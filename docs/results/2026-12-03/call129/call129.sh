# Interleaved one_row elements and div_f16 (e1d27f1+) against cfbd80a (stop 52's main), same run:
# every sweep program whose plan was one_row with phased rows (seeds 27-33), A/B alternating;
# gpu_flat_index_test (one_row values) and gpu_executor_test (every elementwise op, division
# included); the owed gpu_inner_staged_test; the rotate-half RoPE's plans against each other and
# torch.compile's kernel (Inductor's code printed).   Before: git archive -o .devbase/prev.tar cfbd80a
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
(bash scripts/build_archive.sh prev _solder > /tmp/br-prev.txt 2>&1 &)
bash scripts/build_patched.sh main '' solder_cli _solder gpu_flat_index_test gpu_executor_test gpu_inner_staged_test || exit 1
until grep -qE "build (ok|FAILED)" /tmp/br-prev.txt 2>/dev/null; do sleep 2; done; tail -1 /tmp/br-prev.txt
echo "built at ${SECONDS}s" | tee $R/times.txt
NEW=/tmp/main/build PREV=/tmp/prev/build OUT=$R/ab PROGS="27:025|049|129|153 28:034|114|128|143 29:036|090|138 30:052|066|087|092|104|106|118|149 31:004|062|082|099|119|131|153 32:108|117|126|155 33:010|020|032|068|080|113|125" bash scripts/ab_variants.sh > /dev/null 2>&1
tail -45 $R/ab/ab.txt
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
for t in gpu_flat_index_test gpu_executor_test; do
  timeout 150 /tmp/main/build/tests/$t --gtest_brief=1 --gtest_filter='-*SampledRows' 2>&1 | tail -3 | sed "s/^/$t /" | tee -a $R/tests.txt
done
echo "tests at ${SECONDS}s" | tee -a $R/times.txt
f=bench/programs/rope_rotate_half_bf16.fusion
for pl in "" one_row=1 threads=512 threads=128 unroll=2 "" one_row=1 threads=512; do
  SOLDER_CACHE_DIR=/tmp/rg timeout 40 /tmp/main/build/solder bench $f --size B=64 --size M=4096 --peers off ${pl:+--plan $pl} 2>&1 | grep "^rope" | sed "s/^/[${pl:-scheduler}] /" | tee -a $R/rope_plans.txt
done
TORCH_LOGS=output_code timeout 60 python3 -c "
import torch
def rope(x, c, s):
    h = x.shape[-1] // 2
    return x * c + torch.cat((-x[..., h:], x[..., :h]), -1) * s
x = torch.randn(64, 4096, 128, device='cuda', dtype=torch.bfloat16); c = torch.randn(4096, 128, device='cuda', dtype=torch.bfloat16)
torch.compile(rope, fullgraph=True, dynamic=False)(x, c, c)
" 2>&1 | grep -E "def triton|triton_heuristics|num_warps|XBLOCK|tl.load|tl.store|x0 = |x1 = |x2 = |grid=|\.run\(" | head -40 | tee $R/inductor_rope.txt
echo "rope at ${SECONDS}s" | tee -a $R/times.txt
timeout $((585 - SECONDS)) /tmp/main/build/tests/gpu_inner_staged_test --gtest_brief=1 2>&1 | tail -3 | sed "s/^/inner_staged /" | tee -a $R/tests.txt
