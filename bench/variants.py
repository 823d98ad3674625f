#!/usr/bin/env python3
"""The variant sweep (issue 27): seeded programs through Solder, eager and torch.compile.

Seeded programs from the families users write, each run through Solder, torch eager and
torch.compile on the same tensors in one process.

    python3 bench/variants.py --seed 1                    # GPU: check and time every program
    python3 bench/variants.py --seed 1 --dry-run          # CPU: build every program, run it on the
                                                          # reference at tiny sizes against torch CPU
    python3 bench/variants.py --seed 1 --list             # the programs, nothing run
    python3 bench/variants.py --seed 9 --only '^128 ' --explain   # CPU: their plans at the GPU
                                                          # sizes and the sweep's layouts, then
                                                          # the programs whose kernels read or write
                                                          # an operand element by element (general)

On the device: build the module (cmake --build build-device --target _solder), then
PYTHONPATH=build-device/python python3 bench/variants.py --seed N --time-budget 480 in one
10-minute call per seed (torch.compile's cold compiles take most of it; programs not started
within the budget are listed as not run), or two seeds at once, one per GPU, with
CUDA_VISIBLE_DEVICES and a SOLDER_CACHE_DIR each.

A new seed gives new programs (families, variants, dtypes, sizes, layouts), so the sweep cannot
be tuned to. Families: norms (layer, rms, softmax, log_softmax, group-norm-like; with and without
weight, bias, residual, masks, casts; each written several equivalent ways), pointwise chains with
broadcasts along every axis, reductions over every axis and several, and layouts (transposed,
permuted, sliced, concatenated and expanded inputs and outputs); f32, f16 and bf16; odd and small
sizes among them.

Per program: one solder.Executor (its first call's time is the cold compile; a second size of the
batch dim checks it again and counts recompiles), eager and torch.compile (fullgraph=True, a
raised cache_size_limit: seed 000) on the same tensors. Results are checked against eager: within
the dtype's tolerance, or no further from eager than torch.compile is. Timing as DESIGN.md "How to
measure": warm-up, L2 flushed before each repetition, CUDA events, median; % of a same-bytes
device copy timed the same way. Each side's host time per call is recorded too: a torch.compile
call whose host time outlasts the flush starts late, so its figure holds host time; such figures
are flagged (`compile_host_bound`) and counted in the report. Programs Solder cannot express,
refuses or gets wrong are counted and listed, never dropped. Prints the distributions and the 15
worst programs, each with what its own figures say (`figures_say`: small, at the copy's speed,
far under it, torch.compile host-bound, several launches, one element a thread); writes JSON.

The programs: bench/variant_programs.py (the generator); the ops they call, on Solder and on
torch: bench/variant_ops.py.
"""
import argparse
import json
import math
import os
import re
import signal
import sys
import time
import traceback
import zlib

from variant_programs import generate

torch = None  # imported in main(): --list needs neither torch nor solder
ops = None

# (atol, rtol) per output dtype; atol is scaled by max(1, max |eager|) (sums grow with their rows).
TOL = {"f32": (2e-4, 2e-4), "f16": (2e-3, 1e-2), "bf16": (1.6e-2, 4e-2)}


# ---------------------------------------------------------------------------------------------
# Running

def concrete(shape, sizes):
    return [s if isinstance(s, int) else sizes[s.lstrip("=")] for s in shape]


def declared(shape, sizes):
    return [sizes[s[1:]] if isinstance(s, str) and s.startswith("=") else s for s in shape]


def make_input(spec, sizes, device):
    shape = concrete(spec.shape, sizes)
    dt = getattr(torch, ops.TORCH_DT[spec.dtype])

    def base(sh):
        if spec.kind == "mask":
            return torch.rand(sh, device=device) > 0.3
        if spec.kind == "pos":
            return (torch.rand(sh, device=device) + 0.5).to(dt)
        return torch.randn(sh, device=device).to(dt)

    lay = spec.layout if len(shape) >= 2 else "contig"
    if lay == "T":
        return base(shape[:-2] + [shape[-1], shape[-2]]).transpose(-1, -2)
    if lay == "slice":  # rows start at an odd element: unaligned loads
        return base(shape[:-1] + [shape[-1] + 3])[..., 1:1 + shape[-1]]
    if lay == "expand":
        return base([1] + shape[1:]).expand(*shape)
    if lay == "perm" and len(shape) == 3:
        return base([shape[2], shape[0], shape[1]]).permute(1, 2, 0)
    return base(shape)


def as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def keyed_program(key, cache):
    """Program `SEED:NNN` of a sweep (each seed's programs generated once, into `cache`), its
    inputs on the GPU (torch seed 0) and its torch function: for the scripts that take programs
    one by one (bench/experiments)."""
    seed, num = key.split(":")
    if seed not in cache:
        cache[seed] = {p.name.split()[0]: p for p in generate(int(seed), 160)}
    p = cache[seed][num]
    torch.manual_seed(0)
    xs = [make_input(i, p.sizes, "cuda") for i in p.inputs]
    o = ops.TorchOps(p.sizes)
    return p, xs, (lambda *a: p.fn(o, *a))


def build_fusion(p, sizes, bf16_out_as_f32=False):
    """The program as a Fusion. Host runs return numpy arrays, which have no bf16: there
    (bf16_out_as_f32) bf16 outputs are widened to f32, exactly, and compared as such."""
    f = ops.solder.Fusion(re.sub(r"\W", "_", p.name.split()[1].split("/")[0]))
    ts = [f.input(i.name, i.dtype, declared(i.shape, sizes)) for i in p.inputs]
    for t in as_tuple(p.fn(ops.SolderOps(f, sizes), *ts)):
        f.output(ops.solder.cast(t, "f32") if bf16_out_as_f32 and t.dtype == "bf16" else t)
    return f


def moved_bytes(inputs, outputs):
    """Every input read once (stride-0 dims count once) + every output written once."""
    n = 0
    for t in inputs:
        n += t.element_size() * math.prod(s for s, st in zip(t.shape, t.stride()) if st != 0)
    for t in outputs:
        n += t.element_size() * t.numel()
    return n


def compare(got, want):
    """(ok, normalized error): error / tolerance, <= 1 passes; bool outputs must match exactly."""
    got, want = as_tuple(got), as_tuple(want)
    if len(got) != len(want):
        return False, math.inf, f"{len(got)} outputs, eager has {len(want)}"
    worst = 0.0
    for g, w in zip(got, want):
        if tuple(g.shape) != tuple(w.shape):
            return False, math.inf, f"shape {tuple(g.shape)}, eager {tuple(w.shape)}"
        if w.dtype == torch.bool or g.dtype == torch.bool:
            bad = (g.to(torch.bool) != w.to(torch.bool)).sum().item()
            worst = max(worst, math.inf if bad else 0.0)
            continue
        name = {torch.float16: "f16", torch.bfloat16: "bf16"}.get(w.dtype, "f32")
        atol, rtol = TOL[name]
        g64, w64 = g.to(torch.float64), w.to(torch.float64)
        fin = torch.isfinite(w64)
        scale = max(1.0, w64[fin].abs().max().item()) if fin.any() else 1.0
        same = (g64 == w64) | (torch.isnan(g64) & torch.isnan(w64))
        err = torch.where(same, torch.zeros_like(g64), (g64 - w64).abs() / (atol * scale + rtol * w64.abs()))
        err = torch.nan_to_num(err, nan=math.inf)
        worst = max(worst, err.max().item() if err.numel() else 0.0)
    return worst <= 1.0, worst, ""


def layout_order(t):
    """The dims of size > 1, outermost first (by falling stride): a tensor's memory order."""
    return [d for d in sorted(range(t.dim()), key=lambda d: -t.stride(d)) if t.shape[d] > 1]


def layouts_differ(got, want):
    """Outputs whose memory order differs from eager's ('' where all agree): a program timed in
    another layout than torch.compile's (which keeps eager's) moves its data differently."""
    bad = [f"out{i} {layout_order(g)} (eager {layout_order(w)})" for i, (g, w) in enumerate(zip(got, want))
           if tuple(g.shape) == tuple(w.shape) and layout_order(g) != layout_order(w)]
    return "; ".join(bad)


def short_error(e):
    """The error's first line, and the lines after it where it ends in a colon (the reason:
    NVRTC's first error, why a pinned plan is impossible), within 300 characters."""
    lines = [x.strip() for x in str(e).strip().splitlines() if x.strip()]
    text = lines[0] if lines else ""
    for x in lines[1:]:
        if not text.endswith(":"):
            break
        text += " " + x
    return f"{type(e).__name__}: {text}"[:300]


class Timer:
    """Median and min µs of fn: warm-up, L2 flushed before each repetition, CUDA events. Without
    `flush` (a diagnosis of small kernels, whose code and constants the flush evicts too) a spin
    kernel of the flush's length stands in for it, so the launch is still queued ahead of the GPU
    and host time stays out of the figure."""

    def __init__(self, reps, flush=True):
        self.reps = reps
        self.flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")  # >= 2 x L2
        self.before = self.flush.zero_ if flush else (lambda: torch.cuda._sleep(200_000))
        # The GPU time the flush (or spin) keeps the GPU busy ahead of a timed call: a call whose
        # host time passes it starts late, and its figure holds host time (`host_bound`).
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        self.before()
        torch.cuda.synchronize()
        s.record()
        self.before()
        e.record()
        torch.cuda.synchronize()
        self.cover_us = s.elapsed_time(e) * 1e3
        self.last_host_us = 0.0

    def host_bound(self):
        """Whether the last timed fn's host time per call passed the flush's GPU time."""
        return self.last_host_us > self.cover_us

    def __call__(self, fn):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(self.reps)]
        host = []
        for s, e in ev:
            self.before()
            s.record()
            t0 = time.perf_counter()
            fn()
            host.append(time.perf_counter() - t0)
            e.record()
        torch.cuda.synchronize()
        self.last_host_us = sorted(host)[len(host) // 2] * 1e6
        t = sorted(s.elapsed_time(e) * 1e3 for s, e in ev)
        return t[len(t) // 2], t[0]


class CopyCeiling:
    """A device-to-device copy of the same bytes (half read, half written), timed the same way."""

    def __init__(self, timer):
        self.timer, self.cache = timer, {}

    def us(self, nbytes):
        half = max(1, nbytes // 2)
        if half not in self.cache:
            src = torch.empty(half, dtype=torch.uint8, device="cuda")
            dst = torch.empty_like(src)
            self.cache[half] = self.timer(lambda: dst.copy_(src))[0]
        return self.cache[half]


def probe_sizes(p):
    """The sizes of the recompile check: another batch size, same everything else."""
    s = dict(p.sizes)
    if "B" in s:
        s["B"] = s["B"] + 7 if s["B"] < 64 else s["B"] // 2 + 3
    return s


def launches_of(ex):
    try:
        return list(ex.launches())  # kernel names (solder_pw_*, solder_norm_*, ...), "view", "matmul"
    except Exception as e:
        return [short_error(e)]


def plans_of(ex):
    """Each launch's category and plan (as solder explain prints them), so a sweep's report says
    which plan each program ran."""
    try:
        return [f"{c} {p}".strip() for c, p in zip(ex.launch_categories(), ex.launch_params())]
    except Exception as e:
        return [short_error(e)]


def run_gpu(p, opts, timer, copy):
    rec = {"name": p.name, "family": p.family, "sizes": p.sizes, "notes": p.notes}
    try:
        fusion = build_fusion(p, p.sizes)
    except Exception as e:
        rec.update(status="cannot express", error=short_error(e))
        return rec
    torch.manual_seed(zlib.crc32(p.name.encode()))  # stable across processes, unlike hash()
    xs = [make_input(i, p.sizes, "cuda") for i in p.inputs]
    o = ops.TorchOps(p.sizes)
    tfn = lambda *a: p.fn(o, *a)
    try:
        with torch.no_grad():
            ref = as_tuple(tfn(*xs))
    except Exception as e:
        rec.update(status="generator error", error="eager: " + short_error(e))
        return rec
    rec["bytes"] = moved_bytes(xs, ref)
    try:
        ex = ops.solder.Executor(fusion, opts.plan)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = ex(*xs)
        torch.cuda.synchronize()
        rec["solder_first_call_ms"] = (time.perf_counter() - t0) * 1e3
        rec["kernels_compiled"] = ex.kernels_compiled
        rec["launches"] = launches_of(ex)
        rec["plans"] = plans_of(ex)
    except Exception as e:
        msg = short_error(e)
        rec.update(status="refused" if "refus" in msg or "cannot" in msg or "not supported" in msg else "solder error",
                   error=msg)
        return rec
    ok, err, why = compare(out, ref)
    rec["solder_err"] = err
    if layouts_differ(as_tuple(out), ref):
        rec["layout_differs"] = layouts_differ(as_tuple(out), ref)
    cf = None
    try:
        if not opts.peers:
            raise RuntimeError("not run (--no-peers)")
        torch._dynamo.reset()
        cf = torch.compile(tfn, fullgraph=True, dynamic=False)
        t0 = time.perf_counter()
        with torch.no_grad():
            cout = cf(*xs)
        torch.cuda.synchronize()
        rec["compile_first_call_ms"] = (time.perf_counter() - t0) * 1e3
        rec["compile_err"] = compare(cout, ref)[1]
    except Exception as e:
        rec["compile_error"] = short_error(e)
        cf = None
    if not ok and opts.peers and err <= 2 * rec.get("compile_err", 0):  # as close to eager as torch.compile is
        ok = True
    rec["status"] = "ok" if ok else "WRONG"
    if not ok:
        rec["error"] = why or f"max error {err:.3g} x tolerance"
    with torch.no_grad():
        rec["solder_us"], rec["solder_min_us"] = timer(lambda: ex(*xs))
        rec["solder_host_us"] = timer.last_host_us
        if opts.peers:
            rec["eager_us"] = timer(lambda: tfn(*xs))[0]
        if cf is not None:
            rec["compile_us"] = timer(lambda: cf(*xs))[0]
            rec["compile_host_us"] = timer.last_host_us
            if timer.host_bound():  # its figure holds host time past the flush: not the GPU's
                rec["compile_host_bound"] = True
    rec["copy_us"] = copy.us(rec["bytes"])
    rec["pct_copy"] = 100.0 * rec["copy_us"] / rec["solder_us"]
    if "compile_us" in rec:
        rec["ratio_vs_compile"] = rec["solder_us"] / rec["compile_us"]
    if opts.probe and probe_sizes(p) != p.sizes:
        ps = probe_sizes(p)
        try:
            before = ex.kernels_compiled
            xs2 = [make_input(i, ps, "cuda") for i in p.inputs]
            # The reference at the probe's sizes (an expand's target is a size of the program:
            # TorchOps binds it; Solder's program keeps the symbol).
            o2 = ops.TorchOps(ps)
            tfn2 = lambda *a: p.fn(o2, *a)
            ref2 = as_tuple(tfn2(*xs2))
            ok2, err2, _ = compare(ex(*xs2), ref2)
            rec["probe"] = {"sizes": ps, "recompiles": ex.kernels_compiled - before, "ok": ok2, "err": err2}
            if not ok2 and cf is not None:  # the same relief as above, at these sizes
                with torch.no_grad():
                    cf2 = torch.compile(tfn2, fullgraph=True, dynamic=False)
                    rec["probe"]["compile_err"] = cerr2 = compare(cf2(*xs2), ref2)[1]
                ok2 = rec["probe"]["ok"] = err2 <= 2 * cerr2
            if not ok2:
                rec["status"], rec["error"] = "WRONG", f"at probe sizes {ps}: max error {err2:.3g} x tolerance"
        except Exception as e:
            rec["probe"] = {"sizes": ps, "error": short_error(e)}
    return rec


def run_cpu(p, opts):
    """Dry run: the program built at tiny sizes, run on Solder's CPU reference and torch CPU."""
    rec = {"name": p.name, "family": p.family, "sizes": p.tiny}
    try:
        fusion = build_fusion(p, p.tiny, bf16_out_as_f32=True)
    except Exception as e:
        rec.update(status="cannot express", error=short_error(e))
        return rec
    torch.manual_seed(0)
    xs = [make_input(i, p.tiny, "cpu") for i in p.inputs]
    try:
        ref = as_tuple(p.fn(ops.TorchOps(p.tiny), *xs))
    except Exception as e:
        rec.update(status="generator error", error="eager: " + short_error(e))
        return rec
    try:
        out = ops.solder.Executor(fusion)(*xs)
    except Exception as e:
        rec.update(status="solder error", error=short_error(e))
        return rec
    out = [o.to(r.dtype) if r.dtype == torch.bfloat16 else o for o, r in zip(out, ref)]  # exact: bf16 values
    ok, err, why = compare(out, ref)
    rec.update(status="ok" if ok else "WRONG", solder_err=err)
    if not ok:
        rec["error"] = why or f"max error {err:.3g} x tolerance"
    if opts.compile_check:  # plan + NVRTC at the GPU sizes (contiguous inputs), no GPU needed
        try:
            f_gpu = build_fusion(p, p.sizes)
            t0 = time.perf_counter()
            ops.solder.Executor(f_gpu).explain([concrete(i.shape, p.sizes) for i in p.inputs])
            rec["plan_ms"] = (time.perf_counter() - t0) * 1e3
        except Exception as e:
            rec.update(status="refused", error="plan at GPU sizes: " + short_error(e))
    return rec


# ---------------------------------------------------------------------------------------------
# Report

def quantile(v, q):
    v = sorted(v)
    if not v:
        return float("nan")
    i = (len(v) - 1) * q
    lo = math.floor(i)
    return v[lo] + (v[min(lo + 1, len(v) - 1)] - v[lo]) * (i - lo)


def summarize(records, not_run):
    counts = {}
    for r in records:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    if not_run:
        counts["not run"] = len(not_run)
    timed = [r for r in records if "pct_copy" in r]
    big = [r for r in timed if r["bytes"] >= 32 << 20]
    vs = [r for r in timed if "ratio_vs_compile" in r]

    def dist(rows, key, qs=(0.0, 0.1, 0.5)):
        vals = [r[key] for r in rows]
        return {"n": len(vals), **{f"p{int(q * 100)}": quantile(vals, q) for q in qs}}

    speed = [{"speedup": 1.0 / r["ratio_vs_compile"]} for r in vs]
    first = [r["solder_first_call_ms"] for r in records if "solder_first_call_ms" in r]
    recompiles = [r["probe"]["recompiles"] for r in records if "recompiles" in r.get("probe", {})]
    return {
        "counts": counts,
        "pct_copy_all": dist(timed, "pct_copy"),
        "pct_copy_ge_32MB": dist(big, "pct_copy"),
        "speedup_vs_compile": dist(speed, "speedup"),
        "slower_than_1.1x_compile": sum(1 for r in vs if r["ratio_vs_compile"] > 1.1),
        "compile_host_bound": sum(1 for r in vs if r.get("compile_host_bound")),
        "layout_differs": sum(1 for r in records if "layout_differs" in r),
        "solder_first_call_ms": {"median": quantile(first, 0.5), "max": max(first) if first else None},
        "probe_recompiles": {"programs": len(recompiles), "with_recompiles": sum(1 for x in recompiles if x),
                             "total": sum(recompiles)},
        "by_family": {fam: {"programs": sum(1 for r in records if r["family"] == fam),
                            "pct_copy": dist([r for r in timed if r["family"] == fam], "pct_copy"),
                            "speedup_vs_compile": dist([{"speedup": 1.0 / r["ratio_vs_compile"]} for r in vs
                                                        if r["family"] == fam], "speedup")}
                      for fam in sorted({r["family"] for r in records})},
    }


def figures_say(r):
    """What a timed record's own figures say about its gap to torch.compile (the worst programs'
    `why` line; a diagnosis needs `--explain` and a profiler): the size class, where it stands
    against a same-bytes copy, torch.compile's host-bound figure, launches, element-wise plans."""
    said = []
    mb = r["bytes"] / 1e6
    if mb < 4:
        said.append(f"small ({mb:.1f} MB): a same-bytes copy takes {r['copy_us']:.1f} us; launch and latency decide")
    if r["pct_copy"] >= 90:
        said.append(f"at {r['pct_copy']:.0f} % of a same-bytes copy: torch.compile runs under the copy's time")
    elif mb >= 32 and r["pct_copy"] < 60:
        said.append(f"{r['pct_copy']:.0f} % of a same-bytes copy at {mb:.0f} MB: the kernel, not the bytes, sets the time")
    if r.get("compile_host_bound"):
        said.append("torch.compile's figure holds host time")
    kernels = [x for x in r.get("launches", []) if x != "view" and not x.endswith("(in place)")]  # views launch nothing
    if len(kernels) > 1:
        said.append(f"{len(kernels)} launches")
    if any(" vec=1 " in f" {pl} " for pl in r.get("plans", [])):
        said.append("a plan of one element a thread (vec=1)")
    return "; ".join(said) or "none of the usual: see --explain"


def print_report(records, not_run, summary, out=sys.stdout):
    p = lambda *a: print(*a, file=out)
    p("\n== status: " + ", ".join(f"{k} {v}" for k, v in sorted(summary["counts"].items())))
    for label, key in (("% of a same-bytes copy, all", "pct_copy_all"), ("% of a same-bytes copy, >= 32 MB", "pct_copy_ge_32MB"),
                       ("speed vs torch.compile (compile us / solder us)", "speedup_vs_compile")):
        d = summary[key]
        p(f"{label:52s} n={d['n']:4d}  min {d['p0']:7.2f}  p10 {d['p10']:7.2f}  median {d['p50']:7.2f}")
    p(f"slower than 1.1x torch.compile: {summary['slower_than_1.1x_compile']}")
    if summary.get("compile_host_bound"):
        p(f"torch.compile figures holding host time (its call outlasted the L2 flush; their ratios overstate Solder): "
          f"{summary['compile_host_bound']}")
    p(f"outputs in another memory order than eager's: {summary['layout_differs']} programs")
    for fam, d in summary["by_family"].items():
        c, v = d["pct_copy"], d["speedup_vs_compile"]
        p(f"  {fam:10s} {d['programs']:4d} programs, {c['n']:4d} timed: % copy median {c['p50']:6.1f} min {c['p0']:6.1f}; "
          f"speed vs compile median {v['p50']:5.2f} min {v['p0']:5.2f}")
    fc = summary["solder_first_call_ms"]
    if fc["max"] is not None:
        p(f"solder first call (cold compile + run): median {fc['median']:.0f} ms, max {fc['max']:.0f} ms")
    pr = summary["probe_recompiles"]
    p(f"second batch size: {pr['with_recompiles']} of {pr['programs']} programs recompiled ({pr['total']} kernels)")
    for r in records:
        if "layout_differs" in r:
            p(f"  layout differs: {r['name']}: {r['layout_differs']}")
    bad = [r for r in records if r["status"] not in ("ok",)]
    if bad:
        p(f"\n== not ok ({len(bad)})")
        for r in bad:
            p(f"  {r['status']:15s} {r['name']}: {r.get('error', '')}")
    if not_run:
        why = (f"after {summary['context_lost_at']} lost the CUDA context" if summary.get("context_lost_at")
               else "(stopped by SIGTERM)" if summary.get("stopped_by_signal") else "within the time budget")
        p(f"\n== not run {why} ({len(not_run)}): " + ", ".join(n.split()[0] for n in not_run))
    ranked = sorted((r for r in records if "ratio_vs_compile" in r), key=lambda r: -r["ratio_vs_compile"])[:15]
    if ranked:
        p("\n== 15 worst programs (by time against torch.compile)")
        p(f"  {'solder us':>9} {'compile':>8} {'eager':>8} {'x comp':>6} {'%copy':>6} {'MB':>7}  program / launches")
        for r in ranked:
            p(f"  {r['solder_us']:9.1f} {r['compile_us']:8.1f} {r['eager_us']:8.1f} {r['ratio_vs_compile']:6.2f} "
              f"{r['pct_copy']:6.1f} {r['bytes'] / 1e6:7.1f}  {r['name']}")
            p(f"  {'':>50}  {' '.join(r.get('launches', []))}")
            p(f"  {'':>50}  figures: {figures_say(r)}")


# ---------------------------------------------------------------------------------------------

class Stopped(BaseException):  # not an Exception: the per-stage handlers must not catch it
    """Raised by the SIGTERM handler."""


def write_json(path, meta, records, not_run, summary=None):
    with open(path, "w") as f:
        json.dump({"meta": meta, "summary": summary, "programs": records, "not_run": not_run}, f, indent=1,
                  default=str)


def context_alive():
    """After a CUDA error: does the context still run work? A refused launch (invalid argument)
    leaves it usable; a fault (illegal address) does not, and every later program would fail."""
    try:
        t = torch.ones(4, device="cuda")
        t.add_(1)
        torch.cuda.synchronize()
        return bool((t == 2).all())
    except Exception:
        return False


def element_reads(text):
    """Each kernel of an explain text that reads or writes an operand element by element
    (`general` access, the usual mark of a cliff; not `general/seg`, read as vectors along its
    runs): (kernel, scheduler, [operand names])."""
    found = []
    for m in re.finditer(r"kernel (\S+) \((\S+)\)\n\s+params: .*\n\s+operands: (.*)", text):
        names = [o.split("(")[0] for o in m.group(3).split() if re.search(r"\((in|out),general(?!/seg)", o)]
        if names:
            found.append((m.group(1), m.group(2), names))
    return found


def explain_programs(programs, plan=""):
    """solder explain for each program at its GPU sizes, its inputs laid out as the sweep lays
    them out (strides from meta tensors; a slice's one-element offset is not modelled: explain
    takes strides, and plans the inputs aligned); last, the programs whose kernels read or
    write an operand element by element. Returns 1 where any program failed to plan or compile
    (a program a GPU can run must never fail there), else 0."""
    flagged, failed = [], []
    for p in programs:
        xs = [make_input(i, p.sizes, "meta") for i in p.inputs]
        print("=====", p.name)
        try:
            text = ops.solder.Executor(build_fusion(p, p.sizes), plan).explain([list(x.shape) for x in xs],
                                                                             [list(x.stride()) for x in xs])
        except Exception as e:
            print("explain failed:", short_error(e))
            failed.append(p.name)
            continue
        print(text)
        flagged += [(p.name, *k) for k in element_reads(text)]
    print(f"== element-by-element operands (general): {len({f[0] for f in flagged})} of {len(programs)} programs")
    for name, kernel, sched, names in flagged:
        print(f"  {name[:64]:64s} {sched:16s} {', '.join(names)}")
    if failed:
        print(f"== explain failed: {len(failed)} of {len(programs)} programs")
        for name in failed:
            print("  " + name)
    return 1 if failed else 0


def main(argv=None):
    global torch, ops
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=160, help="programs to generate (>= 150 for the issue)")
    ap.add_argument("--limit", type=int, default=0, help="run only the first N programs")
    ap.add_argument("--only", default="", help="regex on program names")
    ap.add_argument("--time-budget", type=float, default=540, help="seconds; programs not started by then are listed")
    ap.add_argument("--reps", type=int, default=20, help="timed repetitions per measurement")
    ap.add_argument("--no-probe", dest="probe", action="store_false", help="skip the second batch size")
    ap.add_argument("--no-l2-flush", dest="l2_flush", action="store_false",
                    help="no L2 flush before each repetition (a diagnosis: small kernels' code and constants stay cached)")
    ap.add_argument("--no-peers", dest="peers", action="store_false",
                    help="time Solder only (no torch.compile, no eager): for A/B runs of pinned plans")
    ap.add_argument("--dry-run", action="store_true", help="CPU: reference at tiny sizes against torch CPU")
    ap.add_argument("--compile-check", action="store_true", help="with --dry-run: also plan and compile (NVRTC) at the GPU sizes")
    ap.add_argument("--list", action="store_true", help="print the programs and exit")
    ap.add_argument("--explain", action="store_true",
                    help="CPU: each program's plans (solder explain) at its GPU sizes and layouts' strides, then exit")
    ap.add_argument("--plan", default="", help="pins every program's kernel plans (ExecutorOptions::plan), e.g. 'unroll=2'")
    ap.add_argument("--programs", default="",
                    help="programs of several seeds in one run, 'SEED:NUMS ...' (NUMS a regex on the numbers, "
                         "e.g. '26:059|126 16:007'): one process for an A/B pass (scripts/ab_variants.sh)")
    ap.add_argument("-o", "--out", default="")
    opts = ap.parse_args(argv)

    if opts.programs:
        programs = []
        for item in opts.programs.split():
            seed, _, nums = item.partition(":")
            for p in generate(int(seed), opts.count):
                if re.search(f"^({nums}) ", p.name) and re.search(opts.only, p.name):
                    p.meta["seed"] = int(seed)
                    programs.append(p)
    else:
        programs = [p for p in generate(opts.seed, opts.count) if re.search(opts.only, p.name)]
        for p in programs:
            p.meta["seed"] = opts.seed
    if opts.limit:
        programs = programs[:opts.limit]
    if opts.list:
        for p in programs:
            print(p.name, p.notes)
        return 0
    try:
        import torch as _torch
    except ImportError:
        print("variants.py: torch is not installed; nothing to compare with", file=sys.stderr)
        return 77  # ctest's skip code
    import variant_ops as _ops  # imports solder
    torch, ops = _torch, _ops
    if opts.explain:
        return explain_programs(programs, opts.plan)
    mode = "cpu" if opts.dry_run else "gpu"
    if mode == "gpu" and not torch.cuda.is_available():
        print("variants.py: no CUDA device; use --dry-run for the CPU check", file=sys.stderr)
        return 2
    out_path = opts.out or os.path.join(os.environ.get("OUT", "."), f"variants_seed{opts.seed}_{mode}.json")
    meta = {"seed": opts.programs or opts.seed, "mode": mode, "count": len(programs), "torch": torch.__version__,
            "device": torch.cuda.get_device_name() if mode == "gpu" else "cpu"}
    if mode == "gpu":
        torch._dynamo.config.cache_size_limit = 1000  # seed 000: never fall back to eager silently
        timer = Timer(opts.reps, opts.l2_flush)
        copy = CopyCeiling(timer)
        meta["large_copy_GBps"] = 2 * (256 << 20) / copy.us(512 << 20) / 1e3
    t_start = time.perf_counter()
    records, not_run = [], []
    lost = None  # a program that broke the CUDA context: every later one would fail the same way
    stopped = []  # SIGTERM (timeout): report what ran instead of dying without a summary

    def on_term(signum, frame):
        stopped.append(signum)
        raise Stopped()

    signal.signal(signal.SIGTERM, on_term)
    for i, p in enumerate(programs):
        if lost or stopped or time.perf_counter() - t_start > opts.time_budget:
            not_run.append(p.name)
            continue
        t0 = time.perf_counter()
        try:
            rec = run_cpu(p, opts) if mode == "cpu" else run_gpu(p, opts, timer, copy)
        except Stopped:
            not_run.append(p.name)
            continue
        except Exception as e:  # one program must never end the sweep
            rec = {"name": p.name, "family": p.family, "status": "sweep error", "error": short_error(e),
                   "trace": traceback.format_exc()[-2000:]}
        rec["wall_s"] = time.perf_counter() - t0
        rec["seed"] = p.meta["seed"]
        records.append(rec)
        if mode == "gpu" and re.search(r"illegal|CUDA_ERROR_(?!OUT_OF_MEMORY)|unspecified launch", rec.get("error", "")) \
                and not context_alive():
            lost = p.name
            print(f"variants.py: {p.name} left the CUDA context unusable; the rest are not run", file=sys.stderr)
        extra = f"{rec['pct_copy']:.0f}% copy, x{rec.get('ratio_vs_compile', float('nan')):.2f} compile" if "pct_copy" in rec else rec.get("error", "")
        print(f"[{i + 1}/{len(programs)}] {rec['status']:13s} {p.name}  {extra}", file=sys.stderr, flush=True)
        if mode == "gpu":
            torch.cuda.empty_cache()
            write_json(out_path, meta, records, not_run)  # after every program: a crash keeps the rest
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    summary = summarize(records, not_run)
    if lost:
        summary["context_lost_at"] = lost
    if stopped:
        summary["stopped_by_signal"] = True
    print_report(records, not_run, summary)
    write_json(out_path, meta, records, not_run, summary)
    print(f"\nwrote {out_path} ({time.perf_counter() - t_start:.0f} s)")
    # The CPU mode is a test: anything but a program Solder cannot express or refuses fails it.
    bad = summary["counts"].keys() - {"ok", "cannot express", "refused"}
    return 1 if mode == "cpu" and bad else 0


if __name__ == "__main__":
    sys.exit(main())
