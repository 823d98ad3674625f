# Outer reductions' last rows in one step (new = main HEAD) against its parent (prev),
# new/prev/new/prev: small and tall outer programs of seeds 20/21 (#043 2x17x1024, #092 16x2048
# were ~1 us behind torch.compile's kernels), and the four golden examples whose kernels change.
# Carry .devbase (prev.tar, new.tar).
R=$OUT; mkdir -p /tmp/o $R/x
(bash scripts/build_archive.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash scripts/build_archive.sh new solder _solder > /tmp/o/br-new.txt 2>&1
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-new.txt /tmp/o/br-prev.txt; echo "built at $SECONDS s"
n=0
for which in new prev new prev; do n=$((n+1))
  for sd in "20 043|021|009" "21 092|101"; do set -- $sd
    SOLDER_CACHE_DIR=/tmp/sc-$which PYTHONPATH=/tmp/$which/build/python timeout 90 python3 bench/variants.py --seed $1 --only "^($2) " --no-probe --no-peers --time-budget 60 -o $R/x/r$n-$which-$1.json > $R/x/r$n-$1.txt 2>&1
  done
  for e in "outer_var_mean_bf16 B=100352 H=512" "outer_colsum_bf16 B=16384 H=3072" "outer_colsum_bf16 B=37 H=1030" "outer_bn_stats_f16 B=32 H=512" "outer_mean_mid_f16 B=8192 H=1024"; do set -- $e
    f=$1; shift; S=(); for s in "$@"; do S+=(--size $s); done
    SOLDER_CACHE_DIR=/tmp/sc-$which timeout 60 /tmp/$which/build/solder bench examples/$f.fusion "${S[@]}" --peers off --json /tmp/o/g.json > /tmp/o/g.txt 2>&1
    python3 -c "import json,sys; r=json.load(open('/tmp/o/g.json'))['records'][0]; print(sys.argv[1], sys.argv[2], sys.argv[3], round(r['time_us']['median'],2), round(r['pct_of_copy'],1), r['kernel_resources'][0].get('params'))" $which $f "$*" | tee -a $R/bench.txt
  done
  echo "pass $n $which $SECONDS s"
done
python3 bench/ab_table.py $R/x | tee $R/ab.txt
cd $R && tar -cf x.tar x && rm -rf x
