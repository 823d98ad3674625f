"""A region of an FX graph (its nodes, the values it reads, the values it gives) -> one
solder Fusion, node by node through the rules in ops.py."""
import operator

import torch
import torch.fx

import solder

from .ops import Unsupported, rule_for, solder_dtype


class LoweringError(Exception):
    """Lowering failed at `node` (the partitioner leaves it to eager and tries again)."""

    def __init__(self, node, reason):
        super().__init__(f"{node.format_node() if hasattr(node, 'format_node') else node}: {reason}")
        self.node = node
        self.reason = reason


def _sym_str(expr):
    """A sympy size expression as Solder's size syntax (sums and products of names and ints)."""
    import sympy

    if expr.is_Integer:
        return str(int(expr))
    if expr.is_Symbol:
        return expr.name
    if isinstance(expr, sympy.Add):
        return "+".join(f"({_sym_str(a)})" for a in expr.args)
    if isinstance(expr, sympy.Mul):
        return "*".join(f"({_sym_str(a)})" for a in expr.args)
    raise Unsupported(f"size expression {expr} is not a sum or product of sizes")


def dim_arg(d):
    """An int, a SymInt or an fx Node holding one -> an int or a Solder size expression."""
    if isinstance(d, torch.fx.Node):
        d = d.meta.get("val")
    if isinstance(d, int):
        return d
    if isinstance(d, torch.SymInt):
        if d.node.is_constant():
            return int(d)
        expr = d.node.expr
        return int(expr) if expr.is_Integer else _sym_str(expr)
    raise Unsupported(f"size {d!r} is neither an int nor a symbolic int")


def fake_of(n):
    v = n.meta.get("val") if isinstance(n, torch.fx.Node) else None
    if v is None:
        raise Unsupported(f"{n} has no traced value (meta['val'])")
    return v


class Region:
    """Nodes of one partition in graph order, the values from outside they read (fusion inputs,
    in order) and the values used outside (fusion outputs, in order)."""

    def __init__(self, nodes, inputs, outputs):
        self.nodes, self.inputs, self.outputs = nodes, inputs, outputs

    @staticmethod
    def of(nodes, order):
        """The region of a node set: inputs and outputs found from the graph's uses."""
        members = set(nodes)
        nodes = sorted(nodes, key=order.__getitem__)
        inputs, seen = [], set()
        for n in nodes:
            for a in n.all_input_nodes:
                if a not in members and a not in seen:
                    seen.add(a)
                    inputs.append(a)
        outputs = [n for n in nodes if any(u not in members for u in n.users)]
        return Region(nodes, inputs, outputs)


class Context:
    """What a rule sees: the fusion being built and the node being lowered."""

    def __init__(self, fusion):
        self.fusion = fusion
        self.node = None

    def dims(self, size):
        return [dim_arg(s) for s in size]

    def shape_of(self, n):
        return [dim_arg(s) for s in fake_of(n).shape]


class Lowered:
    """A region as a Fusion. `tensor_inputs`: positions of the region's inputs that are fusion
    inputs (the others are sizes, implied by the tensors). `outputs[i]` is ("fusion", j) for
    the fusion's j-th output, or ("copy", k) for a region output that is input k unchanged."""

    def __init__(self, fusion, tensor_inputs, outputs, ops):
        self.fusion, self.tensor_inputs, self.outputs, self.ops = fusion, tensor_inputs, outputs, ops


def _check(node, t, expected):
    """The lowered value has the traced dtype (cast if promotion differed) and, where sizes are
    static, the traced shape."""
    if not isinstance(t, solder.Tensor):
        raise LoweringError(node, f"lowered to {type(t).__name__}, not a tensor")
    want = solder_dtype(expected.dtype)
    if t.dtype != want:
        t = solder.cast(t, want)
    shape = list(expected.shape)
    if all(isinstance(s, int) for s in shape):
        got = t.shape
        if len(got) != len(shape) or any(g != str(s) for g, s in zip(got, shape)):
            raise LoweringError(node, f"Solder infers shape {got}, torch traced {shape}")
    return t


def lower(region, name="partition"):
    fusion = solder.Fusion(name)
    cx = Context(fusion)
    env = {}
    tensor_inputs = []
    for i, n in enumerate(region.inputs):
        v = fake_of(n)
        if isinstance(v, torch.Tensor):
            try:
                env[n] = fusion.input(f"in{i}", solder_dtype(v.dtype), cx.shape_of(n))
            except Unsupported as e:
                # An input Solder cannot take: the nodes reading it stay eager.
                raise LoweringError(next(u for u in region.nodes if n in u.all_input_nodes), str(e)) from None
            tensor_inputs.append(i)
        else:
            env[n] = v  # a size (SymInt) or scalar the rules read through the node's meta
    ops = []

    def arg(a):
        if isinstance(a, torch.fx.Node):
            return env[a]
        if isinstance(a, (list, tuple)):
            return type(a)(arg(x) for x in a)
        return a

    for n in region.nodes:
        cx.node = n
        try:
            if n.op != "call_function":
                raise Unsupported(f"{n.op} nodes are not lowered")
            rule, _ = rule_for(n.target)
            args = [arg(a) for a in n.args]
            # Sizes stay as nodes' values for the rules that take them (cx.dims reads them).
            kwargs = {k: arg(v) for k, v in n.kwargs.items()}
            out = rule(cx, *args, **kwargs)
            val = fake_of(n)
            if isinstance(val, (tuple, list)):
                if not isinstance(out, (tuple, list)) or len(out) < len([v for v in val if v is not None]):
                    raise Unsupported("lowering gave fewer outputs than the op has")
                # None: a result the rule does not make (it checked that nothing reads it).
                out = tuple(_check(n, o, v) if v is not None and o is not None else o for o, v in zip(out, val))
            elif n.target is not operator.getitem:
                out = _check(n, out, val)
            env[n] = out
        except LoweringError:
            raise
        except (Unsupported, ValueError, TypeError, IndexError) as e:
            raise LoweringError(n, str(e)) from None
        if n.target is not operator.getitem:
            ops.append(_op_name(n.target))

    outputs, emitted = [], {}
    inputs_by_name = {env[region.inputs[i]].name: i for i in tensor_inputs}
    for n in region.outputs:
        t = env[n]
        if t.name in inputs_by_name:
            outputs.append(("copy", inputs_by_name[t.name]))
        elif t.name in emitted:
            outputs.append(("copy_output", emitted[t.name]))
        else:
            emitted[t.name] = len(emitted)
            fusion.output(t)
            outputs.append(("fusion", emitted[t.name]))
    return Lowered(fusion, tensor_inputs, outputs, ops)


def _op_name(target):
    if isinstance(target, torch._ops.OpOverload):
        return f"{target.overloadpacket.__name__}"
    return getattr(target, "__name__", str(target))
