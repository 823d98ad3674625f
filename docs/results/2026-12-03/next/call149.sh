# Prepared for the next device session (stop 57's owed runs; not yet run): the landed kept-tile
# split rule (3f19fe2) against a1272ad on the programs and sizes whose split count it set
# without a timing of its own build (seed 26 #059: 3 splits as a1272ad; 256x128x512: 16 splits
# of 16, timed at 9 in call147), and pinned plans of seed 39's worst (#007: phased vectors of 8
# beside the bool weight; #120: held against streamed shares).
#   git archive -o .devbase/prev.tar a1272ad; carry [".devbase"]
R=$OUT; mkdir -p $R; D=docs/results/2026-12-03/call147
export SOLDER_ROOT=$PWD
bash scripts/build_patched.sh cand '' _solder solder_cli || exit 1
bash scripts/build_archive.sh prev _solder solder_cli || exit 1
for b in cand prev; do
  SOLDER=/tmp/$b/build/solder SOLDER_CACHE_DIR=/tmp/gc-$b timeout 100 bash bench/experiments/plan_grid.sh $D/grid.txt | grep -v "^|--\|^| case" | sed "s/(scheduler)/$b/" >> $R/grid.md
done
sort -s -t'|' -k2,2 $R/grid.md
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="38:132 26:059 16:007 39:007|120" OUT=$R/ab timeout 200 bash scripts/ab_variants.sh > $R/ab_log.txt 2>&1
cat $R/ab/ab.txt
for pl in "" "vec=8 col_vec=1" "vec=8 col_vec=1 prefetch=0" "prefetch=0"; do
  SOLDER_CACHE_DIR=/tmp/pin007 PYTHONPATH=/tmp/cand/build/python timeout 60 python3 bench/variants.py --programs 39:007 --plan "$pl" \
    --no-probe --no-peers -o /tmp/p.json > /dev/null 2>&1
  python3 -c "import json,sys; r=json.load(open('/tmp/p.json'))['programs'][0]; print('39:007 |', sys.argv[1] or '(scheduler)', '|', r.get('solder_us'), r.get('pct_copy'), r.get('plans'))" "$pl" | tee -a $R/pins.txt
done
rm -rf $R/ab/x/r[234]*.json
