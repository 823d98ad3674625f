# Element results in eager's layout (main 78d9df6 = new) against d034989 (prev): the Python GPU
# tests on new, then every transposed-input program of seeds 15 and 16, new/prev/new/prev.
R=$OUT; mkdir -p /tmp/o $R/x
(bash scripts/build_archive.sh prev solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash scripts/build_archive.sh new solder _solder > /tmp/o/br-new.txt 2>&1
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-new.txt /tmp/o/br-prev.txt; echo "built at $SECONDS s"
PYTHONPATH=/tmp/new/build/python timeout 150 python3 -m unittest discover -s python/tests > $R/python-gpu.txt 2>&1; echo "python tests exit $? $SECONDS s"; tail -3 $R/python-gpu.txt; grep -E "^(FAIL|ERROR):" $R/python-gpu.txt | head
n=0
for which in new prev new prev; do
  for s in 15 16; do n=$((n+1))
    [ $SECONDS -gt 560 ] && continue
    [ $s = 15 ] && re='^(009|011|018|023|033|034|049|050|052|054|058|066|067|069|073|085|087|092|093|101|120|135|143|148|159) '
    [ $s = 16 ] && re='^(009|029|033|045|050|053|058|061|065|067|084|097|107|125|128|138|157) '
    SOLDER_CACHE_DIR=/tmp/sc-$which PYTHONPATH=/tmp/$which/build/python timeout 150 python3 bench/variants.py --seed $s --only "$re" --no-probe --no-peers --time-budget 100 -o $R/x/r$n-$which-$s.json > $R/x/r$n.txt 2>&1
    echo "pass $n $which seed $s $SECONDS s"
  done
done
python3 bench/ab_table.py $R/x > $R/ab.txt 2>&1; cat $R/ab.txt | head -80
cd $R && tar -cf x.tar x && rm -rf x
