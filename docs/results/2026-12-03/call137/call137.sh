# The lead for the transposed norms that lose in every seed (seed 34 #099, 35 #147, 36 #111: a
# layer norm over H of a transposed [B, H] = 4096 x 16384): the one-kernel outer_norm form
# against the two-kernel form (statistics as a column reduction, then a transpose kernel that
# normalizes), each half timed alone; torch.compile beside the one-kernel form.
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh main '' solder_cli || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
S="--size B=4096 --size H=16384"
for i in 1 2; do
  for f in bench/experiments/norm_split/stats_f16.fusion bench/experiments/norm_split/apply_f16.fusion; do
    SOLDER_CACHE_DIR=/tmp/ns timeout 60 /tmp/main/build/solder bench $f $S --peers off 2>&1 | grep -E "^(stats|apply)_f16" | tee -a $R/split.txt
  done
done
SOLDER_CACHE_DIR=/tmp/ns timeout 120 /tmp/main/build/solder bench examples/outer_layer_norm_T_f16.fusion $S --peers auto 2>&1 | grep -E "^outer|µs|us " | tail -3 | tee -a $R/one.txt
echo "done at ${SECONDS}s" | tee -a $R/times.txt
