# The outer_norm lone-block idle term (call95/lone_idle.patch: a lone block's fixed idle time per
# combine level against its own transfer time, where another block follows it on the SM) against
# main, new/prev/new/prev: the outer_norm programs whose plans it changes (CPU explain, H100
# profile) and their neighbours, and the golden outer norms through solder bench.
R=$OUT; mkdir -p /tmp/o $R/x
(bash scripts/build_patched.sh prev '' solder _solder > /tmp/o/br-prev.txt 2>&1 &)
bash scripts/build_patched.sh cand docs/results/2026-12-01/call95/lone_idle.patch solder _solder || exit 1
until grep -qE "build (ok|FAILED)" /tmp/o/br-prev.txt 2>/dev/null; do sleep 2; done; cat /tmp/o/br-prev.txt
for which in cand prev cand prev; do
  for a in "examples/outer_layer_norm_T_f16.fusion B=5120 H=6144" "bench/programs/outer_rms_norm_T_f16.fusion B=5120 H=6144" "bench/programs/outer_rms_norm_T_bf16.fusion B=5120 H=6144" "examples/outer_softmax_dim0_f32.fusion B=8192 H=4096"; do
    set -- $a
    SOLDER_CACHE_DIR=/tmp/sc-$which timeout 60 /tmp/$which/build/solder bench $1 --size $2 --size $3 --peers off --json /tmp/o/g.json > /tmp/o/g.txt 2>&1
    python3 -c "import json,sys; r=json.load(open('/tmp/o/g.json'))['records'][0]; print(sys.argv[1], sys.argv[2].split('/')[-1], round(r['time_us']['median'],2), r['kernel_resources'][0].get('params','')[:90])" $which $1 2>&1 | tee -a $R/bench.txt
  done
done
NEW=/tmp/cand/build PREV=/tmp/prev/build PROGS="26:009|030|126|102 17:101|145|019 20:037|014|030 21:048 18:000|142" OUT=$R bash scripts/ab_variants.sh
cd $R && tar -cf x.tar x && rm -rf x
