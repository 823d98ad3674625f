# Transposed layer norm 4096x16384 (the seeds' worst): (1) tile order of the transpose kernel
# (tile_group: tiles walk G tile rows before the next column, so the staged input's rows are read
# in longer runs) on the normalizing half and on transposes; (2) pinned plans of the one-kernel
# outer_norm form (clusters, re-read rows) and of the statistics half.
R=$OUT; mkdir -p $R; D=docs/results/2026-12-03/call139
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh main '' solder_cli || exit 1
echo "built at ${SECONDS}s" | tee $R/times.txt
SOLDER=/tmp/main/build/solder SOLDER_CACHE_DIR=/tmp/g1 timeout 250 bash bench/experiments/plan_grid.sh $D/tgrid.txt > $R/tgrid.md 2>&1
echo "tgrid at ${SECONDS}s" | tee -a $R/times.txt
SOLDER=/tmp/main/build/solder SOLDER_CACHE_DIR=/tmp/g2 timeout $((560-SECONDS)) bash bench/experiments/plan_grid.sh $D/ogrid.txt > $R/ogrid.md 2>&1
echo "done at ${SECONDS}s" | tee -a $R/times.txt
cat $R/tgrid.md $R/ogrid.md
