"""The variant sweep's programs (bench/variants.py runs them): a seeded generator over four
families. Each program is one function `fn(o, *inputs)` run with o = variant_ops.SolderOps
(building a Fusion) or o = variant_ops.TorchOps (eager, and traced by torch.compile), so both
sides run the same program. Needs neither torch nor solder (--list).
"""
import math
import random
from dataclasses import dataclass, field

EPS_LN, EPS_RMS = 1e-5, 1e-6


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
