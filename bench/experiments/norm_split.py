"""Norms of a transposed view (the sweep's layout/transposed_norm: x stored [H, B], the norm over
H of x.t(), a contiguous [B, H] output): Solder's one kernel (outer_norm) against the same
program as two Solder kernels (the statistics by the outer reduction, then the normalization
as a transposing pointwise kernel: x read twice, as Inductor's kernels do) and torch.compile,
timed alike in one process. Whether a split plan would pay, before the segmenter learns one.

    python3 bench/experiments/norm_split.py [--no-peers] > table.md"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import variants as V  # noqa: E402

CASES = [  # (kind, dtype, B, H): the sweep's transposed norms and neighbours
    ("layer_norm", "bf16", 8192, 8192), ("layer_norm", "f32", 1024, 12288), ("layer_norm", "f16", 2048, 8192),
    ("layer_norm", "f32", 2048, 16384), ("layer_norm", "f16", 8192, 333), ("layer_norm", "f32", 2048, 770),
    ("rms_norm", "bf16", 4096, 4096), ("rms_norm", "f32", 2048, 16384),
]


def fusions(solder, kind, dt, eps=1e-5):
    """(one, stats, apply): the norm in one fusion, and split in two."""
    one = solder.Fusion("one")
    x, w = one.input("x", dt, ["H", "B"]), one.input("w", dt, ["H"])
    xt = solder.transpose(x, 0, 1)
    one.output(solder.layer_norm(xt, 1, w, eps=eps) if kind == "layer_norm" else solder.rms_norm(xt, 1, w, eps=eps))

    stats = solder.Fusion("stats")
    xt = solder.cast(solder.transpose(stats.input("x", dt, ["H", "B"]), 0, 1), "f32")
    if kind == "layer_norm":
        vm = solder.var_mean(xt, [1], 0, True)
        stats.output(vm.mean)
        stats.output(solder.rsqrt(vm.var + eps))
    else:
        stats.output(solder.rsqrt(solder.mean(xt * xt, [1], True) + eps))

    apply = solder.Fusion("apply")
    xt = solder.cast(solder.transpose(apply.input("x", dt, ["H", "B"]), 0, 1), "f32")
    centre = apply.input("m", "f32", ["B", 1]) if kind == "layer_norm" else None
    r = apply.input("r", "f32", ["B", 1])
    w = solder.cast(apply.input("w", dt, ["H"]), "f32")
    y = ((xt - centre) * r if centre is not None else xt * r) * w
    apply.output(solder.cast(y, dt))
    return one, stats, apply


def main(peers=True):
    import torch
    import variant_ops
    V.torch, V.ops = torch, variant_ops
    solder = variant_ops.solder
    timer = V.Timer(30)
    copy = V.CopyCeiling(timer)
    tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    print("| program | one kernel µs | % copy | split µs | % copy | stats + apply µs | torch.compile µs | split ok | plans |")
    print("|---|---:|---:|---:|---:|---|---:|---|---|")
    for kind, dt, B, H in CASES:
        x = torch.randn(H, B, device="cuda").to(tdt[dt])
        w = torch.randn(H, device="cuda").to(tdt[dt])
        norm = torch.nn.functional.layer_norm if kind == "layer_norm" else torch.nn.functional.rms_norm
        fn = lambda x, w: norm(x.t(), (H,), w, eps=1e-5)  # noqa: E731
        with torch.no_grad():
            ref = fn(x, w).contiguous()
            one, stats, apply = fusions(solder, kind, dt)
            e1, es, ea = solder.Executor(one), solder.Executor(stats), solder.Executor(apply)

            def split():
                s = es(x)
                return ea(x, *s, w) if kind == "layer_norm" else ea(x, s[0], w)

            ok, err, _ = V.compare(split(), (ref,))
            t_one, t_split = timer(lambda: e1(x, w))[0], timer(split)[0]
            s = es(x)
            t_stats = timer(lambda: es(x))[0]
            t_apply = timer(lambda: ea(x, *s, w))[0]
            t_comp = float("nan")
            if peers:
                torch._dynamo.reset()
                cf = torch.compile(fn, fullgraph=True, dynamic=False)
                cf(x, w)
                t_comp = timer(lambda: cf(x, w))[0]
        cu = copy.us(V.moved_bytes([x, w], [ref]))
        plans = "; ".join(V.plans_of(e1) + V.plans_of(es) + V.plans_of(ea))
        print(f"| {kind} {dt} {B}x{H} | {t_one:.1f} | {100 * cu / t_one:.1f} | {t_split:.1f} | {100 * cu / t_split:.1f} | "
              f"{t_stats:.1f} + {t_apply:.1f} | {t_comp:.1f} | {'ok' if ok else f'WRONG {err:.3g}'} | {plans[:200]} |", flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main("--no-peers" not in sys.argv[1:])
