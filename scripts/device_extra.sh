#!/usr/bin/env bash
# On the GPU machine, after scripts/device.sh built build-device: the outer-reduction cases
# beside torch (issue 25), the outer persistent normalizations (issues 25, 27) and the few-rows A/B against a carried baseline binary (issue 27).
#   BASE=.devbase/solder ./scripts/device_extra.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/solder-out}
S=build-device/solder
echo "== outer reductions beside torch"
SOLDER_CACHE_DIR=/tmp/sc-outer timeout 300 $S bench examples/outer_colsum_bf16.fusion --size B=16384 --size H=3072 \
  --peers auto --json "$OUT/outer1.json" 2>/dev/null | grep -E "^outer|compile|case" | tail -4
SOLDER_CACHE_DIR=/tmp/sc-outer timeout 300 $S bench examples/outer_var_mean_bf16.fusion --size B=100352 --size H=512 \
  --peers auto --json "$OUT/outer2.json" 2>/dev/null | grep -E "^outer|compile|case" | tail -4
SOLDER_CACHE_DIR=/tmp/sc-outer timeout 300 $S bench examples/outer_mean_mid_f16.fusion --size B=8192 --size H=1024 \
  --peers auto --json "$OUT/outer3.json" 2>/dev/null | grep -E "^outer|compile|case" | tail -4
SOLDER_CACHE_DIR=/tmp/sc-outer timeout 300 $S bench examples/outer_bn_stats_f16.fusion --size B=32,128 --size H=512 \
  --peers auto --json "$OUT/outer4.json" 2>/dev/null | grep -E "^outer|compile|case" | tail -5
echo "== outer persistent normalizations beside torch (µs, % of a same-bytes copy, ratio to torch.compile)"
i=0
for c in "outer_softmax_dim0_f32 --size B=8192 --size H=4096" \
         "outer_softmax_dim0_f32 --size B=100003 --size H=64" \
         "outer_softmax_dim0_f32 --size B=8192 --size H=64" \
         "outer_softmax_mid_mask_f16 --size B=16 --size M=128 --size K=4097" \
         "outer_log_softmax_mid_f16 --size B=64 --size M=100 --size K=1024" \
         "outer_log_softmax_mid_f16 --size B=64 --size M=64 --size K=128" \
         "outer_layer_norm_T_f16 --size B=5120 --size H=6144" \
         "outer_rms_norm_T_f32 --size B=2048 --size H=16384" \
         "reduce_mean12_T_bf16 --size B=32 --size K=1000 --size M=1024"; do
  set -- $c
  i=$((i + 1))
  SOLDER_CACHE_DIR=/tmp/sc-outer timeout 300 $S bench "examples/$1.fusion" "${@:2}" --peers auto \
    --json "$OUT/onorm-$i-$1.json" 2>/dev/null | grep -E "^(outer|reduce)|case" | tail -3
done
if [ -n "${BASE:-}" ]; then
  echo "== few rows: W1 at B=16,64,512, baseline -> this build"
  for pair in "base:$BASE" "new:$S"; do
    t=${pair%%:*}; b=${pair#*:}
    SOLDER_CACHE_DIR=/tmp/few-$t timeout 200 $b bench examples/w1_layer_norm_fused.fusion examples/w1_layer_norm_fused_bf16.fusion \
      examples/w1_layer_norm_fused_f32.fusion --size B=16,64,512 --size H=1024,4096 --peers off --budget-ms 60 \
      --json "$OUT/few-$t.json" >/dev/null 2>&1
  done
  $S compare "$OUT/few-base.json" "$OUT/few-new.json" | tail -22
fi
