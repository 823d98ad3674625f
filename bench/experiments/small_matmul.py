"""Where a matmul stops being cheaper as a reduction kernel (passes/small_matmuls.h): batched
matmuls from a few thousand to tens of millions of multiply-adds, timed alike in one process as
torch.matmul (cuBLAS), as Solder's matmul program (built with
docs/results/2026-12-04e/next/small_matmuls_size.patch: a reduction up to its bound, cuBLASLt
above it; main: cuBLASLt) and as the same product written as a sum of a broadcast product (a
reduction at any size). GPU µs (L2 flushed, median) and host µs per call; the crossover sets the bound.

    python3 bench/experiments/small_matmul.py > table.md"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import variants as V  # noqa: E402

CASES = [  # (dtype, batch, M, N, K)
    ("f32", 2, 16, 16, 16), ("f32", 2, 8, 8, 256), ("f32", 1, 64, 64, 64), ("f32", 4, 64, 64, 64),
    ("f32", 8, 64, 64, 128), ("f32", 16, 64, 64, 128), ("f32", 8, 128, 128, 128), ("f32", 1, 1, 4096, 1024),
    ("bf16", 2, 16, 16, 16), ("bf16", 4, 64, 64, 64), ("bf16", 8, 64, 64, 128), ("bf16", 8, 128, 128, 128),
    ("bf16", 32, 128, 128, 128),
]


def fusions(solder, dt, b, m, n, k):
    mm = solder.Fusion("mm")
    mm.output(solder.matmul(mm.input("a", dt, [b, m, k]), mm.input("b", dt, [b, k, n])))
    red = solder.Fusion("red")
    a, w = red.input("a", dt, [b, m, k]), red.input("b", dt, [b, k, n])
    a, w = solder.cast(a, "f32"), solder.cast(w, "f32")
    p = solder.unsqueeze(a, 2) * solder.unsqueeze(solder.transpose(w, 1, 2), 1)
    red.output(solder.cast(solder.sum(p, [3]), dt))
    return mm, red


def main():
    import torch
    import variant_ops
    V.torch, V.ops = torch, variant_ops
    solder = variant_ops.solder
    timer = V.Timer(50)
    tdt = {"f32": torch.float32, "bf16": torch.bfloat16}
    print("| dtype | batch x M x N x K | MACs | torch.matmul µs (host) | Solder matmul µs (host) | as a reduction µs (host) | Solder's launches |")
    print("|---|---|---:|---|---|---|---|")
    for dt, b, m, n, k in CASES:
        a = torch.randn(b, m, k, device="cuda").to(tdt[dt])
        w = torch.randn(b, k, n, device="cuda").to(tdt[dt])
        mm, red = fusions(solder, dt, b, m, n, k)
        e_mm, e_red = solder.Executor(mm), solder.Executor(red)
        want = torch.matmul(a.float(), w.float()).to(tdt[dt])
        row = []
        for fn in (lambda: torch.matmul(a, w), lambda: e_mm(a, w), lambda: e_red(a, w)):
            ok, err, _ = V.compare(fn(), (want,))
            t = timer(fn)[0]
            row.append(f"{t:.1f} ({timer.last_host_us:.1f})" + ("" if ok else f" WRONG {err:.3g}"))
        print(f"| {dt} | {b}x{m}x{n}x{k} | {b * m * n * k} | {' | '.join(row)} | {'; '.join(V.plans_of(e_mm))[:120]} |", flush=True)


if __name__ == "__main__":
    main()
