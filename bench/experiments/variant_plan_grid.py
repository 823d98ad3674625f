"""Times pinned plans of variant-sweep programs against each other in one process (the
scheduler's own plan, an empty pin, first), beside torch.compile, to fold measurements into a
scheduler's model (plan_grid.sh does the same for .fusion files through the CLI).

    python3 bench/experiments/variant_plan_grid.py GRID [--no-peers] > table.md

Each line of GRID: `seed:program|plan`, program as its three-digit number, plan as
ExecutorOptions::plan takes it (`threads=512,cluster=8`; empty: the scheduler's choice).
--no-peers skips torch.compile (its compile takes 10-20 s a program on the device)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import variants as V  # noqa: E402


def main(grid, peers=True):
    import torch
    import variant_ops
    V.torch, V.ops = torch, variant_ops
    torch._dynamo.config.cache_size_limit = 1000
    timer = V.Timer(30)
    copy = V.CopyCeiling(timer)
    programs, compiled = {}, {}
    print("| program | plan | µs | % of copy | × torch.compile | ok | kernel plan |\n|---|---|---:|---:|---:|---|---|")
    for line in open(grid):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, _, plan = line.partition("|")
        p, xs, fn = V.keyed_program(key, programs)
        seed = key.split(":")[0]
        with torch.no_grad():
            ref = V.as_tuple(fn(*xs))
            if key not in compiled and not peers:
                compiled[key] = float("nan")
            if key not in compiled:
                torch._dynamo.reset()
                cf = torch.compile(fn, fullgraph=True, dynamic=False)
                cf(*xs)
                compiled[key] = timer(lambda: cf(*xs))[0]
        try:
            ex = variant_ops.solder.Executor(V.build_fusion(p, p.sizes), plan)
            ok, err, _ = V.compare(ex(*xs), ref)
            with torch.no_grad():
                us = timer(lambda: ex(*xs))[0]
            plans = "; ".join(V.plans_of(ex))
        except Exception as e:
            print(f"| {seed}:{p.name[:48]} | {plan or '(scheduler)'} | failed: {V.short_error(e)[:240]} | | | | |", flush=True)
            continue
        cu = copy.us(V.moved_bytes(xs, ref))
        print(f"| {seed}:{p.name[:48]} | {plan or '(scheduler)'} | {us:.1f} | {100 * cu / us:.1f} | "
              f"{us / compiled[key]:.2f} | {'ok' if ok else f'WRONG {err:.3g}'} | {plans[:120]} |", flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1], "--no-peers" not in sys.argv[2:])
