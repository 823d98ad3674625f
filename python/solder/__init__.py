"""Solder's Python frontend: describe a tensor program, run it on torch or numpy tensors.

    import solder, torch
    f = solder.Fusion("ln")
    x = f.input("x", "f16", ["B", "H"])
    w = f.input("w", "f16", ["H"])
    f.output(solder.layer_norm(x, 1, w))
    ex = solder.Executor(f)
    (y,) = ex(torch.randn(8192, 4096, device="cuda", dtype=torch.half),
              torch.randn(4096, device="cuda", dtype=torch.half))

Inputs travel through DLPack: GPU tensors run on the GPU (on torch's current stream), host
tensors (numpy, CPU torch) on the CPU reference executor. Outputs come back as torch tensors
for GPU runs and in the inputs' framework for host runs.
"""
from . import _solder
from ._solder import *  # noqa: F401,F403  (Fusion, Tensor, the op builders)


def _framework_of(t):
    return type(t).__module__.split(".")[0]


def _stream_of(t):
    if _framework_of(t) == "torch" and t.is_cuda:
        import torch

        return torch.cuda.current_stream(t.device).cuda_stream
    return 0


def _to_framework(arrays, like):
    if _framework_of(like) == "torch":
        import torch

        return [a if isinstance(a, torch.Tensor) else torch.from_numpy(a) for a in arrays]
    return arrays


class Executor(_solder.Executor):
    """Compiles and runs a Fusion; one kernel per size class (no recompiles across sizes)."""

    def __call__(self, *inputs, stream=None):
        if not inputs:
            return self.run([], 0 if stream is None else stream)
        if stream is None:
            stream = _stream_of(inputs[0])
        return _to_framework(self.run(list(inputs), stream), inputs[0])

    def capture(self, *inputs, stream=None):
        """Records one run on these GPU tensors as a CUDA graph: `c = ex.capture(a, b)`, then
        write new values into a and b (in place) and `c.replay()`; `c.outputs` holds the results.
        Replays launch on `stream` (default: torch's current stream), one graph launch each."""
        if stream is None and inputs:
            stream = _stream_of(inputs[0])
        return super().capture(list(inputs), 0 if stream is None else stream)
