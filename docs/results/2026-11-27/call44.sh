# Fresh seed 13 sweep on main 96317dd beside torch.compile; then pinned plans (Solder only) of
# seed 12's worst inner reductions (#090, #136), #064 (amin over [0, 1] of a transposed bf16) and
# #036 (rms over 100 rows of 8192).
R=$OUT; mkdir -p /tmp/o
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log; echo "built at $SECONDS s"
PYTHONPATH=$PWD/build-device/python timeout 290 python3 bench/variants.py --seed 13 --time-budget 230 -o $R/variants_seed13.json > $R/variants_seed13.txt 2>&1; echo "sweep exit $? at $SECONDS s"; grep -A60 "% of a same-bytes" $R/variants_seed13.txt | grep -v "^ *solder_\|^ *view" | head -45
pin() { seed=$1 re=$2 plan=$3; [ $SECONDS -gt 560 ] && return; P=(); [ -n "$plan" ] && P=(--plan "$plan")
  PYTHONPATH=$PWD/build-device/python timeout 40 python3 bench/variants.py --seed $seed --only "$re" --no-probe --no-peers --time-budget 30 "${P[@]}" -o /tmp/o/p.json > /tmp/o/p.txt 2>&1
  python3 -c "import json,sys; r=json.load(open('/tmp/o/p.json'))['programs'][0]; print(r['name'][:40], '|', sys.argv[1] or '(scheduler)', '|', r.get('solder_us'), r.get('status'), (r.get('solder_err') or '')[:80])" "$plan" 2>&1 | tee -a $R/pins.txt; }
for p in "" looped prefetch=0 tickets=0 "threads=1024,threads_per_row=1024,persistent_batch=2,min_blocks=1" "threads=256,threads_per_row=256,persistent_batch=6,min_blocks=4"; do pin 12 '^090 ' "$p"; done
for p in "" looped prefetch=0 tickets=0 "threads=1024,threads_per_row=1024,persistent_batch=2,min_blocks=1" "cluster=2,persistent_batch=2"; do pin 12 '^136 ' "$p"; done
for p in "" cluster=1 cluster=2 cluster=4 cluster=16; do pin 12 '^064 ' "$p"; done
for p in "" row_split=2 cluster=2 "threads=512,threads_per_row=512,persistent_batch=4"; do pin 12 '^036 ' "$p"; done
echo "done at $SECONDS s"
