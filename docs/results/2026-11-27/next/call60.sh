# Golden kernels owed a same-run measurement (changed since 27907f9, timed only in another form):
# outer_colsum_bf16 B=37 H=1030 (outerfill: narrower outer tiles) and w5_gelu_bias_bf16 B=8192
# at H=4096, 20480, 65536 (rows in flight over several passes; H=8192 was timed: 96.34 against
# 96.46 us). base = 27907f9, new = main; base/new/base/new, then solder compare.
# Archive first: git archive 27907f91b89f53aaaf11d9f560459ab647df987f -o .devbase/prev.tar; git archive main -o .devbase/new.tar
R=$OUT; mkdir -p /tmp/o
(bash .devbase/br.sh prev solder > /tmp/o/br-prev.txt 2>&1 &)
bash .devbase/br.sh new solder > /tmp/o/br-new.txt 2>&1
until grep -qE "build ok|FAILED" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-new.txt /tmp/o/br-prev.txt; echo "built at $SECONDS s"
i=0
for which in prev new prev new; do i=$((i+1))
  SOLDER_CACHE_DIR=/tmp/sc-g-$which timeout 120 /tmp/$which/build/solder bench examples/outer_colsum_bf16.fusion --size B=37 --size H=1030 --peers off --json $R/colsum-$which-$i.json > $R/colsum-$which-$i.txt 2>&1
  SOLDER_CACHE_DIR=/tmp/sc-g-$which timeout 200 /tmp/$which/build/solder bench w5_gelu_bias_bf16 --size B=8192 --size H=4096,20480,65536 --peers off --json $R/w5-$which-$i.json > $R/w5-$which-$i.txt 2>&1
done
for t in colsum w5; do /tmp/new/build/solder compare $R/$t-prev-3.json $R/$t-new-4.json | tee -a $R/compare.txt; /tmp/new/build/solder compare $R/$t-prev-1.json $R/$t-new-2.json | tee -a $R/compare.txt; done
echo "done at $SECONDS s"
