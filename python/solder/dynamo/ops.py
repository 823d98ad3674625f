"""What Solder lowers from core ATen: one rule per op overload, in tables by kind.

A rule takes the lowering context and the node's arguments (fx Nodes already replaced by
solder Tensors) and returns a solder Tensor, or a tuple of them for multi-output ops. A rule
raises Unsupported (with the reason) for argument values Solder cannot express; the
partitioner then leaves that node to eager and reports why.
"""
import math
import operator

import torch

import solder

aten = torch.ops.aten
prims = torch.ops.prims


class Unsupported(Exception):
    """A node Solder does not lower; the message says why (it goes into the report)."""


_DTYPES = {
    torch.float64: "f64", torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
    torch.int64: "i64", torch.int32: "i32", torch.bool: "bool",
}
if hasattr(torch, "float8_e4m3fn"):
    _DTYPES[torch.float8_e4m3fn] = "f8e4m3"
    _DTYPES[torch.float8_e5m2] = "f8e5m2"


def solder_dtype(dt):
    try:
        return _DTYPES[dt]
    except KeyError:
        raise Unsupported(f"dtype {dt} has no Solder type") from None


def _scalar(v, what="scalar"):
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        return float(v)
    raise Unsupported(f"{what} {v!r} is not a number Solder can take")


def _const_int(v, what):
    if isinstance(v, int):
        return v
    if isinstance(v, torch.SymInt) and v.node.is_constant():
        return int(v)
    raise Unsupported(f"{what} must be a static int, got {v!r}")


def _is_tensor(x):
    return isinstance(x, solder.Tensor)


# ---- pointwise ---------------------------------------------------------------------------

def _unary(fn):
    return lambda cx, x: fn(x)


def _binary(fn):
    def rule(cx, a, b):
        if not _is_tensor(a) and not _is_tensor(b):
            raise Unsupported("both operands are scalars")
        a = a if _is_tensor(a) else _scalar(a)
        b = b if _is_tensor(b) else _scalar(b)
        return fn(a, b)
    return rule


def _with_alpha(fn):
    def rule(cx, a, b, alpha=1):
        if alpha != 1:
            b = solder.mul(b, _scalar(alpha, "alpha")) if _is_tensor(b) else _scalar(b) * _scalar(alpha)
        return _binary(fn)(cx, a, b)
    return rule


def _div(cx, a, b, rounding_mode=None):
    if rounding_mode is not None:
        raise Unsupported(f"div with rounding_mode={rounding_mode!r}")
    return _binary(solder.div)(cx, a, b)


def _rsub(cx, a, b, alpha=1):
    return _with_alpha(lambda x, y: solder.sub(y, x))(cx, a, b, alpha)


def _gelu(cx, x, approximate="none"):
    if approximate == "tanh":
        return solder.gelu_tanh(x)
    if approximate == "none":
        return solder.gelu(x)
    raise Unsupported(f"gelu approximate={approximate!r}")


def _clamp(cx, x, lo=None, hi=None):
    lo = -math.inf if lo is None else _scalar(lo, "clamp bound")
    hi = math.inf if hi is None else _scalar(hi, "clamp bound")
    return solder.clamp(x, lo, hi)


def _where(cx, c, a, b):
    if not _is_tensor(a) or not _is_tensor(b):
        # A scalar branch becomes a constant of the result's dtype (torch's promotion of a
        # wrapped number): the node's own meta says which.
        dt = solder_dtype(cx.node.meta["val"].dtype)
        a = a if _is_tensor(a) else cx.fusion.constant(_scalar(a), dt)
        b = b if _is_tensor(b) else cx.fusion.constant(_scalar(b), dt)
    return solder.where(c, a, b)


def _masked_fill(cx, x, mask, value):
    v = value if _is_tensor(value) else cx.fusion.constant(_scalar(value), x.dtype)
    return solder.where(mask, v, x)


def _opmath(x):
    """x as eager's fused kernels compute it: 16-bit floats in f32 (the traced dtype, restored by
    the lowering's check, rounds the composite's result once, as eager does)."""
    return solder.cast(x, "f32") if x.dtype in ("f16", "bf16") else x


def _leaky_relu(cx, x, negative_slope=0.01):
    xf = _opmath(x)
    return solder.where(solder.gt(xf, 0.0), xf, solder.mul(xf, _scalar(negative_slope, "negative_slope")))


def _hardsigmoid(cx, x):
    return solder.mul(solder.clamp(solder.add(_opmath(x), 3.0), 0.0, 6.0), 1.0 / 6.0)


def _hardswish(cx, x):
    xf = _opmath(x)
    return solder.div(solder.mul(xf, solder.clamp(solder.add(xf, 3.0), 0.0, 6.0)), 6.0)


def _elu(cx, x, alpha=1.0, scale=1.0, input_scale=1.0):
    # Eager: x <= 0 ? expm1(x * input_scale) * (alpha * scale) : x * scale, in opmath.
    xf = _opmath(x)
    neg = solder.mul(solder.expm1(solder.mul(xf, _scalar(input_scale))), _scalar(alpha) * _scalar(scale))
    return solder.where(solder.le(xf, 0.0), neg, solder.mul(xf, _scalar(scale)))


def _softplus(cx, x, beta=1.0, threshold=20.0):
    # Eager: x * beta > threshold ? x : log1p(exp(x * beta)) / beta, in opmath.
    xf = _opmath(x)
    xb = solder.mul(xf, _scalar(beta, "beta"))
    soft = solder.div(solder.log1p(solder.exp(xb)), _scalar(beta, "beta"))
    return solder.where(solder.gt(xb, _scalar(threshold, "threshold")), xf, soft)


def _sign(cx, x):
    # 1, -1 or 0 (NaN and -0 give 0, as eager's).
    one, zero = cx.fusion.constant(1.0, x.dtype), cx.fusion.constant(0.0, x.dtype)
    return solder.where(solder.gt(x, 0.0), one, solder.where(solder.lt(x, 0.0), solder.neg(one), zero))


def _round(cx, x, decimals=0):
    if decimals != 0:
        raise Unsupported(f"round to {decimals} decimals")
    return solder.round(x)


def _bool_only(fn, name):
    """Bit operations of bools are logical ones; of integers Solder has none."""
    def rule(cx, *args):
        dt = cx.node.meta["val"].dtype
        if dt != torch.bool:
            raise Unsupported(f"{name} of {dt}: Solder has no integer bit operations")
        args = [a if _is_tensor(a) else cx.fusion.constant(_scalar(a), "bool") for a in args]
        return fn(*args)
    return rule


def _to_copy(cx, x, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False,
             memory_format=None):
    src = cx.node.args[0].meta["val"]
    dev = None if device is None else torch.device(device)
    if dev is not None and (dev.type != src.device.type or (dev.index is not None and dev.index != src.device.index)):
        raise Unsupported(f"_to_copy moves to another device ({src.device} -> {device})")
    if layout not in (None, torch.strided):
        raise Unsupported(f"_to_copy to layout {layout}")
    return x if dtype is None else solder.cast(x, solder_dtype(dtype))


def _convert(cx, x, dtype):
    return solder.cast(x, solder_dtype(dtype))


def _copy(cx, dst, src, non_blocking=False):
    # The functional copy: src broadcast to dst's shape in dst's dtype (the lowering's check casts).
    return solder.expand(src, cx.shape_of(cx.node.args[0]))


def _identity(cx, x, *args, **kwargs):
    return x


def _full(cx, size, value, dtype=None, layout=None, device=None, pin_memory=None):
    dt = solder_dtype(dtype or cx.node.meta["val"].dtype)
    c = cx.fusion.constant(_scalar(value, "fill value"), dt)
    return solder.expand(c, cx.dims(size)) if len(size) else c


def _full_like(cx, x, value, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    dt = solder_dtype(dtype or cx.node.meta["val"].dtype)
    return solder.expand(cx.fusion.constant(_scalar(value, "fill value"), dt), cx.shape_of(cx.node.args[0]))


def _scalar_tensor(cx, value, dtype=None, layout=None, device=None, pin_memory=None):
    return cx.fusion.constant(_scalar(value), solder_dtype(dtype or cx.node.meta["val"].dtype))


# ---- reductions --------------------------------------------------------------------------

def _axes(dims):
    if dims is None:
        return []
    return [dims] if isinstance(dims, int) else list(dims)


def _reduction(fn):
    def rule(cx, x, dims=None, keepdim=False, dtype=None):
        if dtype is not None:
            x = solder.cast(x, solder_dtype(dtype))
        return fn(x, _axes(dims), keepdim)
    return rule


def _sum(cx, x, dims=None, keepdim=False, dtype=None):
    if dtype is not None:
        x = solder.cast(x, solder_dtype(dtype))
    elif x.dtype in ("bool", "i32"):
        x = solder.cast(x, "i64")  # torch sums integers in int64
    return solder.sum(x, _axes(dims), keepdim)


def _any(cx, x, dims=None, keepdim=False):
    # any = max(x != 0) over the axes, as bool (Solder has no boolean reduction).
    nz = solder.cast(solder.ne(x, 0.0) if x.dtype != "bool" else x, "f32")
    return solder.gt(solder.max(nz, _axes(dims), keepdim), 0.0)


def _extreme_along(fn):
    """max.dim / min.dim: the values (amax / amin); their indices must be unread."""
    def rule(cx, x, dim, keepdim=False):
        _unread_items(cx, (1,), "the indices of max.dim / min.dim are read (Solder has no arg-reductions)")
        return (fn(x, [dim], keepdim), None)
    return rule


def _var_mean(cx, x, dims=None, correction=None, keepdim=False):
    c = 1 if correction is None else correction
    if c != int(c):
        raise Unsupported(f"var_mean correction {correction!r} is not an integer")
    v, m = solder.var_mean(x, _axes(dims), int(c), keepdim)
    return (v, m)


def _var(cx, x, dims=None, correction=None, keepdim=False):
    return _var_mean(cx, x, dims, correction, keepdim)[0]


def _native_layer_norm(cx, x, normalized_shape, weight=None, bias=None, eps=1e-5):
    k = len(normalized_shape)
    y = solder.layer_norm(x, k, weight, bias, eps)
    # mean and rstd (training saves them); Solder drops what no output uses.
    xf = x if x.dtype in ("f32", "f64") else solder.cast(x, "f32")
    var, mean = solder.var_mean(xf, list(range(-k, 0)), 0, True)
    return (y, mean, solder.rsqrt(var + eps))


def _vector_norm(cx, x, ord=2, dim=None, keepdim=False, dtype=None):
    xf = _opmath(x if dtype is None else solder.cast(x, solder_dtype(dtype)))
    axes = _axes(dim)
    if ord == 2:
        return solder.sqrt(solder.sum(solder.mul(xf, xf), axes, keepdim))
    if ord == 1:
        return solder.sum(solder.abs(xf), axes, keepdim)
    if ord == math.inf:
        return solder.max(solder.abs(xf), axes, keepdim)
    raise Unsupported(f"vector norm of order {ord!r} (Solder lowers 1, 2 and inf)")


def _channel_param(t, rank):
    """A per-channel vector [C] as [C, 1, ...] against [N, C, *spatial] (rank dims)."""
    return None if t is None else solder.reshape(_opmath(t), [t.shape[0]] + [1] * (rank - 2))


def _unread_items(cx, items, why):
    """The op's results at `items` must not be read: Solder does not make them."""
    for u in cx.node.users:
        if u.target is not operator.getitem or u.args[1] in items:
            raise Unsupported(why)


def _normalized(y, w, b):
    if w is not None:
        y = solder.mul(y, w)
    return y if b is None else solder.add(y, b)


def _batch_norm_eval(cx, x, w, b, mean, var, eps):
    """y = (x - running_mean) * rsqrt(running_var + eps) * w + b over channel dim 1. Eager gives
    its saved statistics (items 1 and 2) empty in inference: they must be unread."""
    _unread_items(cx, (1, 2), "batch norm's saved statistics (empty in inference) are read")
    r = len(cx.shape_of(cx.node.args[0]))
    m, v = _channel_param(mean, r), _channel_param(var, r)
    y = solder.mul(solder.sub(_opmath(x), m), solder.rsqrt(solder.add(v, _scalar(eps, "eps"))))
    return (_normalized(y, _channel_param(w, r), _channel_param(b, r)), None, None)


def _batch_norm_train(cx, x, w, b, running_mean, running_var, momentum, eps):
    """Statistics of this batch over every dim but the channel (dim 1); the running ones, given,
    updated as eager does (the variance unbiased): items 3 and 4 of the functional form."""
    shape = cx.shape_of(cx.node.args[0])
    r = len(shape)
    if shape[1] == 0 or not isinstance(shape[1], int):
        raise Unsupported("batch norm over a symbolic channel count")
    xf = _opmath(x)
    var, mean = solder.var_mean(xf, [0] + list(range(2, r)), 0, True)
    rstd = solder.rsqrt(solder.add(var, _scalar(eps, "eps")))
    y = _normalized(solder.mul(solder.sub(xf, mean), rstd), _channel_param(w, r), _channel_param(b, r))
    c = [shape[1]]
    out = [y, solder.reshape(mean, c), solder.reshape(rstd, c)]
    if running_mean is not None:
        n = 1
        for d in [shape[0]] + shape[2:]:
            if not isinstance(d, int):
                raise Unsupported("batch norm's running statistics over symbolic sizes")
            n *= d
        mom = _scalar(momentum, "momentum")
        unbiased = solder.mul(solder.reshape(var, c), n / max(n - 1, 1))
        out.append(solder.add(solder.mul(_opmath(running_mean), 1.0 - mom), solder.mul(solder.reshape(mean, c), mom)))
        out.append(solder.add(solder.mul(_opmath(running_var), 1.0 - mom), solder.mul(unbiased, mom)))
    return tuple(out)


def _batch_norm_legit(cx, x, w, b, *rest):
    # (running_mean, running_var, training, momentum, eps), or no_stats: (training, momentum, eps)
    if cx.node.target._overloadname == "no_stats":
        training, momentum, eps = rest
        stats = (None, None)
    else:
        *stats, training, momentum, eps = rest
    if not training:
        return _batch_norm_eval(cx, x, w, b, *stats, eps)
    if stats[0] is not None:
        # The mutating form updates its running statistics in place: functionalized graphs use
        # the _functional form, whose updates are outputs.
        raise Unsupported("batch norm updating its running statistics in place")
    return _batch_norm_train(cx, x, w, b, None, None, momentum, eps)


def _batch_norm_functional(cx, x, w, b, running_mean, running_var, training, momentum, eps):
    if not training:
        y = _batch_norm_eval(cx, x, w, b, running_mean, running_var, eps)[0]
        return (y, None, None, running_mean, running_var)
    return _batch_norm_train(cx, x, w, b, running_mean, running_var, momentum, eps)


def _native_group_norm(cx, x, w, b, n, c, hw, group, eps):
    """Statistics per (sample, group of C / G channels and every spatial element), computed on
    [N, G, C / G, *spatial] (a view of x) so that one kernel reduces and normalizes."""
    shape = cx.shape_of(cx.node.args[0])
    C, G = shape[1], _const_int(group, "groups")
    if not isinstance(C, int) or C % G:
        raise Unsupported(f"group norm of {C} channels in {G} groups")
    grouped = [shape[0], G, C // G] + shape[2:]
    r = len(grouped)
    xf = solder.reshape(_opmath(x), grouped)
    var, mean = solder.var_mean(xf, list(range(2, r)), 0, True)
    rstd = solder.rsqrt(solder.add(var, _scalar(eps, "eps")))
    per = lambda t: None if t is None else solder.reshape(_opmath(t), [G, C // G] + [1] * (r - 3))
    y = _normalized(solder.mul(solder.sub(xf, mean), rstd), per(w), per(b))
    stats = [shape[0], G]
    return (solder.reshape(y, shape), solder.reshape(mean, stats), solder.reshape(rstd, stats))


def _tiled_pool(cx, x, kernel_size, stride, padding, dilation=1, ceil_mode=False):
    """A 2-D pool whose windows tile the image (stride = kernel, no padding or dilation, sizes
    divisible): the view [..., H / kh, kh, W / kw, kw] with the window dims reduced. Overlapping
    or padded windows are gathers Solder has none of."""
    k = [_const_int(v, "kernel size") for v in (kernel_size if len(kernel_size) == 2 else list(kernel_size) * 2)]
    s = [_const_int(v, "stride") for v in stride] or k
    s = s if len(s) == 2 else s * 2
    pad = [padding] * 2 if isinstance(padding, int) else list(padding) * (2 // len(padding))
    dil = [dilation] * 2 if isinstance(dilation, int) else list(dilation) * (2 // len(dilation))
    shape = cx.shape_of(cx.node.args[0])
    h, w = shape[-2], shape[-1]
    if (s != k or any(pad) or any(d != 1 for d in dil) or not isinstance(h, int) or not isinstance(w, int)
            or h % k[0] or w % k[1]):
        raise Unsupported(f"pool of {k} windows at stride {s}, padding {pad}, dilation {dil} over {h}x{w} "
                          "(Solder pools windows that tile the image)")
    return solder.reshape(x, shape[:-2] + [h // k[0], k[0], w // k[1], k[1]]), [-3, -1]


def _avg_pool2d(cx, x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
                divisor_override=None):
    if divisor_override is not None:
        raise Unsupported("avg_pool2d with divisor_override")
    v, axes = _tiled_pool(cx, x, kernel_size, stride, padding)
    return solder.mean(v, axes, False)


def _max_pool2d(cx, x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    _unread_items(cx, (1,), "max_pool2d's indices are read")
    v, axes = _tiled_pool(cx, x, kernel_size, stride, padding, dilation)
    return (solder.max(v, axes, False), None)


def _softmax(fn):
    def rule(cx, x, dim, half_to_float=False):
        if half_to_float:
            x = solder.cast(x, "f32")
        return fn(x, dim)
    return rule


# ---- views -------------------------------------------------------------------------------

def _reshape(cx, x, size):
    return solder.reshape(x, cx.dims(size))


def _expand(cx, x, size, implicit=False):
    shape = cx.shape_of(cx.node.args[0])
    lead = len(size) - len(shape)
    dims = [shape[i - lead] if (isinstance(s, int) and s == -1) else s for i, s in enumerate(size)]
    return solder.expand(x, cx.dims(dims))


def _squeeze(cx, x, dims=None):
    shape = cx.node.args[0].meta["val"].shape
    rank = len(shape)
    axes = range(rank) if dims is None else _axes(dims)
    axes = [a % rank for a in axes if shape[a % rank] == 1] if rank else []
    return solder.squeeze(x, axes) if axes else x


def _slice(cx, x, dim=0, start=None, end=None, step=1):
    size = cx.node.args[0].meta["val"].shape[dim]
    start = 0 if start is None else _const_int(start, "slice start")
    end = None if end is None else _const_int(end, "slice end")
    step = _const_int(step, "slice step")
    if step < 1:
        raise Unsupported(f"slice step {step}")
    if isinstance(size, int) or (isinstance(size, torch.SymInt) and size.node.is_constant()):
        n = int(size)  # normalise negative and out-of-range bounds as torch does
        start = min(max(start + n if start < 0 else start, 0), n)
        end = n if end is None else min(max(end + n if end < 0 else end, 0), n)
        end = max(end, start)
        if start == 0 and end == n and step == 1:
            return x
    else:
        if start < 0 or (end is not None and end < 0):
            raise Unsupported("slice with negative bounds on a symbolic size")
        if end is not None and end >= 2**62:
            end = None
    return solder.slice(x, dim, start, 2**63 - 1 if end is None else end, step)


def _select(cx, x, dim, index):
    size = cx.node.args[0].meta["val"].shape[dim]
    index = _const_int(index, "select index")
    if index < 0:
        index += _const_int(size, "select of a negative index on a symbolic size")
    return solder.squeeze(solder.slice(x, dim, index, index + 1, 1), [dim])


def _split_with_sizes(cx, x, sizes, dim=0):
    out, at = [], 0
    for s in sizes:
        s = _const_int(s, "split size")
        out.append(solder.slice(x, dim, at, at + s, 1))
        at += s
    return tuple(out)


def _split(cx, x, size, dim=0):
    n = _const_int(cx.node.args[0].meta["val"].shape[dim], "split of a symbolic size")
    size = _const_int(size, "split size")
    return _split_with_sizes(cx, x, [min(size, n - a) for a in range(0, n, size)], dim)


def _unbind(cx, x, dim=0):
    n = _const_int(cx.node.args[0].meta["val"].shape[dim], "unbind of a symbolic size")
    return tuple(solder.squeeze(solder.slice(x, dim, i, i + 1, 1), [dim]) for i in range(n))


def _t(cx, x):
    return solder.transpose(x, 0, 1) if len(cx.shape_of(cx.node.args[0])) == 2 else x


def _constant_pad_nd(cx, x, pad, value=0):
    """F.pad's constant mode: negative pads slice; positive ones cat fills of `value` on either
    side, which the cat pass reads as pieces in one kernel (a fill is the constant itself there).
    Pads of several dims nest those cats, read as pieces in one kernel too."""
    shape = list(cx.shape_of(cx.node.args[0]))
    pads = [_const_int(p, "pad") for p in pad]
    if len(pads) % 2 or len(pads) // 2 > len(shape):
        raise Unsupported(f"pad {pads} for a tensor of rank {len(shape)}")
    fill = None
    for i in range(len(pads) // 2):
        d, before, after = len(shape) - 1 - i, pads[2 * i], pads[2 * i + 1]
        if before < 0 or after < 0:
            if not isinstance(shape[d], int):
                raise Unsupported("a negative pad of a symbolic dim")
            start, end = max(-before, 0), shape[d] - max(-after, 0)
            if end < start:
                raise Unsupported(f"pad {pads} removes more than dim {d} holds")
            x = solder.slice(x, d, start, end)
            shape[d] = end - start
        pieces = []
        for n in (before, after):
            if n > 0:
                if fill is None:
                    fill = cx.fusion.constant(_scalar(value, "pad value"), x.dtype)
                pieces.append(solder.expand(fill, shape[:d] + [n] + shape[d + 1:]))
        if pieces:
            pieces.insert(1 if before > 0 else 0, x)
            x = solder.cat(pieces, d)
            shape[d] = cx.shape_of(cx.node)[d]  # the pad's size along d (each dim is padded once)
    return x


def _repeat(cx, x, repeats):
    """x.repeat(...): copies of x side by side, as a cat of them per repeated dim (a kernel reads
    a cat's pieces in place: no copy of x); more than 8 copies of a dim stay eager."""
    reps = [_const_int(r, "repeat count") for r in repeats]
    shape = cx.shape_of(cx.node.args[0])
    for _ in range(len(reps) - len(shape)):
        x = solder.unsqueeze(x, 0)
    for d, r in enumerate(reps):
        if r < 1 or r > 8:
            raise Unsupported(f"repeat {r} times along dim {d} (Solder cats 1 to 8 copies)")
        if r > 1:
            x = solder.cat([x] * r, d)
    return x


def _slice_scatter(cx, x, src, dim=0, start=None, end=None, step=1):
    """x with src in place of x[start:end] along dim (functionalized `x[:, a:b] = y`): a cat of
    x's slices around src, which a kernel reads as pieces."""
    n = cx.shape_of(cx.node.args[0])[dim]
    if not isinstance(n, int) or _const_int(step, "slice_scatter step") != 1:
        raise Unsupported("slice_scatter over a symbolic dim or with a step")
    start = 0 if start is None else _const_int(start, "slice_scatter start")
    end = n if end is None else _const_int(end, "slice_scatter end")
    start, end = (min(max(b + n if b < 0 else b, 0), n) for b in (start, end))
    pieces = ([solder.slice(x, dim, 0, start)] if start > 0 else []) + [src] + \
             ([solder.slice(x, dim, end, n)] if end < n else [])
    return pieces[0] if len(pieces) == 1 else solder.cat(pieces, dim)


def _cat(cx, xs, dim=0):
    # torch lets an empty 1-D tensor join any cat; Solder wants equal ranks.
    xs = [t for t, n in zip(xs, cx.node.args[0]) if not (len(n.meta["val"].shape) == 1 and n.meta["val"].shape[0] == 0)]
    if len(xs) == 1:
        return xs[0]
    return solder.cat(xs, dim)


# ---- matmul ------------------------------------------------------------------------------

def _addmm(cx, bias, a, b, beta=1, alpha=1):
    if beta != 1 or alpha != 1:
        raise Unsupported(f"addmm with beta={beta} alpha={alpha}")
    bias_shape = cx.node.args[0].meta["val"].shape
    if len(bias_shape) == 1 and bias.dtype == a.dtype:
        # x @ W + b with W[K, N]: linear takes w[N, K], so the transpose is a view of W.
        return solder.linear(a, solder.transpose(b, 0, 1), bias)
    return solder.add(solder.matmul(a, b), bias)


def _linear(cx, x, w, bias=None):
    return solder.linear(x, w, bias)


def _getitem(cx, seq, i):
    return seq[i]


# The tables. Keys are OpOverloadPackets (any overload) or specific OpOverloads.
POINTWISE = {
    aten.neg: _unary(solder.neg), aten.abs: _unary(solder.abs), aten.exp: _unary(solder.exp),
    aten.log: _unary(solder.log), aten.sqrt: _unary(solder.sqrt), aten.rsqrt: _unary(solder.rsqrt),
    aten.reciprocal: _unary(solder.reciprocal), aten.tanh: _unary(solder.tanh),
    aten.sigmoid: _unary(solder.sigmoid), aten.erf: _unary(solder.erf), aten.sin: _unary(solder.sin),
    aten.cos: _unary(solder.cos), aten.relu: _unary(solder.relu), aten.silu: _unary(solder.silu),
    aten.logical_not: _unary(solder.logical_not), aten.gelu: _gelu,
    aten.add: _with_alpha(solder.add), aten.sub: _with_alpha(solder.sub), aten.rsub: _rsub,
    aten.mul: _binary(solder.mul), aten.div: _div, aten.pow: _binary(solder.pow),
    aten.maximum: _binary(solder.maximum), aten.minimum: _binary(solder.minimum),
    aten.eq: _binary(solder.eq), aten.ne: _binary(solder.ne), aten.lt: _binary(solder.lt),
    aten.le: _binary(solder.le), aten.gt: _binary(solder.gt), aten.ge: _binary(solder.ge),
    aten.logical_and: _binary(solder.logical_and), aten.logical_or: _binary(solder.logical_or),
    aten.where: _where, aten.masked_fill: _masked_fill,
    aten.clamp: _clamp, aten.clamp_min: lambda cx, x, lo: _clamp(cx, x, lo, None),
    aten.clamp_max: lambda cx, x, hi: _clamp(cx, x, None, hi), aten.hardtanh: _clamp,
    aten.leaky_relu: _leaky_relu, aten.hardsigmoid: _hardsigmoid, aten.hardswish: _hardswish,
    aten.log1p: _unary(solder.log1p), aten.expm1: _unary(solder.expm1), aten.elu: _elu, aten.softplus: _softplus,
    aten.floor: _unary(solder.floor), aten.ceil: _unary(solder.ceil), aten.trunc: _unary(solder.trunc),
    aten.round: _round, aten.sign: _sign, aten.sgn: _sign, aten.copy: _copy,
    aten.isnan: lambda cx, x: solder.ne(x, x), aten.isinf: lambda cx, x: solder.eq(solder.abs(x), math.inf),
    aten.bitwise_not: _bool_only(solder.logical_not, "bitwise_not"),
    aten.bitwise_and: _bool_only(solder.logical_and, "bitwise_and"),
    aten.bitwise_or: _bool_only(solder.logical_or, "bitwise_or"),
    aten.bitwise_xor: _bool_only(solder.ne, "bitwise_xor"),
    aten.logical_xor: lambda cx, a, b: solder.ne(solder.ne(a, 0.0), solder.ne(b, 0.0)),
    aten._to_copy: _to_copy, prims.convert_element_type: _convert,
    aten.clone: _identity, aten.alias: _identity, aten.detach: _identity,
    aten.full: _full, aten.full_like: _full_like, aten.scalar_tensor: _scalar_tensor,
}
REDUCTIONS = {
    aten.sum: _sum, aten.mean: _reduction(solder.mean), aten.amax: _reduction(solder.max),
    aten.amin: _reduction(solder.min), aten.any: _any, aten.var_mean: _var_mean, aten.var: _var,
    aten.native_layer_norm: _native_layer_norm,
    aten._softmax: _softmax(solder.softmax), aten._log_softmax: _softmax(solder.log_softmax),
    aten.linalg_vector_norm: _vector_norm, aten.native_group_norm: _native_group_norm,
    aten._native_batch_norm_legit_no_training: lambda cx, x, w, b, m, v, momentum, eps: _batch_norm_eval(cx, x, w, b, m, v, eps),
    aten._native_batch_norm_legit: _batch_norm_legit,
    aten._native_batch_norm_legit_functional: _batch_norm_functional,
    aten.avg_pool2d: _avg_pool2d, aten.max_pool2d_with_indices: _max_pool2d,
    aten.max.dim: _extreme_along(solder.max), aten.min.dim: _extreme_along(solder.min),
}
VIEWS = {
    aten.view: _reshape, aten._unsafe_view: _reshape, aten.reshape: _reshape, aten.expand: _expand,
    aten.permute: lambda cx, x, dims: solder.permute(x, list(dims)),
    aten.transpose: lambda cx, x, a, b: solder.transpose(x, a, b), aten.t: _t,
    aten.squeeze: _squeeze, aten.unsqueeze: lambda cx, x, d: solder.unsqueeze(x, d),
    aten.slice: _slice, aten.select: _select, aten.cat: _cat, aten.constant_pad_nd: _constant_pad_nd, aten.repeat: _repeat,
    aten.slice_scatter: _slice_scatter,
    aten.split_with_sizes: _split_with_sizes, aten.split: _split, aten.unbind: _unbind,
    operator.getitem: _getitem,
}
MATMUL = {
    aten.mm: lambda cx, a, b: solder.matmul(a, b), aten.bmm: lambda cx, a, b: solder.matmul(a, b),
    aten.matmul: lambda cx, a, b: solder.matmul(a, b), aten.addmm: _addmm, aten.linear: _linear,
}

# Views that are free in eager (metadata): at a partition's edge they are left to eager, so
# that a partition gives its output whole and torch makes the view (no copy into a strided
# output), and reads its inputs through eager's views with any strides.
METADATA_VIEWS = {aten.view, aten._unsafe_view, aten.reshape, aten.expand, aten.permute, aten.transpose, aten.t,
                  aten.squeeze, aten.unsqueeze, aten.slice, aten.select, aten.alias, aten.detach}

_OUT_OF_PLACE_ONLY = "out= overloads are not lowered (functionalized graphs have none)"

RULES = {}
for table, kind in ((POINTWISE, "pointwise"), (REDUCTIONS, "reduction"), (VIEWS, "view"), (MATMUL, "matmul")):
    for op, fn in table.items():
        RULES[op] = (fn, kind)


def rule_for(target):
    """(rule, kind) for a call_function target, or raises Unsupported with the reason."""
    if target in RULES:
        return RULES[target]
    packet = getattr(target, "overloadpacket", None)
    if packet is not None and packet in RULES:
        if target._overloadname in ("out",) or target._overloadname.endswith("_out"):
            raise Unsupported(_OUT_OF_PLACE_ONLY)
        return RULES[packet]
    raise Unsupported("no Solder lowering for this op")


def kind_of(target):
    try:
        return rule_for(target)[1]
    except Unsupported:
        return None
