#!/usr/bin/env bash
# Same-run A/B of Solder binaries on the GPU machine, alternating so drift hits both alike:
#   BINS="dir/solder-a dir/solder-b" CASES="<example>:<H>:<B> ..." scripts/ab_bench.sh
# Two rounds of every binary over every case (--peers off unless PEERS is set); prints one
# line per run (binary, case, median µs, % of a same-bytes copy, registers, plan) and leaves the
# JSON reports in $J (default /tmp/ab). Each binary compiles into its own cache directory.
set -uo pipefail
cd "$(dirname "$0")/.."
export SOLDER_ROOT=$PWD
J=${J:-/tmp/ab}
mkdir -p "$J"
for rep in 1 2; do
  for bin in ${BINS:?set BINS to the binaries to compare}; do
    tag=$(basename "$(dirname "$bin")" | tr -d .)-$(basename "$bin")
    for c in ${CASES:?set CASES}; do
      IFS=: read -r f h b <<<"$c"
      out="$J/$tag-$f-$h-${b:-8192}-$rep.json"
      SOLDER_CACHE_DIR=/tmp/ab-cache-$tag timeout 150 "$bin" bench "examples/$f.fusion" --size "B=${b:-8192}" --size "H=$h" \
        --peers "${PEERS:-off}" --budget-ms 50 --json "$out" >"${out%.json}.log" 2>&1
      python3 - "$out" "$tag" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["records"]:
    t = r["time_us"]["median"] if isinstance(r["time_us"], dict) else r["time_us"]
    k = r["kernel_resources"][0] if r["kernel_resources"] else {}
    print(f"{sys.argv[2]:24} {r['name']:44} {t:9.1f} us {r['pct_of_copy']:6.1f} % regs {k.get('registers', '-')}"
          f"  {k.get('params', '')}")
PY
    done
  done
done
