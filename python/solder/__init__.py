"""Solder's Python frontend: describe a tensor program, run it on torch or numpy tensors.

    import solder, torch
    f = solder.Fusion("ln")
    x = f.input("x", "f16", ["B", "H"])
    w = f.input("w", "f16", ["H"])
    f.output(solder.layer_norm(x, 1, w))
    ex = solder.Executor(f)
    (y,) = ex(torch.randn(8192, 4096, device="cuda", dtype=torch.half),
              torch.randn(4096, device="cuda", dtype=torch.half))

GPU tensors run on the GPU (on torch's current stream), host tensors (numpy, CPU torch) on the
CPU reference executor. torch tensors are read in C (no DLPack capsule per call) and outputs
come from torch's caching allocator, or go where `out=` says; numpy and other frameworks go
through DLPack.

torch.compile(model, backend="solder") lowers the parts of a model Solder supports to fused
kernels (solder.dynamo; docs/python.md); solder.compile_report() says what it did.
"""
import sys


def _load_nvrtc_from_wheel():
    """Loads NVRTC from the nvidia-cuda-nvrtc wheel (pip install solder[nvrtc]) when no CUDA
    toolkit provides it: once loaded, it serves the extension's link to it by name, and the
    wheel's include/ beside lib/ gives NVRTC the CUDA headers."""
    import ctypes
    import glob
    import os

    for base in sys.path:
        for lib in ("cu*/lib", "cuda_nvrtc/lib"):
            for path in sorted(glob.glob(os.path.join(base, "nvidia", lib, "libnvrtc.so.*")), reverse=True):
                if "alt" in os.path.basename(path):
                    continue
                try:
                    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
                    return True
                except OSError:
                    pass
    return False


try:
    from . import _solder
except ImportError as e:
    if "nvrtc" not in str(e) or not _load_nvrtc_from_wheel():
        raise
    from . import _solder
from ._solder import *  # noqa: F401,F403  (Fusion, Tensor, Executor, the op builders)


# bf16 and fp8 host arrays. numpy has no such dtypes: a host run's outputs of them are
# ml_dtypes arrays when ml_dtypes is installed (its bfloat16, float8_e4m3fn, float8_e5m2),
# else the raw bits (uint16 for bf16, uint8 for fp8) whose dtype carries the tag
# `dtype.metadata["solder_dtype"]` ("bf16", "f8e4m3", "f8e5m2"). Either form is accepted as an
# input. torch tensors in give torch tensors of the same dtype out.
try:
    import ml_dtypes as _ml_dtypes
except ImportError:
    _ml_dtypes = None

_NARROW = {"bf16": ("bfloat16", "uint16"), "f8e4m3": ("float8_e4m3fn", "uint8"), "f8e5m2": ("float8_e5m2", "uint8")}
_NARROW_BY_NAME = {ml: tag for tag, (ml, _) in _NARROW.items()}
_TORCH_NARROW = {"bf16": "bfloat16", "f8e4m3": "float8_e4m3fn", "f8e5m2": "float8_e5m2"}


def narrow_dtype(array):
    """"bf16", "f8e4m3" or "f8e5m2" for a numpy array of one of those dtypes (ml_dtypes, or
    bits tagged by Solder), else None."""
    import numpy as np

    dt = getattr(array, "dtype", None)
    if not isinstance(dt, np.dtype):
        return None
    if dt.metadata and "solder_dtype" in dt.metadata:
        return dt.metadata["solder_dtype"]
    return _NARROW_BY_NAME.get(dt.name) if type(array).__module__ == "numpy" else None


def _narrow_view(bits, dtype):
    import numpy as np

    if _ml_dtypes is not None:
        return bits.view(getattr(_ml_dtypes, _NARROW[dtype][0]))
    return bits.view(np.dtype(bits.dtype, metadata={"solder_dtype": dtype}))


def _narrow_input(array):
    tag = narrow_dtype(array)
    return None if tag is None else (array.view(_NARROW[tag][1]), tag)


def _host_to_torch(array):
    import torch

    tag = narrow_dtype(array)
    if tag is None:
        return torch.from_numpy(array)
    return torch.from_numpy(array.view(_NARROW[tag][1])).view(getattr(torch, _TORCH_NARROW[tag]))


class Executor(_solder.Executor):
    """Compiles and runs a Fusion; kernels keyed by plan, not size (a new size with the same plan reuses them).

    ex(*tensors, out=None, stream=None) returns the outputs as a list."""

    def capture(self, *inputs, stream=None):
        """Records one run on these GPU tensors as a CUDA graph: `c = ex.capture(a, b)`, then
        write new values into a and b (in place) and `c.replay()`; `c.outputs` holds the results.
        Replays launch on `stream` (default: torch's current stream), one graph launch each."""
        if stream is None and inputs and getattr(inputs[0], "is_cuda", False):
            import torch

            stream = torch._C._cuda_getCurrentRawStream(inputs[0].device.index)
        return super().capture(list(inputs), 0 if stream is None else stream)


def compile_report():
    """What torch.compile(backend="solder") did in this process: per compiled graph, its
    partitions, their kernels, every op that ran eagerly and why, and every recompile."""
    from .dynamo import report

    return report.text()


# torch.compile finds the backend through the package's entry point once installed; when
# solder is imported from a build tree with torch already loaded, register it here too.
if "torch" in sys.modules:
    try:
        from . import dynamo  # noqa: F401
    except ImportError:
        pass
