# Next stop's second call (after call112's builds, which it reuses where the machine stayed
# warm). 0) neg (neg_unrounded.patch: a negated f16/bf16 value not rounded
# back, bit-identical results) against main over RoPE programs. 1) Nsight Compute over Solder's and Inductor's
# kernels of programs whose accesses are the same but where torch.compile wins (seed 28 #042
# one_row f32, #061 a write-bound broadcast; seed 29 #135 RoPE bf16 512, #088 RoPE f16 4098 (the
# shift plan), #036 a 21 MB pointwise one_row, #027 odd halves, #116 a tiny outer var_mean;
# #033 a transposed norm at 43 % of copy, #141 a softmax by hand where both sides reach 37 %):
# duration, DRAM and L2 throughput, occupancy, registers, issue and stall reasons side by side.
# 2) gpu_executor_test (did not run in call111).
R=$OUT; export SOLDER_ROOT=$PWD SOLDER_CACHE_DIR=/tmp/sc-n
D=docs/results/2026-12-02/next/call112; mkdir -p /tmp/o $R/ab2
[ -d /tmp/neg/build/python ] || (bash scripts/build_patched.sh neg $D/neg_unrounded.patch solder _solder > /tmp/o/br-neg.txt 2>&1 &)
[ -x /tmp/main/build/tests/gpu_executor_test ] || bash scripts/build_patched.sh main '' solder _solder gpu_executor_test || exit 1
until [ -d /tmp/neg/build/python ] && ! pgrep -f build_copy.sh > /dev/null; do sleep 2; done
NEW=/tmp/neg/build PREV=/tmp/main/build OUT=$R/ab2 PROGS="25:130 26:046 27:145 28:116 29:088|135" bash scripts/ab_variants.sh
(cd $R && tar -cf x.tar ab2/x && rm -rf ab2/x)
B=/tmp/main/build
# Two runs, the large kernels apart: a run cut off by its timeout leaves no CSV.
for run in "ncu:28:042 28:061 29:135 29:088 29:036 29:027 29:116" "ncu_large:29:033 29:141"; do
  PYTHONPATH=$B/python timeout 240 ncu --clock-control none --profile-from-start off --csv --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy --section ComputeWorkloadAnalysis \
    --section WarpStateStats python3 bench/experiments/profile_variant.py ${run#*:} > $R/${run%%:*}.csv 2> $R/${run%%:*}.err
  echo "ncu exit $?"; grep "^==" $R/${run%%:*}.err
done
# Which pipes the RoPE and the softmax by hand fill (the conversions F2F and MUFU share the XU
# pipe, 16 a clock an SM on sm_90): the pipe metrics this ncu knows, by name.
ncu --query-metrics --chip gh100 > $R/ncu_metrics.txt 2>&1
M=$(grep -oE "^sm__inst_executed_pipe_(xu|alu|fma|fmaheavy|fmalite|lsu|uniform)\b" $R/ncu_metrics.txt | sort -u | sed 's/$/.avg.pct_of_peak_sustained_active/' | paste -sd, -)
[ -n "$M" ] && PYTHONPATH=$B/python timeout 120 ncu --clock-control none --profile-from-start off --csv \
  --metrics "$M,smsp__inst_executed.sum,gpu__time_duration.sum" python3 bench/experiments/profile_variant.py 29:141 29:135 \
  > $R/ncu_pipes.csv 2> $R/ncu_pipes.err; echo "pipes: $M"
python3 - $R/ncu.csv $R/ncu_large.csv <<'PY' | tee $R/ncu_summary.txt
import csv, sys
want = ["Duration", "DRAM Throughput", "L2 Cache Throughput", "Memory Throughput", "L1/TEX Hit Rate", "L2 Hit Rate",
        "Achieved Occupancy", "Registers Per Thread", "Waves Per SM", "Executed Ipc Active", "Issue Slots Busy",
        "Warp Cycles Per Issued Instruction", "Avg. Active Threads Per Warp"]
rows = {}
for n, f in enumerate(sys.argv[1:]):  # each run's CSV apart: its own header, IDs from 0
    try:
        lines = [l for l in open(f) if l.startswith('"')]
    except OSError:
        continue
    for r in csv.DictReader(lines):
        k = (f"{n}.{int(r['ID']):03d}", r["Kernel Name"][:48], r["Grid Size"], r["Block Size"])
        if r["Metric Name"] in want:
            rows.setdefault(k, {})[r["Metric Name"]] = r["Metric Value"] + " " + r["Metric Unit"]
print("| id | kernel | grid | block | " + " | ".join(want) + " |")
for k in sorted(rows):
    print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | " + " | ".join(rows[k].get(m, "") for m in want) + " |")
PY
timeout $((560 - SECONDS)) $B/tests/gpu_executor_test --gtest_brief=1 --gtest_filter='-*SampledRows' 2>&1 | tail -5 | tee $R/gpu_executor.txt
