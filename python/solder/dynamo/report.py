"""What the torch.compile backend did, per compiled graph (nothing silent): partitions and
their kernels, every op left to eager and why, every recompile. solder.compile_report()
gives the text; SOLDER_COMPILE_REPORT=1 prints each graph's after its first call."""
import collections
import os
import sys
import warnings

ENV = "SOLDER_COMPILE_REPORT"
_graphs = []


class PartitionInfo:
    def __init__(self, name, ops, kernel):
        self.name, self.ops, self.kernel = name, ops, kernel


class GraphReport:
    def __init__(self, kind, compile_id, n_ops, cudagraphs):
        self.index = len(_graphs)
        self.kind, self.compile_id, self.n_ops, self.cudagraphs = kind, compile_id, n_ops, cudagraphs
        self.partitions = []
        self.eager = []  # (node name, op name, reason)
        self.events = []  # recompiles, new kernels, runtime fallbacks, in order
        self.printed = False

    @property
    def name(self):
        return f"g{self.index}"

    def text(self):
        fused_ops = sum(len(p.ops) for p in self.partitions)
        head = (f"graph {self.index} [{self.kind}, compile {self.compile_id}]: {self.n_ops} ops -> "
                f"{len(self.partitions)} Solder partition(s) with {fused_ops} ops, {len(self.eager)} ops eager"
                + (", replayed as a CUDA graph" if self.cudagraphs else ""))
        lines = [head]
        for p in self.partitions:
            lines.append(f"  {p.name}: {len(p.ops)} ops ({_counted(p.ops)})")
            k = p.kernel
            if k.eager_reason:
                lines.append(f"    eager: {k.eager_reason}")
            elif k.calls and not k.ex.runs:
                lines.append(f"    ran {k.calls} time(s) on the CPU reference executor")
            elif k.ex.runs:
                steps = [f"{n} ({c})" for n, c in zip(k.ex.launches(), k.ex.launch_categories())]
                launched = sum(1 for c in k.ex.launch_categories() if c != "view")
                lines.append(f"    {launched} launch(es), {k.ex.kernels_compiled} kernel(s) compiled, "
                             f"{k.ex.signatures} signature(s): " + ", ".join(steps))
            else:
                lines.append("    not run yet (kernels are compiled on the first call)")
        if self.eager:
            lines.append("  eager (fell back):")
            groups = collections.Counter((op, reason) for _, op, reason in self.eager)
            for (op, reason), n in sorted(groups.items(), key=lambda kv: (-kv[1], kv[0])):
                lines.append(f"    {op} x{n}: {reason}")
        for e in self.events:
            lines.append(f"  {e}")
        return "\n".join(lines)


def _counted(ops):
    c = collections.Counter(ops)
    return ", ".join(f"{op} x{n}" if n > 1 else op for op, n in c.most_common())


def new_graph(kind, compile_id, n_ops, cudagraphs):
    g = GraphReport(kind, compile_id, n_ops, cudagraphs)
    _graphs.append(g)
    return g


def graphs():
    return list(_graphs)


def text():
    if not _graphs:
        return "solder compile report: no graph compiled with backend='solder' yet"
    return "\n".join([f"solder compile report: {len(_graphs)} graph(s)"] + [g.text() for g in _graphs])


def clear():
    _graphs.clear()


def _event(g, message, warn):
    g.events.append(message)
    if warn:
        warnings.warn(f"solder: {message}", stacklevel=4)


def note_recompile(g, previous):
    _event(g, f"recompile: dynamo compiled this frame again (compile {g.compile_id}, after {previous}; dynamo "
              "stops at torch._dynamo.config.recompile_limit); TORCH_LOGS=recompiles says which guard failed",
           warn=True)


def note_kernels(kernel, before):
    if before:
        _event(kernel.graph_report, f"recompile: {kernel.name} compiled {kernel.ex.kernels_compiled - before} more "
                                    "kernel(s) for new input sizes", warn=True)


def note_runtime_fallback(kernel):
    _event(kernel.graph_report, f"{kernel.name} runs eagerly: {kernel.eager_reason}", warn=True)


def note_recapture(g, n):
    _event(g, f"recapture: CUDA graph {n + 1} for new input sizes or strides", warn=True)


def first_call_done(g):
    if os.environ.get(ENV, "0") not in ("", "0") and not g.printed:
        g.printed = True
        print(g.text(), file=sys.stderr)
