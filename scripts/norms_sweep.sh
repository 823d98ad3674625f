#!/usr/bin/env bash
# The issue-5 norms sweep on the GPU machine, in parts that each fit one device call:
#   scripts/norms_sweep.sh PART...    PART: tests | sampled | w1f16 | w1bf16 | w1f32 | softmax | rms |
#                                           batches (W1 f16) | batchesbf16 | batchesf32 | graphs
# Binaries from $BIN (default: build-device if built, else the carried .devbin). B=8192 parts
# run torch.compile beside (PEERS=off to skip); each stops at BUDGET seconds in all (default
# 570). Reports go to $OUT/sweep.tgz (<part>.{json,md,log}: the device tool brings back few
# files, so one archive); the pivoted table (bench/norms_table.py) to $OUT/table.md and last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/solder-out}
R=$(mktemp -d)/sweep
mkdir -p "$OUT" "$R"
trap 'tar czf "$OUT/sweep.tgz" -C "$(dirname "$R")" sweep' EXIT
export SOLDER_ROOT=$PWD SOLDER_CACHE_DIR=${SOLDER_CACHE_DIR:-/tmp/solder-cache}
BIN=${BIN:-$([ -x build-device/solder ] && echo build-device || echo .devbin)}
tests=$BIN/tests
start=$(date +%s)
HS=768,1024,2048,4096,5140,8192,12288,16384,20480,32768,65536,770,772,776,784,4098,4100,4104,4112
left() { echo $(( ${BUDGET:-570} - ($(date +%s) - start) )); }
bench() {  # part peers args...
  local part=$1 peers=$2; shift 2
  local l; l=$(left)
  [ "$l" -lt 20 ] && { echo "skip $part (out of time)"; return; }
  timeout "$l" "$BIN/solder" bench "$@" --peers "$peers" --budget-ms 50 \
    --json "$R/$part.json" --md "$R/$part.md" >"$R/$part.log" 2>&1
  echo "$part exit $? at $(( $(date +%s) - start )) s"
}
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader || true
for part in "$@"; do
  case $part in
    tests)  # all but the B=8192 sampled-rows sweeps (part sampled: about 3 minutes each)
      for t in "$tests"/gpu_*; do
        [ -x "$t" ] || continue
        timeout "$(left)" "$t" --gtest_brief=1 --gtest_filter='-*SampledRows' >"$R/$(basename "$t").log" 2>&1
        echo "$(basename "$t") exit $? at $(( $(date +%s) - start )) s"
        grep -E "^\[  (PASSED|FAILED) |tests? ran" "$R/$(basename "$t").log" | tail -4
      done ;;
    sampled)
      timeout "$(left)" "$tests/gpu_executor_test" --gtest_brief=1 --gtest_filter='*SampledRows' >"$R/sampled.log" 2>&1
      echo "sampled exit $? at $(( $(date +%s) - start )) s"
      grep -E "ran in|Failure|^\[  (PASSED|FAILED) |tests? ran" "$R/sampled.log" | tail -8 ;;
    w1f16) bench w1f16 "${PEERS:-auto}" examples/w1_layer_norm_fused.fusion --size B=8192 --size H=$HS ;;
    w1bf16) bench w1bf16 "${PEERS:-auto}" examples/w1_layer_norm_fused_bf16.fusion --size B=8192 --size H=$HS ;;
    w1f32) bench w1f32 "${PEERS:-auto}" examples/w1_layer_norm_fused_f32.fusion --size B=8192 --size H=$HS ;;
    softmax) bench softmax "${PEERS:-auto}" examples/w5_softmax_bf16.fusion --size B=8192 --size H=$HS ;;
    rms) bench rms "${PEERS:-auto}" examples/w5_rms_norm_bf16.fusion --size B=8192 --size H=$HS ;;
    batches) bench batches off examples/w1_layer_norm_fused.fusion --size B=16,512,2048,16384 --size H=$HS ;;
    batchesbf16) bench batchesbf16 off examples/w1_layer_norm_fused_bf16.fusion --size B=16,512,2048,16384 --size H=$HS ;;
    batchesf32) bench batchesf32 off examples/w1_layer_norm_fused_f32.fusion --size B=16,512,2048,16384 --size H=$HS ;;
    graphs) bench graphs off --suite quick --graphs ;;  # CUDA-graph replay host µs beside host µs
    *) echo "unknown part '$part'"; exit 2 ;;
  esac
done
python3 bench/norms_table.py "$R"/*.json --md "$OUT/table.md"
