#!/usr/bin/env bash
# Times pinned plans of one case against each other (the scheduler's own plan first), to fold
# measurements into a scheduler's model. Each line of GRID: `fusion-file|sizes|plan`, sizes as
# `B=5120 H=6144` (a word starting with `--`, such as `--contiguous-outputs`, is passed to
# `solder bench` as is), plan as `solder explain --plan` takes it (empty: the scheduler's choice).
#   SOLDER=build-device/solder bench/experiments/plan_grid.sh GRID > table.md
set -uo pipefail
S=${SOLDER:-build-device/solder}
printf '| case | plan | µs | %% of copy | regs |\n|---|---|---:|---:|---:|\n'
while IFS='|' read -r file sizes plan; do
  [ -z "$file" ] || [ "${file#\#}" != "$file" ] && continue
  args=()
  for s in $sizes; do case $s in --*) args+=("$s") ;; *) args+=(--size "$s") ;; esac; done
  [ -n "$plan" ] && args+=(--plan "$plan")
  j=$(mktemp)
  SOLDER_CACHE_DIR=${SOLDER_CACHE_DIR:-/tmp/sc-grid} timeout 120 "$S" bench "$file" "${args[@]}" --peers off --budget-ms 40 \
    --json "$j" >/dev/null 2>&1
  python3 - "$j" "$file" "$sizes" "${plan:-(scheduler)}" <<'PY'
import json, sys
j, f, sizes, plan = sys.argv[1:]
try:
    r = json.load(open(j))["records"][0]
    regs = max(k["registers"] for k in r["kernel_resources"])
    print(f"| {f.split('/')[-1]} {sizes} | {plan} | {r['time_us']['median']:.1f} | {r['pct_of_copy']:.1f} | {regs} |")
except Exception as e:
    print(f"| {f.split('/')[-1]} {sizes} | {plan} | failed ({type(e).__name__}) | | |")
PY
  rm -f "$j"
done < "$1"
