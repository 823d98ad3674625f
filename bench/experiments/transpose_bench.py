#!/usr/bin/env python3
"""Transposes (issue 25): Solder beside eager and torch.compile on the same tensors, in one process.

    cmake --build build-device --target _solder
    PYTHONPATH=build-device/python python3 bench/experiments/transpose_bench.py [--reps 30] [--json OUT]

The cases are the examples/transpose_*.fusion programs, called through solder.Executor (a Python
call's outputs are contiguous, so a permuted view as an output is written, not returned as a view):
  * transpose-copy f16 8192 x 8192           x.t().contiguous()
  * NCHW -> NHWC f16 32 x 512 x 28 x 28      x.permute(0, 2, 3, 1).contiguous()
  * x.t() + a, bf16 8192 x 8192              xt stored [H, B], a contiguous [B, H]
  * (x + a).tanh().t().contiguous(), bf16 16384 x 4096: one kernel writing its result transposed
The last also runs through torch.compile(backend="solder") (the `.contiguous()` path of a model).

Timing is bench/variants.py's: warm-up, L2 flushed before each repetition, CUDA events, median;
"% copy" is a device-to-device copy of the same bytes (inputs + outputs) timed the same way over
Solder's time. Targets: >= 80 % of a copy, and at least as fast as torch.compile (ratio <= 1).
Each result is checked against eager first. Prints a markdown table; --json writes the records.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import torch  # noqa: E402

import solder  # noqa: E402
import solder.dynamo  # noqa: E402,F401  (registers backend="solder" when solder is not pip-installed)
import variants  # noqa: E402  (Timer, CopyCeiling: the sweep's timing helpers)

variants.torch = torch  # the helpers use the module's torch, which variants.main() would set

# (atol, rtol) against eager, per output dtype (tanh may take the hardware approximation: one ulp).
TOL = {torch.float16: (2e-3, 2e-3), torch.bfloat16: (1.6e-2, 1.6e-2), torch.float32: (1e-5, 1e-5)}


def cases(dev="cuda", small=False):
    """The cases; `small`: tiny sizes (the CPU smoke check)."""
    h, bf = torch.float16, torch.bfloat16
    n, b, c, rows, cols = (8192, 32, 512, 16384, 4096) if not small else (67, 2, 24, 40, 33)

    def rnd(*shape, dtype):
        return torch.randn(*shape, device=dev, dtype=dtype)

    return [
        {"name": f"transpose-copy f16 {n}x{n}", "program": "transpose_copy_f16",
         "inputs": lambda: [rnd(n, n, dtype=h)], "torch": lambda x: x.t().contiguous()},
        {"name": f"NCHW->NHWC f16 {b}x{c}x28x28", "program": "transpose_nchw_nhwc_f16",
         "inputs": lambda: [rnd(b, c, 28, 28, dtype=h)], "torch": lambda x: x.permute(0, 2, 3, 1).contiguous()},
        {"name": f"x.t() + a bf16 {n}x{n}", "program": "transpose_add_bf16",
         "inputs": lambda: [rnd(n, n, dtype=bf), rnd(n, n, dtype=bf)], "torch": lambda xt, a: xt.t() + a},
        {"name": f"(x+a).tanh().t().contiguous() bf16 {rows}x{cols}", "program": "transpose_tanh_out_bf16",
         "inputs": lambda: [rnd(rows, cols, dtype=bf), rnd(rows, cols, dtype=bf)],
         "torch": lambda x, a: (x + a).tanh().t().contiguous(), "backend": True},
    ]


def smoke():
    """CPU: each case at tiny sizes through Solder (its reference executor) against eager."""
    bad = 0
    for case in cases("cpu", small=True):
        xs = case["inputs"]()
        want = case["torch"](*xs)
        ex = solder.Executor(solder.Fusion.load(os.path.join(ROOT, "examples", case["program"] + ".fusion")))
        (got,) = ex(*xs)
        err = max_excess(got, want)
        ok = err <= 1 and tuple(got.shape) == tuple(want.shape)
        bad += not ok
        print(f"{case['name']}: {'ok' if ok else 'WRONG'} (err {err:.3g} x tol, shape {tuple(got.shape)})")
    return 1 if bad else 0


def max_excess(got, want):
    """Largest |got - want| over the tolerance (<= 1 passes)."""
    atol, rtol = TOL[want.dtype]
    g, w = got.float(), want.float()
    return ((g - w).abs() / (atol * max(1.0, w.abs().max().item()) + rtol * w.abs())).max().item()


def moved_bytes(tensors):
    return sum(t.numel() * t.element_size() for t in tensors)


def run(case, timer, copy):
    rec = {"case": case["name"]}
    xs = case["inputs"]()
    fn = case["torch"]
    with torch.no_grad():
        want = fn(*xs)
    rec["bytes"] = moved_bytes(xs + [want])
    f = solder.Fusion.load(os.path.join(ROOT, "examples", case["program"] + ".fusion"))
    ex = solder.Executor(f)
    (got,) = ex(*xs)
    torch.cuda.synchronize()
    rec["launches"] = list(ex.launches())
    rec["contiguous"] = got.is_contiguous()
    rec["solder_err"] = max_excess(got, want)
    torch._dynamo.reset()
    cf = torch.compile(fn, fullgraph=True, dynamic=False)
    with torch.no_grad():
        rec["compile_err"] = max_excess(cf(*xs), want)
        rec["solder_us"] = timer(lambda: ex(*xs))[0]
        rec["eager_us"] = timer(lambda: fn(*xs))[0]
        rec["compile_us"] = timer(lambda: cf(*xs))[0]
        if case.get("backend"):
            try:
                torch._dynamo.reset()
                sf = torch.compile(fn, backend="solder", fullgraph=True, dynamic=False)
                rec["backend_err"] = max_excess(sf(*xs), want)
                rec["backend_us"] = timer(lambda: sf(*xs))[0]
            except Exception as e:  # the table says so; the other columns stand
                rec["backend_error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
    rec["copy_us"] = copy.us(rec["bytes"])
    rec["pct_copy"] = 100.0 * rec["copy_us"] / rec["solder_us"]
    rec["ratio_vs_compile"] = rec["solder_us"] / rec["compile_us"]
    rec["ok"] = rec["solder_err"] <= 1 and rec["contiguous"]
    return rec


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=30, help="timed repetitions per measurement")
    ap.add_argument("--only", default="", help="substring of the case names to run")
    ap.add_argument("--json", default="", help="write the records here")
    ap.add_argument("--smoke", action="store_true", help="CPU: tiny sizes through the reference, no timing")
    opts = ap.parse_args(argv)
    if opts.smoke:
        return smoke()
    if not torch.cuda.is_available():
        print("transpose_bench.py: no CUDA device", file=sys.stderr)
        return 2
    timer = variants.Timer(opts.reps)
    copy = variants.CopyCeiling(timer)
    records = []
    for case in cases():
        if opts.only and opts.only not in case["name"]:
            continue
        try:
            records.append(run(case, timer, copy))
        except Exception as e:  # one case must not end the table
            records.append({"case": case["name"], "error": f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"})
        torch.cuda.empty_cache()
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, median of {opts.reps} "
          "(L2 flushed, CUDA events)\n")
    print("| case | MB | Solder µs | eager µs | torch.compile µs | % of copy | Solder / compile | launches | check |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---|")
    for r in records:
        if "error" in r:
            print(f"| {r['case']} | | | | | | | | ERROR {r['error']} |")
            continue
        launches = ", ".join(r["launches"])
        check = "ok" if r["ok"] else f"WRONG (err {r['solder_err']:.3g} x tol, contiguous {r['contiguous']})"
        print(f"| {r['case']} | {r['bytes'] / 1e6:.0f} | {r['solder_us']:.1f} | {r['eager_us']:.1f} | "
              f"{r['compile_us']:.1f} | {r['pct_copy']:.0f} | {r['ratio_vs_compile']:.2f} | {launches} | {check} |")
    for r in records:
        if "backend_us" in r:
            print(f"\n{r['case']} through torch.compile(backend=\"solder\"): {r['backend_us']:.1f} µs "
                  f"({100.0 * r['copy_us'] / r['backend_us']:.0f} % of a copy, err {r['backend_err']:.3g} x tol)")
        elif "backend_error" in r:
            print(f"\n{r['case']} through torch.compile(backend=\"solder\"): {r['backend_error']}")
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "records": records}, fh, indent=1)
    return 0 if all(r.get("ok") for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())
