"""torch.compile(model, backend="solder"): dynamo's graph -> aot_autograd (core ATen) ->
Solder partitions + eager rest -> one callable per graph.

    torch.compile(model, backend="solder")
    torch.compile(model, backend="solder", mode="reduce-overhead")        # CUDA-graph replay
    torch.compile(model, backend="solder", options={"cudagraphs": True})  # the same
"""
import atexit
import functools
import operator
import os

import torch
from torch.fx.passes.tools_common import stable_topological_sort
from torch.fx.passes.utils.fuser_utils import erase_nodes, fuse_as_graphmodule, insert_subgm

from . import report
from .lower import Region, fake_of, lower, _op_name
from .partition import _tensors, plan
from .runtime import GraphReplay, SolderKernel

_OPTIONS = {"cudagraphs": "replay each compiled graph as a CUDA graph (also mode='reduce-overhead')",
            "min_ops": "smallest partition (in ops) worth a Solder kernel (default 1)",
            "matmul": "'solder' (default: matmuls join their partitions, through cuBLASLt) or 'eager' (torch runs them)"}
_frames = {}  # dynamo frame id -> graphs compiled for it
_release_registered = False


def _release_at_exit():
    """Dynamo's caches and the report hold the compiled partitions (their Executors) until the
    interpreter tears torch down, after nanobind's leak check: it printed every Solder object as
    leaked at exit. Released first, at exit."""
    global _release_registered
    if _release_registered:
        return
    _release_registered = True

    def release():
        report.clear()
        try:
            torch._dynamo.reset()
        except Exception:  # an interpreter half torn down: nothing left worth releasing
            pass

    atexit.register(release)


def _compile_id():
    try:
        from torch._guards import CompileContext

        cid = CompileContext.current_compile_id()
        return (cid.frame_id, cid.frame_compile_id) if cid is not None else None
    except Exception:  # private API: the report then numbers graphs itself
        return None


def _static_inputs(n):
    """Inputs aot_autograd knows to be parameters or buffers (the same tensor every call)."""
    try:
        ctx = torch._guards.TracingContext.try_get()
        return set(ctx.fw_metadata.static_input_indices or []) if ctx and ctx.fw_metadata else set()
    except Exception:
        return set()


def compile_graph(gm, example_inputs, kind, cudagraphs, min_ops, compile_id, eager_matmul=False):
    """A callable running `gm` (an ATen graph from aot_autograd) with Solder partitions."""
    _release_at_exit()
    n_ops = sum(1 for n in gm.graph.nodes
                if n.op == "call_function" and n.target is not operator.getitem and _tensors(n.meta.get("val")))
    cid = "?" if compile_id is None else f"{compile_id[0]}/{compile_id[1]}"
    g = report.new_graph(kind, cid, n_ops, cudagraphs)
    if compile_id is not None and compile_id[1] > 0:
        report.note_recompile(g, _frames.get(compile_id[0], 0))
    if compile_id is not None:
        _frames[compile_id[0]] = _frames.get(compile_id[0], 0) + 1

    p = plan(gm, min_ops, eager_matmul)
    g.eager = [(n.name, _op_name(n.target), reason) for n, reason in p.eager.items()]
    for i, nodes in enumerate(p.partitions):
        name = f"{g.name}_fused_{i}"
        sub, inputs, outputs = fuse_as_graphmodule(gm, nodes, name, always_return_tuple=True)
        try:
            lowered = lower(Region(nodes, list(inputs), list(outputs)), name)
            kernel = SolderKernel(name, lowered, [fake_of(o) for o in outputs], True, sub, g)
        except Exception as e:  # Solder refused the fusion (passes, segmentation): eager, reported
            why = f"Solder refused its partition: {type(e).__name__}: {e}"
            g.eager += [(n.name, _op_name(n.target), why) for n in nodes
                        if n.target is not operator.getitem and _tensors(n.meta.get("val"))]
            continue
        g.partitions.append(report.PartitionInfo(name, lowered.ops, kernel))
        insert_subgm(gm, sub, inputs, outputs)
        erase_nodes(gm, nodes)
        # The call_module node insert_subgm made becomes a call of the kernel (a plain callable:
        # no nn.Module call per partition per run); the submodule stays as its eager fallback.
        call = next(n for n in gm.graph.nodes if n.op == "call_module" and n.target == name)
        with gm.graph.inserting_before(call):
            new = gm.graph.call_function(kernel, call.args)
        call.replace_all_uses_with(new)
        gm.graph.erase_node(call)
    stable_topological_sort(gm)
    gm.graph.lint()
    gm.recompile()

    fn = gm.forward
    if cudagraphs:
        fn = GraphReplay(fn, _static_inputs(len(example_inputs)), g)

    def run(args):
        # Boxed (aot_autograd's convention): the list is cleared so that inputs can be freed early.
        args_ = list(args)
        args.clear()
        out = fn(*args_)
        if not g.printed:
            report.first_call_done(g)
        return out

    run._boxed_call = True
    return run


def solder_backend(gm, example_inputs, mode=None, options=None):
    """The torch.compile backend (dynamo graph -> aot_autograd with core ATen decompositions).
    Inference graphs and training's forward and backward graphs all go through the same
    partitioner; what Solder does not lower runs eagerly and is listed in the report."""
    from torch._decomp import core_aten_decompositions
    from torch._dynamo.backends.common import aot_autograd

    opts = dict(options or {})
    unknown = set(opts) - set(_OPTIONS)
    if unknown:
        raise ValueError(f"solder backend: unknown option(s) {sorted(unknown)}; options: {_OPTIONS}")
    if mode not in (None, "default", "reduce-overhead"):
        raise ValueError(f"solder backend: mode {mode!r} (takes 'default' or 'reduce-overhead')")
    cudagraphs = bool(opts.get("cudagraphs", mode == "reduce-overhead" or os.environ.get("SOLDER_CUDAGRAPHS") == "1"))
    min_ops = int(opts.get("min_ops", 1))
    if opts.get("matmul", "solder") not in ("solder", "eager"):
        raise ValueError(f"solder backend: option matmul={opts['matmul']!r} (takes 'solder' or 'eager')")
    eager_matmul = opts.get("matmul") == "eager"
    compile_id = _compile_id()

    def compiler(kind):
        return functools.partial(_compiler, kind=kind, cudagraphs=cudagraphs, min_ops=min_ops, compile_id=compile_id,
                                 eager_matmul=eager_matmul)

    return aot_autograd(fw_compiler=compiler("forward"), bw_compiler=compiler("backward"),
                        inference_compiler=compiler("inference"), decompositions=core_aten_decompositions(),
                        keep_inference_input_mutations=True)(gm, example_inputs)


def _compiler(gm, example_inputs, kind, cudagraphs, min_ops, compile_id, eager_matmul):
    # Backward graphs are not replayed as CUDA graphs (their inputs are saved activations).
    return compile_graph(gm, example_inputs, kind, cudagraphs and kind != "backward", min_ops, compile_id, eager_matmul)
