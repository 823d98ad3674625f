"""One variant-sweep program's kernels, Solder's and torch.compile's, inside a profiler range
for Nsight Compute: where a kernel of the same accesses loses to Inductor's (issue 27).

    ncu --clock-control none --profile-from-start off --csv --section SpeedOfLight \\
        --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \\
        python3 bench/experiments/profile_variant.py 28:042 [29:135 ...] > ncu.csv

Both sides are compiled and run once first, outside the range; in it, each side runs once after
an L2 flush (the sweep's timing conditions). ncu lists each program's kernels in call order:
the flush's memset, Solder's kernels, the memset, Inductor's. stderr names each program and its
plans.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import variants as V  # noqa: E402


def main(keys):
    import torch
    import variant_ops
    V.torch, V.ops = torch, variant_ops
    torch._dynamo.config.cache_size_limit = 1000
    cudart = torch.cuda.cudart()
    flush = torch.empty(2 * torch.cuda.get_device_properties(0).L2_cache_size, dtype=torch.uint8, device="cuda")
    programs = {}
    for key in keys:
        p, xs, fn = V.keyed_program(key, programs)
        with torch.no_grad():
            torch._dynamo.reset()
            cf = torch.compile(fn, fullgraph=True, dynamic=False)
            ex = variant_ops.solder.Executor(V.build_fusion(p, p.sizes))
            ok, err, _ = V.compare(ex(*xs), V.as_tuple(fn(*xs)))
            cf(*xs)
            torch.cuda.synchronize()
            print(f"== {key} {p.name} ({'ok' if ok else f'WRONG {err:.3g}'}); plans: {'; '.join(V.plans_of(ex))}", file=sys.stderr)
            cudart.cudaProfilerStart()
            for side in (ex, cf):
                flush.zero_()
                side(*xs)
            torch.cuda.synchronize()
            cudart.cudaProfilerStop()


if __name__ == "__main__":
    main(sys.argv[1:])
