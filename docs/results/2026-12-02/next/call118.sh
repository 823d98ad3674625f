# Next stop's second call. Issue 26's programs beside torch.compile on the H200 (after 43542bc's
# 32-bit window indices and aec777f's unrounded negation: the RoPE at 84.5 % of a copy in
# call106), then a fresh seed (31) beside torch.compile on main, the rest of the call.
R=$OUT
bash scripts/build_patched.sh main '' solder solder_cli _solder || exit 1
B=/tmp/main/build; export SOLDER_ROOT=$PWD
for f in examples/w3_split_stack.fusion:B=1024 examples/w3_combined.fusion:B=1024 bench/programs/rope_rotate_half_bf16.fusion:B=64,M=4096 bench/programs/silu_halves_bf16.fusion:B=16384; do
  file=${f%%:*}; sz=${f#*:}; args=""; for s in ${sz//,/ }; do args="$args --size $s"; done
  SOLDER_CACHE_DIR=/tmp/sc-26 timeout 60 $B/solder bench $file $args --peers auto 2>&1
done 2>&1 | tee $R/issue26.txt
SOLDER_CACHE_DIR=/tmp/sc-31 PYTHONPATH=$B/python timeout $((575-SECONDS)) python3 bench/variants.py --seed 31 --time-budget $((555-SECONDS)) -o $R/variants_seed31.json > $R/variants_seed31.txt 2>&1
echo "sweep exit $? $SECONDS s"; grep -A40 "== status" $R/variants_seed31.txt | head -45
