# Run with kind nvidia-h100-x2 (multi-GPU machines count their held time in full): ~450 s wall.
# Needs .devbase/new.tar = git archive main (carry .devbase).
# Final main on two GPUs: fresh seeds 20 (GPU 0) and 21 (GPU 1, after the Python GPU tests),
# each beside torch.compile in the same process.
R=$OUT; mkdir -p /tmp/o $R/x
bash scripts/build_archive.sh new solder _solder > /tmp/o/br-new.txt 2>&1; cat /tmp/o/br-new.txt
sweep() {  # seed gpu
  CUDA_VISIBLE_DEVICES=$2 SOLDER_CACHE_DIR=/tmp/sc-$1 PYTHONPATH=/tmp/new/build/python timeout $((590-SECONDS)) python3 bench/variants.py --seed $1 --time-budget $((560-SECONDS)) -o $R/x/variants_seed$1.json > $R/x/variants_seed$1.txt 2>&1
  echo "sweep $1 exit $? $SECONDS s"
}
sweep 20 0 &
( CUDA_VISIBLE_DEVICES=1 PYTHONPATH=/tmp/new/build/python timeout 100 python3 -m unittest discover -s python/tests > $R/x/python-gpu.txt 2>&1; echo "python tests exit $? $SECONDS s"; tail -3 $R/x/python-gpu.txt; grep -E "^(FAIL|ERROR):" $R/x/python-gpu.txt | head
  sweep 21 1 ) &
wait
for s in 20 21; do echo "== seed $s"; grep -A48 "== status" $R/x/variants_seed$s.txt | head -60; done
cd $R && tar -cf x.tar x && rm -rf x
