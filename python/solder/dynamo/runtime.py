"""Running a partitioned graph: each Solder partition becomes a SolderKernel (one compiled
Executor, reused across calls), the rest runs as the eager ATen ops it is; optionally the
whole graph is replayed as a CUDA graph."""
import torch

import solder

from . import report


def _contiguous_strides(shape):
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(int(s), 1)
    return tuple(reversed(strides))


class OutputSpec:
    """How to make one fusion output as torch traced it: sizes and strides when static; for
    symbolic sizes, dense in the traced stride order."""

    def __init__(self, fake):
        self.dtype = fake.dtype
        self.device = fake.device
        static = all(isinstance(s, int) for s in fake.shape) and all(isinstance(s, int) for s in fake.stride())
        self.shape = tuple(fake.shape) if static else None
        self.stride = tuple(fake.stride()) if static else None
        # Dims from the largest stride to the smallest: the layout to keep for any sizes.
        self.order = sorted(range(fake.dim()), key=lambda d: (-_hint(fake.stride()[d]), d))
        if static:
            self.contiguous = fake.numel() == 0 or _is_contiguous(self.shape, self.stride)
        else:
            self.contiguous = self.order == list(range(fake.dim()))

    def empty(self, shape):
        stride = self.stride if self.shape is not None else self.strides_for(shape)
        return torch.empty_strided(shape, stride, dtype=self.dtype, device=self.device)

    def strides_for(self, shape):
        strides, acc = [0] * len(shape), 1
        for d in reversed(self.order):
            strides[d] = acc
            acc *= max(shape[d], 1)
        return strides


def _hint(s):
    return s if isinstance(s, int) else (s.node.hint if s.node.hint is not None else 1)


def _is_contiguous(shape, stride):
    expect = _contiguous_strides(shape)
    return all(sz == 1 or st == e for sz, st, e in zip(shape, stride, expect))


class SolderKernel:
    """Calls one partition's Executor with the partition's tensor arguments. Outputs are made
    with torch's allocator: by Solder through torch's exchange table when torch traced them
    contiguous, else by torch.empty_strided with the traced strides, passed as out=."""

    def __init__(self, name, lowered, fake_outputs, tuple_out, fallback, graph_report):
        self.__name__ = name
        self.__qualname__ = name
        self.name = name
        self.lowered = lowered
        # Contiguous outputs: the simple path below relies on them where torch traced them so.
        self.ex = solder.Executor(lowered.fusion, contiguous_outputs=True)
        self.tensor_inputs = lowered.tensor_inputs
        self.all_tensors = None  # whether every argument is a fusion input (known at first call)
        self.all_specs = [OutputSpec(f) for f in fake_outputs]
        self.specs = [self.all_specs[j] for j in self._fusion_output_positions()]
        self.simple = all(kind == "fusion" for kind, _ in lowered.outputs) and all(s.contiguous for s in self.specs)
        self.tuple_out = tuple_out
        self.fallback = fallback  # the partition's eager GraphModule
        self.eager_reason = None
        self.graph_report = graph_report
        self.kernels_seen = 0
        self.calls = 0

    def _fusion_output_positions(self):
        return [i for i, (kind, _) in enumerate(self.lowered.outputs) if kind == "fusion"]

    def __call__(self, *args):
        if self.eager_reason is not None:
            return self.fallback(*args)
        ins = args if self.all_tensors else [args[i] for i in self.tensor_inputs]
        try:
            if self.simple:
                outs = self.ex(*ins)
            else:
                outs = self._run_strided(ins)
        except (ValueError, TypeError, RuntimeError) as e:
            # A plan Solder cannot make for these inputs (a first call, or new sizes): the
            # partition runs eagerly from now on, reported and warned.
            self.eager_reason = f"Solder could not run it ({e}); eager from now on"
            report.note_runtime_fallback(self)
            return self.fallback(*args)
        self.calls += 1
        if self.all_tensors is None:
            self.all_tensors = len(self.tensor_inputs) == len(args)
        if self.ex.kernels_compiled != self.kernels_seen:
            report.note_kernels(self, self.kernels_seen)
            self.kernels_seen = self.ex.kernels_compiled
        if self.tuple_out:
            return tuple(outs)
        return outs[0]

    def _run_strided(self, ins):
        fused = []
        shapes = None
        for spec in self.specs:
            if spec.shape is not None:
                fused.append(spec.empty(spec.shape))
            else:
                if shapes is None:
                    shapes = self.ex.output_shapes([list(t.shape) for t in ins])
                fused.append(spec.empty(shapes[len(fused)]))
        if fused:
            self.ex(*ins, out=fused)
        outs = []
        # An output that is an input or another output unchanged (a clone): a copy with the
        # traced strides, which need not be the source's.
        for (kind, k), spec in zip(self.lowered.outputs, self.all_specs):
            if kind == "fusion":
                outs.append(fused[k])
                continue
            src = ins[self.tensor_inputs.index(k)] if kind == "copy" else fused[k]
            outs.append(spec.empty(tuple(src.shape)).copy_(src))
        return outs


class GraphReplay:
    """Replays a compiled graph as one CUDA graph per input signature. Inputs that are
    parameters or buffers (same tensor every call) are read in place; the others are copied
    into the graph's static inputs. Outputs are the graph's static tensors: each call rewrites
    them (clone what must outlive the next call), as with torch.compile's reduce-overhead."""

    def __init__(self, fn, static_inputs, graph_report):
        self.fn = fn
        self.static_positions = static_inputs
        self.graph_report = graph_report
        self.graphs = {}

    @staticmethod
    def _signature(args):
        return tuple((tuple(a.shape), tuple(a.stride()), a.dtype, a.device) if isinstance(a, torch.Tensor) else a
                     for a in args)

    def __call__(self, *args):
        if not any(isinstance(a, torch.Tensor) and a.is_cuda for a in args):
            return self.fn(*args)
        sig = self._signature(args)
        entry = self.graphs.get(sig)
        if entry is None:
            entry = self._capture(args)
            self.graphs[sig] = entry
        graph, static, keep, outputs = entry
        for i, (a, s) in enumerate(zip(args, static)):
            if isinstance(a, torch.Tensor) and a.data_ptr() != s.data_ptr():
                s.copy_(a)
        graph.replay()
        return outputs

    def _capture(self, args):
        if self.graphs:
            report.note_recapture(self.graph_report, len(self.graphs))
        # Warm up on a side stream (plans, compiles and allocator pools settle), then capture.
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(2):
                self.fn(*args)
        torch.cuda.current_stream().wait_stream(s)
        static = [a if (not isinstance(a, torch.Tensor) or i in self.static_positions
                        or isinstance(a, torch.nn.Parameter)) else a.clone()
                  for i, a in enumerate(args)]
        graph = torch.cuda.CUDAGraph()
        keep = solder.CaptureRetention()
        with torch.cuda.graph(graph, capture_error_mode="relaxed"):
            with keep:
                outputs = self.fn(*static)
        return graph, static, keep, outputs
