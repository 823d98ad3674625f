#!/usr/bin/env bash
# On the GPU machine: Nsight Compute figures (DRAM throughput, occupancy, issue activity) of the
# kernels of a few workloads, to explain what the bench table shows. Run after device.sh built.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/solder-out}; mkdir -p "$OUT"
BIN=${BIN:-build-device}
metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,sm__inst_executed.avg.per_cycle_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size,l1tex__t_bytes.sum,dram__bytes.sum
for spec in "${@:-w5_gelu_bias_bf16 --size B=8192 --size H=8192}"; do
  echo "== ncu: $spec"
  # shellcheck disable=SC2086
  timeout 240 ncu --metrics "$metrics" -k regex:solder_ -c 2 "$BIN/solder" run $spec >"$OUT/ncu_$(echo $spec | tr ' =' '__').log" 2>&1
  grep -E "solder_|duration|dram__|warps_active|inst_executed|issue_active|registers|grid_size|block_size|l1tex" "$OUT/ncu_$(echo $spec | tr ' =' '__').log" | head -24
done
