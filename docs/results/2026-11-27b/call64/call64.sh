# (1) eager's strides of the composites on CUDA (Solder marks them contiguous); (2) new (main,
# composites contiguous, element ops after reductions following their operands) against prev
# (d034989) over the transposed norm/softmax programs of seeds 15 and 16.
R=$OUT; mkdir -p /tmp/o $R/x
python3 - <<'PY' 2>&1 | tee $R/eager_strides.txt
import torch, torch.nn.functional as F
x = torch.randn(6, 5, 7, device="cuda").permute(2, 0, 1)
for n, f in [("layer_norm", lambda t: F.layer_norm(t, (5,))), ("rms_norm", lambda t: F.rms_norm(t, (5,))),
             ("softmax", lambda t: torch.softmax(t, -1)), ("log_softmax", lambda t: torch.log_softmax(t, -1)),
             ("softmax_dim0", lambda t: torch.softmax(t, 0)), ("bf16 layer_norm", lambda t: F.layer_norm(t.bfloat16(), (5,))),
             ("x - mean", lambda t: t - t.mean(-1, keepdim=True)), ("var_mean", lambda t: torch.var_mean(t, -1)[0])]:
    print(n, tuple(x.stride()), "->", f(x).stride())
PY
(bash scripts/build_archive.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash scripts/build_archive.sh new solder _solder > /tmp/o/br-new.txt 2>&1
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-new.txt /tmp/o/br-prev.txt; echo "built at $SECONDS s"
n=0
for which in new prev new prev; do
  for s in 15 16; do n=$((n+1))
    [ $s = 15 ] && re='^(018|023|066|085|092|135|143|148) '
    [ $s = 16 ] && re='^(009|065|097|107|157) '
    SOLDER_CACHE_DIR=/tmp/sc-$which PYTHONPATH=/tmp/$which/build/python timeout 100 python3 bench/variants.py --seed $s --only "$re" --no-probe --no-peers --time-budget 60 -o $R/x/r$n-$which-$s.json > $R/x/r$n.txt 2>&1
  done; echo "pass $which $SECONDS s"
done
python3 bench/ab_table.py $R/x > $R/ab.txt 2>&1; cat $R/ab.txt
python3 -c "
import json,glob
for f in sorted(glob.glob('$R/x/r[12]-new-*.json')):
  for r in json.load(open(f))['programs']:
    print(r['name'][:50], r.get('layout_differs'), r.get('plans'))"
cd $R && tar -cf x.tar x && rm -rf x
