# Archive first: git archive main -o .devbase/new.tar (carried as .devbase).
# The outer_norm model on two-level reductions (max, then a sum of exp): a threads x cluster grid
# on issue 25's softmax over dim 0 (f32 8192x4096, 71 % of a copy) and the by-hand log_softmaxes
# seeds 15 #066 and 16 #065 (call66: the scheduler's 1024-thread, 8-block clusters 87.5 and 83.7
# against 72.8 and 56.8 pinned). Data for a model term; run after call71.
R=$OUT; mkdir -p /tmp/o
[ -x /tmp/new/build/solder ] || bash scripts/build_archive.sh new solder _solder
for p in "" threads=256,cluster=4 threads=256,cluster=8 threads=512,cluster=4 threads=512,cluster=8 threads=1024,cluster=4 threads=1024,cluster=8 threads=256,cluster=16; do
  [ $SECONDS -gt 450 ] && break
  P=(); [ -n "$p" ] && P=(--plan "$p")
  SOLDER_CACHE_DIR=/tmp/sc-g timeout 60 /tmp/new/build/solder bench examples/outer_softmax_dim0_f32.fusion --size B=8192 --size H=4096 --peers off "${P[@]}" --json /tmp/o/g.json > /tmp/o/g.txt 2>&1
  python3 -c "import json,sys; r=json.load(open('/tmp/o/g.json'))['records'][0]; print('softmax_dim0', sys.argv[1] or '(scheduler)', round(r['time_us']['median'],1), round(r['pct_of_copy'],1), r['kernel_resources'][0].get('params'))" "$p" | tee -a $R/grid.txt
  for sr in "15 066" "16 065"; do set -- $sr
    PYTHONPATH=/tmp/new/build/python timeout 60 python3 bench/variants.py --seed $1 --only "^($2) " --no-probe --no-peers --time-budget 30 "${P[@]}" -o /tmp/o/p.json > /dev/null 2>&1
    python3 -c "import json,sys; [print(r['name'][:40], sys.argv[1] or '(scheduler)', r.get('solder_us'), r.get('plans')) for r in json.load(open('/tmp/o/p.json'))['programs']]" "$p" | tee -a $R/grid.txt
  done
done
