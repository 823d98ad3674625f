#!/usr/bin/env python3
"""Peer timings for the Solder suite: torch eager and torch.compile on the same workloads.

Usage:  python3 bench/peers.py CASES.json [-o peers.json] [--host] [--only REGEX]

CASES.json is written by `solder bench`: a list (or {"cases": [...]}) of
    {"name": "...", "workload": "w1_layer_norm_fused", "inputs": [{"name", "dtype", "shape"}], ...}
Output: {case_name: {"eager_us", "compile_us", ...}, "_meta": {...}}. Times are medians in µs
with L2 flushed between repetitions (triton.testing.do_bench, or CUDA events and a flush
buffer when Triton is missing). `solder` merges them by case name (apply_peer_times).

torch.compile is set up the way seed 000 says a fair comparison needs: fullgraph=True (a graph
break is an error, not a silent eager fallback), dynamic=False, a raised cache_size_limit, and
torch._dynamo.reset() before every case so each case gets a fresh compile.

Without torch (or without a GPU) this prints a note, writes {"error": "..."} and exits 0, so a
benchmark run on a machine without peers still completes.
"""
import argparse
import json
import math
import os
import re
import sys
import time

torch = None  # imported in main(): the module must load (and py_compile) without torch
F = None


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


# ---------------------------------------------------------------------------------------------
# Inputs

DTYPES = {
    "f16": "float16", "half": "float16", "float16": "float16",
    "bf16": "bfloat16", "bfloat16": "bfloat16",
    "f32": "float32", "float": "float32", "float32": "float32",
    "f64": "float64", "float64": "float64",
    "i32": "int32", "int32": "int32", "i64": "int64", "int64": "int64",
    "bool": "bool",
    "f8e4m3": "float8_e4m3fn", "float8_e4m3fn": "float8_e4m3fn",
    "f8e5m2": "float8_e5m2", "float8_e5m2": "float8_e5m2",
}


def torch_dtype(name):
    key = DTYPES.get(str(name).replace("torch.", ""))
    if key is None:
        raise ValueError(f"unknown dtype '{name}'")
    return getattr(torch, key)


def make_tensor(spec):
    dt = torch_dtype(spec["dtype"])
    shape = [int(s) for s in spec.get("shape", [])]
    if dt == torch.bool:
        return torch.rand(shape, device="cuda") > 0.5
    if not dt.is_floating_point:
        return torch.randint(-100, 100, shape, device="cuda", dtype=dt)
    if dt in (torch.float8_e4m3fn, torch.float8_e5m2):
        return torch.randn(shape, device="cuda").to(dt)
    return torch.randn(shape, device="cuda", dtype=dt)


def make_inputs(case):
    """Ordered (name, tensor) pairs from the case's input specs."""
    return [(spec.get("name", f"in{i}"), make_tensor(spec)) for i, spec in enumerate(case.get("inputs", []))]


# ---------------------------------------------------------------------------------------------
# Workloads: each builder takes the case's inputs and returns (fn, args). Inputs are matched by
# name where the seeds name them and by rank/shape otherwise, so the case file stays the single
# source of shapes and dtypes. Anything a case does not provide (e.g. weights) is made here.

def by_names(named, names):
    d = dict(named)
    return [d[n] for n in names] if all(n in d for n in names) else None


def ln_fused(t0, t1, t2, t3, t4):
    """W1, seed 004: t1 + bcast(t0) -> input dtype -> + bcast(t2) -> layer_norm(w=t4, b=t3)."""
    t9 = (t1.float() + t0.float()).to(t1.dtype)
    t14 = (t9.float() + t2.float()).to(t1.dtype)
    return F.layer_norm(t14, (t14.shape[-1],), t4, t3, 1e-5)


def build_w1(case, named):
    args = by_names(named, ["t0", "t1", "t2", "t3", "t4"])
    if args is None:  # positional: the 2-D tensor is t1, the vectors are t0, t2, t3 (bias), t4 (weight)
        ts = [t for _, t in named]
        mat = [t for t in ts if t.dim() == 2]
        vec = [t for t in ts if t.dim() == 1]
        if len(mat) != 1 or len(vec) != 4:
            raise ValueError("w1 needs one [B, H] input and four [H] inputs")
        args = [vec[0], mat[0], vec[1], vec[2], vec[3]]
    return ln_fused, args


def fp8_max(dt):
    return torch.finfo(dt).max


def make_scaled_cast(fp8_dtype, saturated):
    """W2, seed 000: out = fp8(clamp(a * scale)) (clamp only when saturated), amax = max|a|."""
    m = fp8_max(fp8_dtype)

    def scaled_cast(a, scale):
        out = a * scale
        if saturated:
            out = out.clamp(-m, m)
        amax = a.abs().max().float()
        return out.to(fp8_dtype), amax

    return scaled_cast


def build_w2(variant):
    hp, lp, sat = variant

    def build(case, named):
        d = dict(named)
        a = d.get("a", named[0][1] if named else None)
        if a is None:
            raise ValueError("w2 needs an input tensor 'a'")
        if a.dtype != torch_dtype(hp):
            a = a.to(torch_dtype(hp))
        scale = d.get("scale")
        if scale is None:
            scale = torch.tensor(float(case.get("scale", 3.0)), device="cuda")
        return make_scaled_cast(torch_dtype("f8" + lp), sat == "sat"), [a, scale]

    return build


def split_stack(x, ln_w, ln_b, lin_w, lin_b):
    """W3, seed 001: S x (layer norm + tanh on a slice) -> cat -> linear -> relu."""
    D = x.shape[2]
    outs = [torch.tanh(F.layer_norm(x[:, i, :], (D,), ln_w[i], ln_b[i], 1e-5)) for i in range(x.shape[1])]
    return torch.relu(F.linear(torch.cat(outs, dim=1), lin_w, lin_b))


def combined(x, ln_w, ln_b, lin_w, lin_b):
    """W3, the hand-combined version: one layer norm over [B, S, D], reshape, linear, relu."""
    B, S, D = x.shape
    return torch.relu(F.linear(torch.tanh(F.layer_norm(x, (D,), ln_w, ln_b, 1e-5)).reshape(B, S * D), lin_w, lin_b))


def w3_params(named, per_slice):
    """x plus layer-norm and linear parameters, taken from the case by shape or made here."""
    ts = [t for _, t in named]
    x = next((t for t in ts if t.dim() == 3), None)
    if x is None:
        raise ValueError("w3 needs a [B, S, D] input")
    B, S, D = x.shape
    ln_shape = (S, D) if per_slice else (D,)
    ln = [t for t in ts if tuple(t.shape) == ln_shape]
    lin_w = next((t for t in ts if t.dim() == 2 and t.shape[1] == S * D), None)
    out_features = lin_w.shape[0] if lin_w is not None else 1024
    lin_b = next((t for t in ts if t.dim() == 1 and t.shape[0] == out_features and t is not x), None)
    o = dict(device="cuda", dtype=x.dtype)
    ln_w = ln[0] if len(ln) > 0 else 1 + 0.1 * torch.randn(ln_shape, **o)
    ln_b = ln[1] if len(ln) > 1 else 0.1 * torch.randn(ln_shape, **o)
    if lin_w is None:
        lin_w = torch.randn(out_features, S * D, **o) / math.sqrt(S * D)
    if lin_b is None:
        lin_b = 0.1 * torch.randn(out_features, **o)
    return [x, ln_w, ln_b, lin_w, lin_b]


def build_w3(per_slice):
    fn = split_stack if per_slice else combined
    return lambda case, named: (fn, w3_params(named, per_slice))


EINSUM_EQS = {1: "bij,jk", 2: "bij,jk", 3: "bij,jk", 4: "bijk,bklj->bli", 5: "bijk,bklj->bli", 6: "bijk,bklj->bli"}


def build_w4(k):
    """W4, seed 003: einsum with transposes/reshapes around a matmul (host latency)."""
    eq = EINSUM_EQS[k]

    def build(case, named):
        if len(named) != 2:
            raise ValueError("w4 einsum cases take two inputs")
        return (lambda a, b: torch.einsum(eq, a, b)), [t for _, t in named]

    return build


def softmax(x):
    return torch.softmax(x.float(), -1).to(x.dtype)


def rms_norm(x, w):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()).to(x.dtype)


def gelu_bias(x, b):
    return F.gelu(x + b, approximate="tanh")


def outer_colsum(x):
    return x.float().sum(0)


def outer_var_mean(x):
    return torch.var_mean(x.float(), 0)


def outer_mean_mid(x):
    return x.float().mean(1, keepdim=True).half()


def outer_bn_stats(x):
    xf = x.float()
    var, mean = torch.var_mean(xf, (0, 1, 2), correction=0, keepdim=True)
    return mean, torch.rsqrt(var + 1e-5), xf.amax((0, 1, 2), keepdim=True)


def outer_softmax_dim0(x):
    return torch.softmax(x, 0)


def outer_layer_norm_t(xt, w, b):
    x = xt.t()  # the fusion's input is stored [H, B]; the norm runs over the rows of its transpose
    return F.layer_norm(x.float(), (x.shape[1],), w.float(), b.float(), 1e-5).to(xt.dtype)


def outer_rms_norm_t(xt, w):
    x = xt.t()
    return x / torch.sqrt(x.pow(2).mean(1, keepdim=True) + 1e-6) * w


def rope_rotate_half(x, c, s):
    h = x.shape[-1] // 2
    return x * c + torch.cat((-x[..., h:], x[..., :h]), -1) * s


def silu_halves(x):
    h = x.shape[-1] // 2
    return F.silu(x[:, :h]) * x[:, h:]


def few_rows_group_norm(x, w, b):
    return F.layer_norm(x, tuple(x.shape[1:]), w, b, 1e-5)


def few_rows_var(x):
    return torch.var(x.float(), (1, 2), keepdim=True).to(x.dtype)


def few_rows_layer_norm(x, w, b):
    return F.layer_norm(x, (x.shape[-1],), w, b, 1e-5)
def bcast_mid_mask(x, m):
    return (x * m).float()


def bcast_rows(x, a, w):
    return x * a + w


def bcast_every_axis(x, a, b, c, w):
    return x * a + b * c - w


def amax_slice(x):
    return x[:, 1:].amax()


def mean_slice(x):
    return x[:, 1:].mean()


def group_norm_silu(x, w, b):
    return F.silu(F.group_norm(x, 32, w, b, 1e-5))


def pad_exp(x):
    return F.pad(x, (3, 5), value=-1.0).exp()


def pad_hw_add(x, y):
    return F.pad(x, (1, 1, 1, 1)) + y


def max_pool2(x):
    return F.max_pool2d(x, 2)


def build_fixed(fn, arity):
    def build(case, named):
        if len(named) != arity:
            raise ValueError(f"expected {arity} inputs, got {len(named)}")
        return fn, [t for _, t in named]

    return build


WORKLOADS = {
    "w1_layer_norm_fused": build_w1,
    "w3_split_stack": build_w3(per_slice=True),
    "w3_combined": build_w3(per_slice=False),
    "w5_softmax_bf16": build_fixed(softmax, 1),
    "w5_rms_norm_bf16": build_fixed(rms_norm, 2),
    "w5_gelu_bias_bf16": build_fixed(gelu_bias, 2),
    "outer_colsum_bf16": build_fixed(outer_colsum, 1),
    "outer_var_mean_bf16": build_fixed(outer_var_mean, 1),
    "outer_mean_mid_f16": build_fixed(outer_mean_mid, 1),
    "outer_bn_stats_f16": build_fixed(outer_bn_stats, 1),
    "outer_softmax_dim0_f32": build_fixed(outer_softmax_dim0, 1),
    "outer_layer_norm_T_f16": build_fixed(outer_layer_norm_t, 3),
    "outer_rms_norm_T_f32": build_fixed(outer_rms_norm_t, 2),
    "rope_rotate_half_bf16": build_fixed(rope_rotate_half, 3),
    "silu_halves_bf16": build_fixed(silu_halves, 1),
    "few_rows_group_norm_f32": build_fixed(few_rows_group_norm, 3),
    "few_rows_var_bf16": build_fixed(few_rows_var, 1),
    "few_rows_layer_norm_f32": build_fixed(few_rows_layer_norm, 3),
    # bench/programs/: broadcast and sliced operands of the flat template
    "bcast_mid_mask_bf16": build_fixed(bcast_mid_mask, 2),
    "bcast_rows_f16": build_fixed(bcast_rows, 3),
    "bcast_every_axis_bf16": build_fixed(bcast_every_axis, 5),
    "amax_slice_bf16": build_fixed(amax_slice, 1),
    "mean_slice_f32": build_fixed(mean_slice, 1),
    # bench/programs/: what the torch frontend makes of a group norm + SiLU, a pad, a tiled pool
    "group_norm_silu_f16": build_fixed(group_norm_silu, 3),
    "pad_exp_bf16": build_fixed(pad_exp, 1),
    "pad_hw_add_f16": build_fixed(pad_hw_add, 2),
    "max_pool2_f16": build_fixed(max_pool2, 1),
}
for _hp in ("bf16", "f32"):
    for _lp in ("e4m3", "e5m2"):
        for _sat in ("sat", "nosat"):
            WORKLOADS[f"w2_fp8_{_hp}_{_lp}_{_sat}"] = build_w2((_hp, _lp, _sat))
for _k in range(1, 7):
    WORKLOADS[f"w4_einsum_{_k}"] = build_w4(_k)

HOST_LATENCY_WORKLOADS = re.compile(r"^w4_")  # small problems: the host time is the result


def find_builder(case):
    wl = case.get("workload") or case.get("name", "").split("/")[0]
    if wl in WORKLOADS:
        return wl, WORKLOADS[wl]
    for key in sorted(WORKLOADS, key=len, reverse=True):  # "w1_layer_norm_fused_H768" etc.
        if wl.startswith(key):
            return key, WORKLOADS[key]
    return wl, None


# ---------------------------------------------------------------------------------------------
# Timing

def make_timer():
    """Median µs of fn with L2 flushed before each rep: do_bench when Triton is there."""
    try:
        import triton.testing

        def do_bench_us(fn):
            return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median") * 1e3

        return do_bench_us, "triton.testing.do_bench"
    except Exception:
        pass
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")

    def events_us(fn, reps=100):
        for _ in range(5):
            fn()
        torch.cuda.synchronize()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        for s, e in zip(starts, ends):
            flush.zero_()
            s.record()
            fn()
            e.record()
        torch.cuda.synchronize()
        times = sorted(s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends))
        return times[len(times) // 2]

    return events_us, "CUDA events + 256 MiB flush"


def host_us(fn, n=1000):
    """Wall time per call of n back-to-back calls plus one synchronize (as baseline.py)."""
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / n * 1e6


def max_abs_err(a, b):
    if isinstance(a, (tuple, list)):
        return max(max_abs_err(x, y) for x, y in zip(a, b))
    return (a.float() - b.float()).abs().max().item()


def compile_fresh(fn):
    torch._dynamo.reset()  # a fresh compile per case: no cache hits from a previous shape
    return torch.compile(fn, dynamic=False, fullgraph=True)


def run_case(case, timer, want_host):
    wl, build = find_builder(case)
    if build is None:
        return {"error": f"no peer implementation for workload '{wl}'"}
    torch.manual_seed(0)
    fn, args = build(case, make_inputs(case))
    res = {"workload": wl}
    with torch.no_grad():
        ref = fn(*args)
        res["eager_us"] = timer(lambda: fn(*args))
        try:
            t0 = time.perf_counter()
            cf = compile_fresh(fn)
            out = cf(*args)
            torch.cuda.synchronize()
            res["compile_first_call_ms"] = (time.perf_counter() - t0) * 1e3
            res["compile_us"] = timer(lambda: cf(*args))
            res["compile_maxerr"] = max_abs_err(out, ref)
        except Exception as e:  # a graph break under fullgraph=True is reported, not hidden
            res["compile_error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            cf = None
        if want_host or HOST_LATENCY_WORKLOADS.match(wl):
            res["eager_host_us"] = host_us(lambda: fn(*args))
            if cf is not None:
                res["compile_host_us"] = host_us(lambda: cf(*args))
    return res


def load_cases(path):
    with open(path) as f:
        data = json.load(f)
    cases = data.get("cases", []) if isinstance(data, dict) else data
    if not isinstance(cases, list):
        raise ValueError(f"{path}: expected a list of cases or {{'cases': [...]}}")
    return cases


def main(argv=None):
    global torch, F
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", help="case list written by `solder bench`")
    ap.add_argument("-o", "--out", default=os.path.join(os.environ.get("OUT", "."), "peers.json"))
    ap.add_argument("--host", action="store_true", help="also measure host time per call for every case")
    ap.add_argument("--only", default="", help="regex on case names")
    opts = ap.parse_args(argv)

    try:
        import torch as _torch
        import torch.nn.functional as _F
        torch, F = _torch, _F
        if not torch.cuda.is_available():
            raise RuntimeError("torch has no CUDA device")
    except Exception as e:
        msg = f"peers unavailable: {type(e).__name__}: {e}"
        print(f"peers.py: {msg}; writing {opts.out} with the error and exiting", file=sys.stderr)
        write_json(opts.out, {"error": msg})
        return 0

    torch._dynamo.config.cache_size_limit = 1000  # seed 000: never fall back to eager silently
    timer, how = make_timer()
    cases = [c for c in load_cases(opts.cases) if re.search(opts.only, c.get("name", ""))]
    results = {"_meta": {"torch": torch.__version__, "device": torch.cuda.get_device_name(), "timer": how}}
    for i, case in enumerate(cases):
        name = case.get("name", f"case{i}")
        try:
            results[name] = run_case(case, timer, opts.host)
        except Exception as e:
            results[name] = {"error": f"{type(e).__name__}: {e}"}
        r = results[name]
        summary = "  ".join(f"{k} {r[k]:.1f}" for k in ("eager_us", "compile_us") if k in r) or r.get("error", "")
        print(f"[{i + 1}/{len(cases)}] {name}: {summary}", file=sys.stderr)
        write_json(opts.out, results)  # after every case: a crash keeps what was measured
    write_json(opts.out, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
