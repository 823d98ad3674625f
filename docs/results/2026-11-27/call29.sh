# Fresh seed 9 sweep on an idle host (main), then the f32 vec-2 norm grid, then the models table.
R=$OUT; S=build-device/solder; mkdir -p /tmp/o
OUT=/tmp/o BENCH=0 TESTS=0 ./scripts/device.sh > /tmp/o/dev.log 2>&1; grep -E "build ok|failed" /tmp/o/dev.log; echo "built at $SECONDS s"
PYTHONPATH=$PWD/build-device/python timeout 300 python3 bench/variants.py --seed 9 --time-budget 240 -o $R/variants_seed9.json > $R/variants_seed9.txt 2>&1; echo "sweep exit $? at $SECONDS s"; tail -45 $R/variants_seed9.txt
SOLDER=$S bash bench/experiments/plan_grid.sh bench/experiments/f32vec2_grid.txt > $R/f32vec2_grid.md 2>&1; cat $R/f32vec2_grid.md; echo "grid at $SECONDS s"
PYTHONPATH=$PWD/build-device/python timeout $((585-SECONDS)) python3 bench/models.py --models gpt2,vit,llama --dtypes bf16,fp32 --iters 10 --variants inductor,solder,solder+graphs > $R/models.md 2>&1; echo "models exit $? at $SECONDS s"; tail -12 $R/models.md
