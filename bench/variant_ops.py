"""The ops the variant sweep's programs call (bench/variant_programs.py), twice: on Solder tensors
(building one Fusion) and on torch tensors with the semantics of Solder's composites.
"""
import torch
import torch.nn.functional as F

import solder
from variant_programs import EPS_LN, EPS_RMS

TORCH_DT = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "bool": "bool"}


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
        # Contiguous, as F.rms_norm lays it out (`.to(memory_format=...)` returned a transposed
        # f32 y itself: a 2-d tensor's suggested format is always contiguous).
        return y.to(x.dtype).contiguous()

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
