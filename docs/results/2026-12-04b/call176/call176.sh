# call176: fresh programs for the gapped-reduction split (the four of seeds 49-51 it changes,
# found on the CPU): beside torch.compile on this build, then a same-run A/B against ce2b3cb
# (rev.patch: before the split, the sibling joins and the squeeze chains).
R=$OUT; mkdir -p $R
export SOLDER_ROOT=$PWD
D=docs/results/2026-12-04b/call176
( bash scripts/build_patched.sh prev $D/rev.patch _solder solder_cli > $R/build_prev.txt 2>&1 ) &
bash scripts/build_patched.sh cand '' _solder solder_cli || exit 1
wait; tail -1 $R/build_prev.txt; echo "built at ${SECONDS}s" | tee $R/times.txt
SOLDER_CACHE_DIR=/tmp/sc-peers PYTHONPATH=/tmp/cand/build/python timeout 80 python3 bench/variants.py --programs "49:015|114 50:152 51:005" --no-probe --time-budget 70 -o $R/peers.json > $R/peers.txt 2>&1
echo "peers exit $? at ${SECONDS}s" | tee -a $R/times.txt; grep -A12 "15 worst" $R/peers.txt
NEW=/tmp/cand/build PREV=/tmp/prev/build OUT=$R/ab PROGS="49:015|114 50:152 51:005" timeout $((225-SECONDS)) bash scripts/ab_variants.sh | tail -6
cp $R/ab/ab.txt $R/ab.txt 2>/dev/null; rm -rf $R/ab/x
echo "ab at ${SECONDS}s" | tee -a $R/times.txt
