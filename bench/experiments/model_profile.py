"""Per-kernel GPU time of one model forward (bench/models.py's blocks) under eager, Inductor and
backend="solder", from torch.profiler (CUPTI): where a model's time goes.

    python3 bench/experiments/model_profile.py --model llama --dtype bf16 [--top 25]
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import models  # noqa: E402  (bench/models.py: the blocks and their sizes)


def profile(fn, x, top, label):
    for _ in range(3):
        fn(x)
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            fn(x)
        torch.cuda.synchronize()
    rows = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            r = rows.setdefault(e.name, [0.0, 0])
            r[0] += e.device_time_total if hasattr(e, "device_time_total") else e.cuda_time_total
            r[1] += 1
    total = sum(v[0] for v in rows.values()) / 5
    print(f"\n### {label}: {total:.1f} µs of kernels per forward")
    print("| kernel | µs per forward | launches per forward |\n|---|---:|---:|")
    for name, (us, n) in sorted(rows.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"| {name[:90]} | {us / 5:.1f} | {n / 5:g} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="llama")
    ap.add_argument("--dtype", default="bf16")
    ap.add_argument("--top", type=int, default=25)
    a = ap.parse_args()
    torch.manual_seed(0)
    dtype = models.DTYPES[a.dtype]
    model = models.MODELS[a.model](False).to(device="cuda", dtype=dtype).eval()
    batch, seq = models.FULL[a.model]
    x = torch.randn(batch, seq, model.width, device="cuda", dtype=dtype)
    with torch.no_grad():
        profile(model, x, a.top, "eager")
        for label, kw in (("inductor", {}), ("solder", {"backend": "solder"})):
            torch._dynamo.reset()
            profile(torch.compile(model, **kw), x, a.top, label)


if __name__ == "__main__":
    main()
