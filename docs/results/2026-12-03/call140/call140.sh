# (1) Row operands of a whole transpose tile loaded before its barrier (the normalizing half of a
# transposed layer norm: its mean and rstd per tile row waited out a memory latency after the
# barrier), new = working tree, prev = .devbase/prev.tar (HEAD); GPU transpose tests on new.
# (2) Re-read outer_norm plans (staged outputs, 64-128-byte segments, clusters) against the
# scheduler's held plans on the transposed norms of the golden suite and the seeds.
R=$OUT; mkdir -p $R; D=docs/results/2026-12-03/call140
export SOLDER_ROOT=$PWD
bash scripts/build_archive.sh prev solder_cli || exit 1
bash scripts/build_patched.sh main '' solder_cli gpu_transpose_test || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
timeout 120 /tmp/main/build/tests/gpu_transpose_test --gtest_brief=1 2>&1 | tail -5 | tee $R/gpu_transpose.txt
A=bench/experiments/norm_split/apply_f16.fusion
for i in 1 2; do for b in main prev; do
  for s in "B=4096 H=16384" "B=8192 H=8192"; do set -- $s
    echo "$b $s $(SOLDER_CACHE_DIR=/tmp/c-$b timeout 60 /tmp/$b/build/solder bench $A --size $1 --size $2 --peers off 2>&1 | grep -E '^apply_f16' | head -1)"
  done
  echo "$b transpose_add 8192 $(SOLDER_CACHE_DIR=/tmp/c-$b timeout 60 /tmp/$b/build/solder bench examples/transpose_add_bf16.fusion --size B=8192 --size H=8192 --peers off 2>&1 | grep -E '^transpose_add' | head -1)"
done; done | tee $R/apply_ab.txt
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
SOLDER=/tmp/main/build/solder SOLDER_CACHE_DIR=/tmp/g2 timeout $((560-SECONDS)) bash bench/experiments/plan_grid.sh $D/ogrid.txt > $R/ogrid.md 2>&1
echo "done at ${SECONDS}s" | tee -a $R/times.txt
cat $R/ogrid.md
