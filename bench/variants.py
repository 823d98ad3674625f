#!/usr/bin/env python3
"""The variant sweep (issue 27): seeded programs from the families users write, each run
through Solder, torch eager and torch.compile on the same tensors in one process.

    python3 bench/variants.py --seed 1                    # GPU: check and time every program
    python3 bench/variants.py --seed 1 --dry-run          # CPU: build every program, run it on the
                                                          # reference at tiny sizes against torch CPU
    python3 bench/variants.py --seed 1 --list             # the programs, nothing run

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
device copy timed the same way. Programs Solder cannot express, refuses or gets wrong are counted
and listed, never dropped. Prints the distributions and the 15 worst programs; writes JSON.
"""
import argparse
import json
import math
import os
import random
import re
import sys
import time
import traceback
import zlib
from dataclasses import dataclass, field

torch = None  # imported in main(): --list needs neither torch nor solder
F = None
solder = None

EPS_LN, EPS_RMS = 1e-5, 1e-6
TORCH_DT = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "bool": "bool"}
# (atol, rtol) per output dtype; atol is scaled by max(1, max |eager|) (sums grow with their rows).
TOL = {"f32": (2e-4, 2e-4), "f16": (2e-3, 1e-2), "bf16": (1.6e-2, 4e-2)}


# ---------------------------------------------------------------------------------------------
# Programs: one function `fn(o, *inputs)` per program, run with o = SolderOps (building a Fusion)
# or o = TorchOps (eager, and traced by torch.compile), so both sides run the same program.

@dataclass
class In:
    name: str
    dtype: str
    shape: list  # size symbols (str), constants (int), or "=SYM": a constant, the size SYM has in
    #              the run the program is built for
    layout: str = "contig"  # contig | T (last two dims swapped in memory) | slice (odd offset into
    #                          a wider row) | expand (stride 0 along dim 0) | perm (rank 3, dims rotated)
    kind: str = "randn"  # randn | pos (values in [0.5, 1.5)) | mask (bool)


@dataclass
class Program:
    name: str
    family: str
    inputs: list
    fn: object
    sizes: dict  # symbol -> size on the GPU
    tiny: dict  # symbol -> size for --dry-run
    notes: str = ""
    meta: dict = field(default_factory=dict)


class SolderOps:
    """The program's ops on Solder tensors (building one Fusion)."""

    def __init__(self, fusion, sizes):
        self.f, self.sizes = fusion, sizes

    def n(self, sym):  # a size as a constant of the program (slice bounds)
        return sym if isinstance(sym, int) else self.sizes[sym]

    def d(self, sym):  # a size as the program's symbol (expand targets)
        return sym

    def cast(self, x, dt):
        return solder.cast(x, dt)

    def _t(self, v, like):
        return v if isinstance(v, solder.Tensor) else self.f.constant(float(v), like.dtype)

    def where(self, c, a, b):
        like = a if isinstance(a, solder.Tensor) else b
        return solder.where(c, self._t(a, like), self._t(b, like))

    def gt(self, a, b):
        return solder.gt(a, b)

    def logical_and(self, a, b):
        return solder.logical_and(a, b)

    def maximum(self, a, b):
        return solder.maximum(a, b)

    def clamp(self, x, lo, hi):
        return solder.clamp(x, lo, hi)

    def sum(self, x, axes, keepdim=False):
        return solder.sum(x, list(axes), keepdim)

    def mean(self, x, axes, keepdim=False):
        return solder.mean(x, list(axes), keepdim)

    def amax(self, x, axes, keepdim=False):
        return solder.max(x, list(axes), keepdim)

    def amin(self, x, axes, keepdim=False):
        return solder.min(x, list(axes), keepdim)

    def var(self, x, axes, correction, keepdim=False):
        return solder.var_mean(x, list(axes), correction, keepdim).var

    def var_mean(self, x, axes, correction, keepdim=False):
        vm = solder.var_mean(x, list(axes), correction, keepdim)
        return vm.var, vm.mean

    def layer_norm(self, x, n, w=None, b=None, eps=EPS_LN):
        return solder.layer_norm(x, n, w, b, eps)

    def rms_norm(self, x, n, w=None, eps=EPS_RMS):
        return solder.rms_norm(x, n, w, eps)

    def softmax(self, x, axis):
        return solder.softmax(x, axis)

    def log_softmax(self, x, axis):
        return solder.log_softmax(x, axis)

    def transpose(self, x, a, b):
        return solder.transpose(x, a, b)

    def permute(self, x, dims):
        return solder.permute(x, list(dims))

    def slice(self, x, axis, start, end=None, step=1):
        return solder.slice(x, axis, start, (1 << 63) - 1 if end is None else end, step)  # to the end

    def cat(self, xs, axis):
        return solder.cat(list(xs), axis)

    def unsqueeze(self, x, axis):
        return solder.unsqueeze(x, axis)

    def expand(self, x, shape):
        return solder.expand(x, [self.d(s) for s in shape])

    def __getattr__(self, name):  # unary math: exp, tanh, sigmoid, relu, silu, gelu_tanh, ...
        return getattr(solder, name)


class TorchOps:
    """The same ops on torch tensors, with Solder's composites' semantics."""

    def __init__(self, sizes):
        self.sizes = sizes

    def n(self, sym):
        return sym if isinstance(sym, int) else self.sizes[sym]

    d = n

    def cast(self, x, dt):
        return x.to(getattr(torch, TORCH_DT[dt]))

    def where(self, c, a, b):
        return torch.where(c, a, b)

    def gt(self, a, b):
        return a > b

    def logical_and(self, a, b):
        return a & b

    def maximum(self, a, b):
        return torch.maximum(a, b)

    def clamp(self, x, lo, hi):
        return torch.clamp(x, lo, hi)

    def sum(self, x, axes, keepdim=False):
        return x.sum(dim=tuple(axes), keepdim=keepdim)

    def mean(self, x, axes, keepdim=False):
        return x.mean(dim=tuple(axes), keepdim=keepdim)

    def amax(self, x, axes, keepdim=False):
        return torch.amax(x, dim=tuple(axes), keepdim=keepdim)

    def amin(self, x, axes, keepdim=False):
        return torch.amin(x, dim=tuple(axes), keepdim=keepdim)

    def var(self, x, axes, correction, keepdim=False):
        return torch.var(x, dim=tuple(axes), correction=correction, keepdim=keepdim)

    def var_mean(self, x, axes, correction, keepdim=False):
        return torch.var_mean(x, dim=tuple(axes), correction=correction, keepdim=keepdim)

    def layer_norm(self, x, n, w=None, b=None, eps=EPS_LN):
        return F.layer_norm(x, tuple(x.shape[-n:]), w, b, eps)

    def rms_norm(self, x, n, w=None, eps=EPS_RMS):  # Solder's composite: f32 statistics, cast back
        xf = x.float()
        y = xf * torch.rsqrt((xf * xf).mean(dim=tuple(range(-n, 0)), keepdim=True) + eps)
        if w is not None:
            y = y * w.float()
        return y.to(x.dtype)

    def softmax(self, x, axis):
        return torch.softmax(x, axis)

    def log_softmax(self, x, axis):
        return torch.log_softmax(x, axis)

    def transpose(self, x, a, b):
        return x.transpose(a, b)

    def permute(self, x, dims):
        return x.permute(*dims)

    def slice(self, x, axis, start, end=None, step=1):
        idx = [slice(None)] * x.dim()
        idx[axis] = slice(start, end, step)
        return x[tuple(idx)]

    def cat(self, xs, axis):
        return torch.cat(list(xs), axis)

    def unsqueeze(self, x, axis):
        return x.unsqueeze(axis)

    def expand(self, x, shape):
        return x.expand(*[self.n(s) for s in shape])

    def gelu_tanh(self, x):
        return F.gelu(x, approximate="tanh")

    def silu(self, x):
        return F.silu(x)

    # Plain methods, no __getattr__: torch.compile traces these with fullgraph=True.
    def exp(self, x):
        return torch.exp(x)

    def log(self, x):
        return torch.log(x)

    def tanh(self, x):
        return torch.tanh(x)

    def sigmoid(self, x):
        return torch.sigmoid(x)

    def relu(self, x):
        return torch.relu(x)

    def abs(self, x):
        return torch.abs(x)

    def neg(self, x):
        return torch.neg(x)

    def sqrt(self, x):
        return torch.sqrt(x)

    def rsqrt(self, x):
        return torch.rsqrt(x)


# ---------------------------------------------------------------------------------------------
# The generator. Each family draws its variants from the seeded rng; sizes come from menus with
# odd and small entries. About half the programs move >= 32 MB.

ROWS = [16, 64, 100, 257, 1000, 1024, 2048, 4096, 8192, 16384]
COLS = [64, 96, 128, 333, 770, 1024, 1600, 2048, 3000, 4096, 4097, 5140, 8192, 12288, 16384]
DTYPES = ["f32", "f16", "bf16"]
TINY = {"B": 5, "H": 12, "M": 4, "K": 6, "G": 3}


def pick_rows_cols(rng, large):
    for _ in range(100):
        b, h = rng.choice(ROWS), rng.choice(COLS)
        n = b * h
        if (large and 8 << 20 <= n <= 64 << 20) or (not large and n <= 8 << 20):
            return b, h
    return (8192, 4096) if large else (100, 770)


def pick_3d(rng, large):
    for _ in range(100):
        b = rng.choice([2, 4, 8, 16, 32, 64, 128])
        m = rng.choice([3, 17, 64, 100, 128, 256, 512, 1000])
        k = rng.choice([8, 64, 96, 128, 333, 512, 768, 1024, 4097])
        n = b * m * k
        if (large and 8 << 20 <= n <= 64 << 20) or (not large and n <= 8 << 20):
            return b, m, k
    return (32, 512, 1024) if large else (8, 100, 333)


def chance(rng, p):
    return rng.random() < p


def low(dt):
    return dt in ("f16", "bf16")


# ---- norms ------------------------------------------------------------------------------------

def layer_norm_by_hand(o, x, w, b, way, dt):
    xf = o.cast(x, "f32") if low(dt) else x
    m = o.mean(xf, [-1], True)
    if way == "var":
        y = (xf - m) / o.sqrt(o.var(xf, [-1], 0, True) + EPS_LN)
    elif way == "squares":
        d = xf - m
        y = d * o.rsqrt(o.mean(d * d, [-1], True) + EPS_LN)
    else:  # "pow": (x - m) ** 2 and a reciprocal of the root
        d = xf - m
        y = d * (1.0 / o.sqrt(o.mean(d ** 2, [-1], True) + EPS_LN))
    if w is not None:
        y = y * (o.cast(w, "f32") if low(dt) else w)
    if b is not None:
        y = y + (o.cast(b, "f32") if low(dt) else b)
    return o.cast(y, dt) if low(dt) else y


def gen_layer_norm(rng):
    dt = rng.choice(DTYPES)
    large = chance(rng, 0.5)
    B, H = pick_rows_cols(rng, large)
    way = rng.choice(["builder", "builder", "explicit_casts", "var", "squares", "pow"])
    has_w, has_b = chance(rng, 0.7), chance(rng, 0.6)
    resid, pre_bias = chance(rng, 0.4), chance(rng, 0.3)
    layout = rng.choice(["contig"] * 5 + ["T", "slice"])
    out_f32 = low(dt) and chance(rng, 0.2)
    ins = [In("x", dt, ["B", "H"], layout)]
    if resid:
        ins.append(In("r", dt, ["B", "H"]))
    if pre_bias:
        ins.append(In("pb", dt, ["H"]))
    if has_w:
        ins.append(In("w", dt, ["H"]))
    if has_b:
        ins.append(In("b", dt, ["H"]))

    def fn(o, *xs):
        it = iter(xs)
        x = next(it)
        if resid:
            x = x + next(it)
        if pre_bias:
            x = x + next(it)
        w = next(it) if has_w else None
        b = next(it) if has_b else None
        if way == "builder":
            y = o.layer_norm(x, 1, w, b)
        elif way == "explicit_casts":  # the example's spelling: f32 math, one cast back
            f = (lambda t: o.cast(t, "f32")) if low(dt) else (lambda t: t)
            y = o.layer_norm(f(x), 1, None if w is None else f(w), None if b is None else f(b))
            y = o.cast(y, dt) if low(dt) else y
        else:
            y = layer_norm_by_hand(o, x, w, b, way, dt)
        return o.cast(y, "f32") if out_f32 else y

    tag = "".join(t for t, on in (("+w", has_w), ("+b", has_b), ("+res", resid), ("+bias_in", pre_bias),
                                   ("+f32out", out_f32)) if on)
    return Program(f"layer_norm/{way}{tag}/{layout}/{dt}/{B}x{H}", "norm", ins, fn, {"B": B, "H": H}, dict(TINY))


def gen_rms_norm(rng):
    dt = rng.choice(DTYPES)
    B, H = pick_rows_cols(rng, chance(rng, 0.5))
    way = rng.choice(["builder", "rsqrt", "div_sqrt"])
    has_w, resid = chance(rng, 0.7), chance(rng, 0.4)
    layout = rng.choice(["contig"] * 5 + ["T", "slice"])
    ins = [In("x", dt, ["B", "H"], layout)] + ([In("r", dt, ["B", "H"])] if resid else []) + (
        [In("w", dt, ["H"])] if has_w else [])

    def fn(o, *xs):
        x = xs[0] + xs[1] if resid else xs[0]
        w = xs[-1] if has_w else None
        if way == "builder":
            return o.rms_norm(x, 1, w)
        xf = o.cast(x, "f32") if low(dt) else x
        if way == "rsqrt":
            y = xf * o.rsqrt(o.mean(xf * xf, [-1], True) + EPS_RMS)
        else:
            y = xf / o.sqrt(o.mean(xf ** 2, [-1], True) + EPS_RMS)
        if w is not None:
            y = y * (o.cast(w, "f32") if low(dt) else w)
        return o.cast(y, dt) if low(dt) else y

    tag = ("+w" if has_w else "") + ("+res" if resid else "")
    return Program(f"rms_norm/{way}{tag}/{layout}/{dt}/{B}x{H}", "norm", ins, fn, {"B": B, "H": H}, dict(TINY))


def gen_softmax(rng, log=False):
    dt = rng.choice(DTYPES)
    three_d = chance(rng, 0.4)
    way = rng.choice(["builder", "builder", "by_hand"])
    scale = chance(rng, 0.4)
    mask = rng.choice([None, None, "bool_row", "bool_col", "additive"]) if not log else None
    layout = rng.choice(["contig"] * 5 + ["T"])
    if three_d:
        B, M, K = pick_3d(rng, chance(rng, 0.5))
        shape, sizes, axis = ["B", "M", "K"], {"B": B, "M": M, "K": K}, rng.choice([-1, -1, 1])
    else:
        B, H = pick_rows_cols(rng, chance(rng, 0.5))
        shape, sizes, axis = ["B", "H"], {"B": B, "H": H}, -1
    ins = [In("x", dt, shape, layout)]
    if mask in ("bool_row", "bool_col"):
        ms = [1] * len(shape)
        ms[axis] = shape[axis]  # broadcast along every other axis...
        if mask == "bool_col":  # ...or along the softmax axis only
            ms = list(shape)
            ms[axis] = 1
        ins.append(In("mask", "bool", ms, kind="mask"))
    elif mask == "additive":
        ins.append(In("mask", dt, [1] * (len(shape) - 1) + [shape[-1]]))

    def fn(o, *xs):
        x = xs[0]
        if scale:
            x = x * 0.125
        if mask in ("bool_row", "bool_col"):
            x = o.where(xs[1], x, -math.inf)
        elif mask == "additive":
            x = x + xs[1]
        if way == "builder":
            return o.log_softmax(x, axis) if log else o.softmax(x, axis)
        xf = o.cast(x, "f32") if low(dt) else x
        s = xf - o.amax(xf, [axis], True)
        if log:
            y = s - o.log(o.sum(o.exp(s), [axis], True))
        else:
            e = o.exp(s)
            y = e / o.sum(e, [axis], True)
        return o.cast(y, dt) if low(dt) else y

    tag = ("+scale" if scale else "") + (f"+mask_{mask}" if mask else "") + f"/axis{axis}"
    kind = "log_softmax" if log else "softmax"
    dims = "x".join(str(sizes[s]) for s in shape)
    return Program(f"{kind}/{way}{tag}/{layout}/{dt}/{dims}", "norm", ins, fn, sizes, dict(TINY))


def gen_group_norm(rng):
    """x [B, G, K] normalized per (b, g) over K, or over (G, K); weights along G."""
    dt = rng.choice(DTYPES)
    B, G, K = pick_3d(rng, chance(rng, 0.5))
    over_both = chance(rng, 0.4)
    way = rng.choice(["builder", "var_mean"])
    has_w = chance(rng, 0.7)
    wshape = ["G", "K"] if over_both else ["G", 1]
    ins = [In("x", dt, ["B", "G", "K"])] + ([In("w", dt, wshape), In("b", dt, wshape)] if has_w else [])
    axes = [1, 2] if over_both else [2]

    def fn(o, *xs):
        x = xs[0]
        if way == "builder":
            if over_both:
                return o.layer_norm(x, 2, xs[1] if has_w else None, xs[2] if has_w else None)
            y = o.layer_norm(x, 1)
            return y * xs[1] + xs[2] if has_w else y
        xf = o.cast(x, "f32") if low(dt) else x
        v, m = o.var_mean(xf, axes, 0, True)
        y = (xf - m) * o.rsqrt(v + EPS_LN)
        if has_w:
            c = (lambda t: o.cast(t, "f32")) if low(dt) else (lambda t: t)
            y = y * c(xs[1]) + c(xs[2])
        return o.cast(y, dt) if low(dt) else y

    tag = ("over_GK" if over_both else "over_K") + ("+w+b" if has_w else "")
    return Program(f"group_norm/{way}/{tag}/{dt}/{B}x{G}x{K}", "norm", ins, fn, {"B": B, "G": G, "K": K}, dict(TINY))


# ---- pointwise chains -------------------------------------------------------------------------

UNARY = ["tanh", "sigmoid", "relu", "silu", "gelu_tanh", "abs", "neg", "exp_tanh"]


def broadcast_shape(rng, shape):
    """A shape that broadcasts into `shape` along some axes (any subset but all), or fewer dims."""
    r = len(shape)
    choice = rng.randrange(2 ** r - 1 + 1)
    if choice == 2 ** r - 1:  # fewer leading dims
        return shape[1:]
    return [1 if (choice >> i) & 1 else s for i, s in enumerate(shape)]


def gen_pointwise(rng):
    dt = rng.choice(DTYPES)
    if chance(rng, 0.5):
        B, H = pick_rows_cols(rng, chance(rng, 0.5))
        shape, sizes = ["B", "H"], {"B": B, "H": H}
    else:
        B, M, K = pick_3d(rng, chance(rng, 0.5))
        shape, sizes = ["B", "M", "K"], {"B": B, "M": M, "K": K}
    steps = []
    ins = [In("x", dt, shape, rng.choice(["contig"] * 4 + ["T", "expand"]))]
    for i in range(rng.randint(2, 6)):
        kind = rng.choice(["unary", "unary", "binary", "binary", "scalar", "where", "clamp", "cast"])
        if kind == "binary":
            ins.append(In(f"y{i}", rng.choice([dt, dt, "f32"]), broadcast_shape(rng, shape)))
            steps.append(("binary", rng.choice(["add", "sub", "mul", "maximum", "div"]), len(ins) - 1))
        elif kind == "where":
            ins.append(In(f"m{i}", "bool", broadcast_shape(rng, shape), kind="mask"))
            steps.append(("where", None, len(ins) - 1))
        elif kind == "unary":
            steps.append(("unary", rng.choice(UNARY), None))
        elif kind == "scalar":
            steps.append(("scalar", rng.choice(["add", "mul", "rsub"]), rng.choice([0.5, 2.0, -3.0, 1.25])))
        elif kind == "clamp":
            steps.append(("clamp", None, None))
        else:
            steps.append(("cast", rng.choice([d for d in DTYPES if d != dt]), None))
    second_out = chance(rng, 0.2)

    def fn(o, *xs):
        x, mid = xs[0], None
        for k, (kind, what, arg) in enumerate(steps):
            if kind == "unary":
                x = o.exp(o.tanh(x)) if what == "exp_tanh" else getattr(o, what)(x)
            elif kind == "binary":
                y = xs[arg]
                if what == "add":
                    x = x + y
                elif what == "sub":
                    x = y - x
                elif what == "mul":
                    x = x * y
                elif what == "maximum":
                    x = o.maximum(x, y)
                else:
                    x = x / (o.abs(y) + 1.0)
            elif kind == "scalar":
                x = x + arg if what == "add" else x * arg if what == "mul" else arg - x
            elif kind == "where":
                x = o.where(xs[arg], x, 0.0)
            elif kind == "clamp":
                x = o.clamp(x, -1.5, 2.0)
            else:
                x = o.cast(x, what)
            if k == (len(steps) - 1) // 2:
                mid = x
        return (x, mid * 1.0) if second_out else x  # * 1.0: a second output even where mid is x

    desc = "-".join(w if isinstance(w, str) else k for k, w, _ in steps)
    dims = "x".join(str(sizes[s]) for s in shape)
    bshapes = ",".join("[" + ",".join(map(str, i.shape)) + "]" for i in ins[1:])
    return Program(f"pointwise/{desc}/{ins[0].layout}/{dt}/{dims}", "pointwise", ins, fn, sizes, dict(TINY),
                   notes=f"operands {bshapes}")


# ---- reductions -------------------------------------------------------------------------------

def gen_reduction(rng):
    dt = rng.choice(DTYPES)
    if chance(rng, 0.5):
        B, H = pick_rows_cols(rng, chance(rng, 0.5))
        shape, sizes = ["B", "H"], {"B": B, "H": H}
    else:
        B, M, K = pick_3d(rng, chance(rng, 0.5))
        shape, sizes = ["B", "M", "K"], {"B": B, "M": M, "K": K}
    r = len(shape)
    subsets = [[a for a in range(r) if (m >> a) & 1] for m in range(1, 2 ** r)]
    axes = rng.choice(subsets)
    op = rng.choice(["sum", "mean", "amax", "amin", "var", "var_mean"])
    pre = rng.choice(["none", "none", "square", "abs", "f32", "mul"])
    post = rng.choice(["none", "none", "scale", "sqrt"]) if op not in ("amin", "var_mean") else "none"
    keepdim = chance(rng, 0.5)
    layout = rng.choice(["contig"] * 4 + ["T", "perm" if r == 3 else "slice"])
    ins = [In("x", dt, shape, layout)] + ([In("y", dt, shape)] if pre == "mul" else [])

    def fn(o, *xs):
        x = xs[0]
        if pre == "square":
            x = x * x
        elif pre == "abs":
            x = o.abs(x)
        elif pre == "f32":
            x = o.cast(x, "f32")
        elif pre == "mul":
            x = x * xs[1]
        if op == "var":
            y = o.var(x, axes, 1, keepdim)
        elif op == "var_mean":
            return o.var_mean(x, axes, 0, keepdim)
        else:
            y = getattr(o, op)(x, axes, keepdim)
        if post == "scale":
            y = y * 0.5
        elif post == "sqrt":
            y = o.sqrt(o.abs(y))
        return y

    dims = "x".join(str(sizes[s]) for s in shape)
    return Program(f"reduce/{op}{axes}{'/keep' if keepdim else ''}/pre_{pre}/post_{post}/{layout}/{dt}/{dims}",
                   "reduction", ins, fn, sizes, dict(TINY))


# ---- layouts: transposed, permuted, sliced, concatenated, expanded ----------------------------

def gen_layout(rng):
    dt = rng.choice(DTYPES)
    kind = rng.choice(["transpose_out", "nchw_nhwc", "swiglu", "rope", "cat_cast", "cat_pointwise",
                       "expand_in_program", "strided_slice", "transposed_norm"])
    large = chance(rng, 0.5)
    B, H = pick_rows_cols(rng, large)
    H2 = H + (H % 2)  # an even last dim where halves are taken
    sizes, tiny = {"B": B, "H": H}, dict(TINY)

    if kind == "transpose_out":
        ins = [In("x", dt, ["B", "H"]), In("b", dt, ["H"])]
        fn = lambda o, x, b: o.transpose(o.tanh(x + b), 0, 1)
    elif kind == "nchw_nhwc":
        Bn, C, S = pick_3d(rng, large)
        sizes = {"B": Bn, "M": C, "K": S}
        ins = [In("x", dt, ["B", "M", "K"]), In("s", dt, ["M", 1])]
        fn = lambda o, x, s: o.permute(x * s, [0, 2, 1])
        H = f"{Bn}x{C}x{S}"
    elif kind == "swiglu":
        act = rng.choice(["silu", "gelu_tanh"])
        swap = chance(rng, 0.5)
        sizes = {"B": B, "H": H2}
        ins = [In("x", dt, ["B", "H"], rng.choice(["contig", "contig", "slice"]))]

        def fn(o, x):
            h = o.n("H") // 2  # bounds as constants: x[:, h:] of a symbolic H has size H - h, not h
            a, b = o.slice(x, 1, 0, h), o.slice(x, 1, h, 2 * h)
            return b * getattr(o, act)(a) if swap else getattr(o, act)(a) * b

        kind += f"_{act}{'_swapped' if swap else ''}"
        H = H2
    elif kind == "rope":
        Bn, M, K = pick_3d(rng, large)
        K += K % 2
        sizes = {"B": Bn, "M": M, "K": K}
        k = "K" if chance(rng, 0.25) else "=K"  # the head dim as a size symbol, or a constant as in models
        ins = [In("x", dt, ["B", "M", k]), In("cos", dt, ["M", k]), In("sin", dt, ["M", k])]
        kind += "_symK" if k == "K" else ""

        def fn(o, x, c, s):
            h = o.n("K") // 2
            rot = o.cat([-o.slice(x, 2, h), o.slice(x, 2, 0, h)], 2)
            return x * c + rot * s

        H = f"{Bn}x{M}x{K}"
    elif kind == "cat_cast":
        axis = rng.choice([0, 1])
        ins = [In("a", "f32", ["B", "H"]), In("b", "f32", ["B", "H"])]
        fn = lambda o, a, b: o.cat([o.cast(a, dt), o.cast(b * 2.0, dt)], axis)
        kind += f"_axis{axis}"
    elif kind == "cat_pointwise":
        axis = rng.choice([0, 1])
        ins = [In("a", dt, ["B", "H"]), In("b", dt, ["B", "H"], rng.choice(["contig", "T"]))]
        fn = lambda o, a, b: o.cat([o.tanh(a), o.relu(b) + 1.0], axis)
        kind += f"_axis{axis}"
    elif kind == "expand_in_program":
        ins = [In("x", dt, ["B", "H"]), In("v", dt, ["H"])]
        fn = lambda o, x, v: x * o.expand(o.unsqueeze(v, 0), ["B", "H"]) + 1.0
    elif kind == "strided_slice":
        sizes = {"B": B, "H": H2}
        ins = [In("x", dt, ["B", "H"])]
        fn = lambda o, x: o.sigmoid(o.slice(x, 1, 0, o.n("H"), 2)) * o.slice(x, 1, 1, o.n("H"), 2)
        H = H2
    else:  # transposed_norm: a norm of a transposed view, in the program
        ins = [In("x", dt, ["H", "B"]), In("w", dt, ["H"])]
        fn = lambda o, x, w: o.layer_norm(o.transpose(x, 0, 1), 1, w)
    layout = ins[0].layout
    return Program(f"layout/{kind}/{layout}/{dt}/{B}x{H}" if isinstance(H, int) else f"layout/{kind}/{dt}/{H}",
                   "layout", ins, fn, sizes, tiny)


FAMILIES = [  # (generator, weight): about 40 % norms, 20 % each of the rest
    (gen_layer_norm, 14), (gen_rms_norm, 8), (lambda r: gen_softmax(r), 10), (lambda r: gen_softmax(r, True), 4),
    (gen_group_norm, 4), (gen_pointwise, 20), (gen_reduction, 20), (gen_layout, 20),
]


def generate(seed, count):
    rng = random.Random(seed)
    gens = [g for g, w in FAMILIES for _ in range(w)]
    programs, seen = [], set()
    while len(programs) < count:
        p = rng.choice(gens)(rng)
        if p.name in seen:
            continue
        seen.add(p.name)
        p.name = f"{len(programs):03d} {p.name}"
        programs.append(p)
    return programs


# ---------------------------------------------------------------------------------------------
# Running

def concrete(shape, sizes):
    return [s if isinstance(s, int) else sizes[s.lstrip("=")] for s in shape]


def declared(shape, sizes):
    return [sizes[s[1:]] if isinstance(s, str) and s.startswith("=") else s for s in shape]


def make_input(spec, sizes, device):
    shape = concrete(spec.shape, sizes)
    dt = getattr(torch, TORCH_DT[spec.dtype])

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


def build_fusion(p, sizes, bf16_out_as_f32=False):
    """The program as a Fusion. Host runs return numpy arrays, which have no bf16: there
    (bf16_out_as_f32) bf16 outputs are widened to f32, exactly, and compared as such."""
    f = solder.Fusion(re.sub(r"\W", "_", p.name.split()[1].split("/")[0]))
    ts = [f.input(i.name, i.dtype, declared(i.shape, sizes)) for i in p.inputs]
    for t in as_tuple(p.fn(SolderOps(f, sizes), *ts)):
        f.output(solder.cast(t, "f32") if bf16_out_as_f32 and t.dtype == "bf16" else t)
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


def short_error(e):
    s = str(e).strip().splitlines()
    return f"{type(e).__name__}: {s[0] if s else ''}"[:300]


class Timer:
    """Median and min µs of fn: warm-up, L2 flushed before each repetition, CUDA events."""

    def __init__(self, reps):
        self.reps = reps
        self.flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")  # >= 2 x L2

    def __call__(self, fn):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(self.reps)]
        for s, e in ev:
            self.flush.zero_()
            s.record()
            fn()
            e.record()
        torch.cuda.synchronize()
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


def run_gpu(p, opts, timer, copy):
    rec = {"name": p.name, "family": p.family, "sizes": p.sizes, "notes": p.notes}
    try:
        fusion = build_fusion(p, p.sizes)
    except Exception as e:
        rec.update(status="cannot express", error=short_error(e))
        return rec
    torch.manual_seed(zlib.crc32(p.name.encode()))  # stable across processes, unlike hash()
    xs = [make_input(i, p.sizes, "cuda") for i in p.inputs]
    ops = TorchOps(p.sizes)
    tfn = lambda *a: p.fn(ops, *a)
    try:
        with torch.no_grad():
            ref = as_tuple(tfn(*xs))
    except Exception as e:
        rec.update(status="generator error", error="eager: " + short_error(e))
        return rec
    rec["bytes"] = moved_bytes(xs, ref)
    try:
        ex = solder.Executor(fusion)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = ex(*xs)
        torch.cuda.synchronize()
        rec["solder_first_call_ms"] = (time.perf_counter() - t0) * 1e3
        rec["kernels_compiled"] = ex.kernels_compiled
        rec["launches"] = launches_of(ex)
    except Exception as e:
        msg = short_error(e)
        rec.update(status="refused" if "refus" in msg or "cannot" in msg or "not supported" in msg else "solder error",
                   error=msg)
        return rec
    ok, err, why = compare(out, ref)
    rec["solder_err"] = err
    cf = None
    try:
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
    if not ok and err <= 2 * rec.get("compile_err", 0):  # as close to eager as torch.compile is
        ok = True
    rec["status"] = "ok" if ok else "WRONG"
    if not ok:
        rec["error"] = why or f"max error {err:.3g} x tolerance"
    with torch.no_grad():
        rec["solder_us"], rec["solder_min_us"] = timer(lambda: ex(*xs))
        rec["eager_us"] = timer(lambda: tfn(*xs))[0]
        if cf is not None:
            rec["compile_us"] = timer(lambda: cf(*xs))[0]
    rec["copy_us"] = copy.us(rec["bytes"])
    rec["pct_copy"] = 100.0 * rec["copy_us"] / rec["solder_us"]
    if "compile_us" in rec:
        rec["ratio_vs_compile"] = rec["solder_us"] / rec["compile_us"]
    if opts.probe and probe_sizes(p) != p.sizes:
        ps = probe_sizes(p)
        try:
            before = ex.kernels_compiled
            xs2 = [make_input(i, ps, "cuda") for i in p.inputs]
            ok2, err2, _ = compare(ex(*xs2), as_tuple(tfn(*xs2)))
            rec["probe"] = {"sizes": ps, "recompiles": ex.kernels_compiled - before, "ok": ok2, "err": err2}
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
        ref = as_tuple(p.fn(TorchOps(p.tiny), *xs))
    except Exception as e:
        rec.update(status="generator error", error="eager: " + short_error(e))
        return rec
    try:
        out = solder.Executor(fusion)(*xs)
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
            solder.Executor(f_gpu).explain([concrete(i.shape, p.sizes) for i in p.inputs])
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
        counts["not run (time budget)"] = len(not_run)
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
        "solder_first_call_ms": {"median": quantile(first, 0.5), "max": max(first) if first else None},
        "probe_recompiles": {"programs": len(recompiles), "with_recompiles": sum(1 for x in recompiles if x),
                             "total": sum(recompiles)},
    }


def print_report(records, not_run, summary, out=sys.stdout):
    p = lambda *a: print(*a, file=out)
    p("\n== status: " + ", ".join(f"{k} {v}" for k, v in sorted(summary["counts"].items())))
    for label, key in (("% of a same-bytes copy, all", "pct_copy_all"), ("% of a same-bytes copy, >= 32 MB", "pct_copy_ge_32MB"),
                       ("speed vs torch.compile (compile us / solder us)", "speedup_vs_compile")):
        d = summary[key]
        p(f"{label:52s} n={d['n']:4d}  min {d['p0']:7.2f}  p10 {d['p10']:7.2f}  median {d['p50']:7.2f}")
    p(f"slower than 1.1x torch.compile: {summary['slower_than_1.1x_compile']}")
    fc = summary["solder_first_call_ms"]
    if fc["max"] is not None:
        p(f"solder first call (cold compile + run): median {fc['median']:.0f} ms, max {fc['max']:.0f} ms")
    pr = summary["probe_recompiles"]
    p(f"second batch size: {pr['with_recompiles']} of {pr['programs']} programs recompiled ({pr['total']} kernels)")
    bad = [r for r in records if r["status"] not in ("ok",)]
    if bad:
        p(f"\n== not ok ({len(bad)})")
        for r in bad:
            p(f"  {r['status']:15s} {r['name']}: {r.get('error', '')}")
    if not_run:
        p(f"\n== not run within the time budget ({len(not_run)}): " + ", ".join(n.split()[0] for n in not_run))
    ranked = sorted((r for r in records if "ratio_vs_compile" in r), key=lambda r: -r["ratio_vs_compile"])[:15]
    if ranked:
        p("\n== 15 worst programs (by time against torch.compile)")
        p(f"  {'solder us':>9} {'compile':>8} {'eager':>8} {'x comp':>6} {'%copy':>6} {'MB':>7}  program / launches")
        for r in ranked:
            p(f"  {r['solder_us']:9.1f} {r['compile_us']:8.1f} {r['eager_us']:8.1f} {r['ratio_vs_compile']:6.2f} "
              f"{r['pct_copy']:6.1f} {r['bytes'] / 1e6:7.1f}  {r['name']}")
            p(f"  {'':>50}  {' '.join(r.get('launches', []))}")


# ---------------------------------------------------------------------------------------------

def write_json(path, meta, records, not_run, summary=None):
    with open(path, "w") as f:
        json.dump({"meta": meta, "summary": summary, "programs": records, "not_run": not_run}, f, indent=1,
                  default=str)


def main(argv=None):
    global torch, F, solder
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=160, help="programs to generate (>= 150 for the issue)")
    ap.add_argument("--limit", type=int, default=0, help="run only the first N programs")
    ap.add_argument("--only", default="", help="regex on program names")
    ap.add_argument("--time-budget", type=float, default=540, help="seconds; programs not started by then are listed")
    ap.add_argument("--reps", type=int, default=20, help="timed repetitions per measurement")
    ap.add_argument("--no-probe", dest="probe", action="store_false", help="skip the second batch size")
    ap.add_argument("--dry-run", action="store_true", help="CPU: reference at tiny sizes against torch CPU")
    ap.add_argument("--compile-check", action="store_true", help="with --dry-run: also plan and compile (NVRTC) at the GPU sizes")
    ap.add_argument("--list", action="store_true", help="print the programs and exit")
    ap.add_argument("-o", "--out", default="")
    opts = ap.parse_args(argv)

    programs = [p for p in generate(opts.seed, opts.count) if re.search(opts.only, p.name)]
    if opts.limit:
        programs = programs[:opts.limit]
    if opts.list:
        for p in programs:
            print(p.name, p.notes)
        return 0
    try:
        import torch as _torch
        import torch.nn.functional as _F
    except ImportError:
        print("variants.py: torch is not installed; nothing to compare with", file=sys.stderr)
        return 77  # ctest's skip code
    import solder as _solder
    torch, F, solder = _torch, _F, _solder
    mode = "cpu" if opts.dry_run else "gpu"
    if mode == "gpu" and not torch.cuda.is_available():
        print("variants.py: no CUDA device; use --dry-run for the CPU check", file=sys.stderr)
        return 2
    out_path = opts.out or os.path.join(os.environ.get("OUT", "."), f"variants_seed{opts.seed}_{mode}.json")
    meta = {"seed": opts.seed, "mode": mode, "count": len(programs), "torch": torch.__version__,
            "device": torch.cuda.get_device_name() if mode == "gpu" else "cpu"}
    if mode == "gpu":
        torch._dynamo.config.cache_size_limit = 1000  # seed 000: never fall back to eager silently
        timer = Timer(opts.reps)
        copy = CopyCeiling(timer)
        meta["large_copy_GBps"] = 2 * (256 << 20) / copy.us(512 << 20) / 1e3
    t_start = time.perf_counter()
    records, not_run = [], []
    for i, p in enumerate(programs):
        if time.perf_counter() - t_start > opts.time_budget:
            not_run.append(p.name)
            continue
        t0 = time.perf_counter()
        try:
            rec = run_cpu(p, opts) if mode == "cpu" else run_gpu(p, opts, timer, copy)
        except Exception as e:  # one program must never end the sweep
            rec = {"name": p.name, "family": p.family, "status": "sweep error", "error": short_error(e),
                   "trace": traceback.format_exc()[-2000:]}
        rec["wall_s"] = time.perf_counter() - t0
        records.append(rec)
        extra = f"{rec['pct_copy']:.0f}% copy, x{rec.get('ratio_vs_compile', float('nan')):.2f} compile" if "pct_copy" in rec else rec.get("error", "")
        print(f"[{i + 1}/{len(programs)}] {rec['status']:13s} {p.name}  {extra}", file=sys.stderr, flush=True)
        if mode == "gpu":
            torch.cuda.empty_cache()
            write_json(out_path, meta, records, not_run)  # after every program: a crash keeps the rest
    summary = summarize(records, not_run)
    print_report(records, not_run, summary)
    write_json(out_path, meta, records, not_run, summary)
    print(f"\nwrote {out_path} ({time.perf_counter() - t_start:.0f} s)")
    # The CPU mode is a test: anything but a program Solder cannot express or refuses fails it.
    bad = summary["counts"].keys() - {"ok", "cannot express", "refused"}
    return 1 if mode == "cpu" and bad else 0


if __name__ == "__main__":
    sys.exit(main())
