# (1) The outer grid form at 768 threads an SM (new = main HEAD) against its parent (prev),
# new/prev/new/prev: the 16 seed-17/18 programs whose plans change, the four golden examples.
# (2) A seed 19 sweep of new (fresh programs, beside torch.compile in the same process).
R=$OUT; mkdir -p /tmp/o $R/x
(bash scripts/build_archive.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash scripts/build_archive.sh new solder _solder > /tmp/o/br-new.txt 2>&1
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-new.txt /tmp/o/br-prev.txt; echo "built at $SECONDS s"
n=0
for which in new prev new prev; do n=$((n+1))
  for sd in "17 008|021|025|077|110|128|130|148" "18 017|052|054|083|091|110|140|158"; do set -- $sd
    SOLDER_CACHE_DIR=/tmp/sc-$which PYTHONPATH=/tmp/$which/build/python timeout 90 python3 bench/variants.py --seed $1 --only "^($2) " --no-probe --no-peers --time-budget 60 -o $R/x/r$n-$which-$1.json > $R/x/r$n-$1.txt 2>&1
  done
  for e in "outer_var_mean_bf16 B=100352 H=512" "outer_colsum_bf16 B=16384 H=3072" "outer_bn_stats_f16 B=32 H=512" "outer_mean_mid_f16 B=8192 H=1024"; do set -- $e
    f=$1; shift; S=(); for s in "$@"; do S+=(--size $s); done
    SOLDER_CACHE_DIR=/tmp/sc-$which timeout 60 /tmp/$which/build/solder bench examples/$f.fusion "${S[@]}" --peers off --json /tmp/o/g.json > /tmp/o/g.txt 2>&1
    python3 -c "import json,sys; r=json.load(open('/tmp/o/g.json'))['records'][0]; print(sys.argv[1], sys.argv[2], round(r['time_us']['median'],1), round(r['pct_of_copy'],1), r['kernel_resources'][0].get('params'))" $which $f | tee -a $R/bench.txt
  done
  echo "pass $n $which $SECONDS s"
done
python3 bench/ab_table.py $R/x | tee $R/ab.txt
SOLDER_CACHE_DIR=/tmp/sc-19 PYTHONPATH=/tmp/new/build/python timeout $((595-SECONDS)) python3 bench/variants.py --seed 19 --time-budget $((575-SECONDS)) -o $R/x/variants_seed19.json > $R/x/variants_seed19.txt 2>&1
echo "sweep exit $? $SECONDS s"; grep -A48 "== status" $R/x/variants_seed19.txt | head -64
cd $R && tar -cf x.tar x && rm -rf x
