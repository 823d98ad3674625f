#!/usr/bin/env bash
# Same-run A/B of two Python builds over variant-sweep programs, alternating new/prev/new/prev
# so drift hits both alike:
#   NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="15:051 16:096|159" OUT=dir scripts/ab_variants.sh
# Each build times its programs into its own kernel cache (bench/variants.py --programs
# --no-probe --no-peers, one process a pass); the reports land in $OUT/x as r<N>-<new|prev>-0.json
# (bench/ab_table.py's names; each record holds its seed) and the table of medians in $OUT/ab.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${NEW:?set NEW to the candidate's build dir}" "${PREV:?set PREV to the baseline's build dir}" "${PROGS:?set PROGS}"
: "${OUT:?set OUT}"
mkdir -p "$OUT/x"
n=0
for which in new prev new prev; do
  build=$PREV
  [ "$which" = new ] && build=$NEW
  n=$((n + 1))
  # Every seed's programs in one process (torch imported once a pass).
  SOLDER_CACHE_DIR=/tmp/ab-variants-$which PYTHONPATH=$build/python timeout 400 python3 bench/variants.py --programs "$PROGS" \
    --no-probe --no-peers --time-budget 300 -o "$OUT/x/r$n-$which-0.json" >"$OUT/x/r$n.txt" 2>&1
  echo "pass $which done at $SECONDS s"
done
python3 bench/ab_table.py "$OUT/x" | tee "$OUT/ab.txt"
