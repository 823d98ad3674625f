"""Splits an ATen FX graph into Solder partitions and eager nodes.

The partitioner (torch's CapabilityBasedPartitioner) groups supported nodes into cycle-free
partitions. Each partition is then lowered; a node whose lowering fails is marked eager, with
the reason, and the graph is partitioned again, until every partition lowers. A partition that
would only move data (views) or only multiply matrices is left to eager too: it has nothing to
fuse, and eager runs it as fast.
"""
import operator

import torch
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase

from .lower import LoweringError, Region, lower
from torch.fx.node import _get_qualified_name

from .ops import METADATA_VIEWS, Unsupported, kind_of, rule_for, solder_dtype

_MAX_ROUNDS = 16


def _tensors(v):
    if isinstance(v, torch.Tensor):
        return [v]
    if isinstance(v, (tuple, list)):
        return [t for x in v for t in _tensors(x)]
    return []


def static_check(node):
    """None if Solder may take the node, else why not."""
    if node.op != "call_function":
        return f"{node.op} node"
    try:
        rule_for(node.target)
    except Unsupported as e:
        return str(e)
    if node.target is operator.getitem:
        # An item of an op's results goes where the op goes (an eager op's items stay eager).
        src = node.args[0]
        if not (isinstance(src, torch.fx.Node) and src.op == "call_function"):
            return "getitem of a non-op"
        return static_check(src)
    val = node.meta.get("val")
    outs = _tensors(val)
    if not outs:
        return "gives no tensor (sizes and scalars stay in Python)"
    devices = set()
    for t in outs + [t for a in node.all_input_nodes for t in _tensors(a.meta.get("val"))]:
        try:
            solder_dtype(t.dtype)
        except Unsupported as e:
            return str(e)
        if t.device.type not in ("cuda", "cpu"):
            return f"tensor on {t.device}"
        devices.add(t.device)
    if len(devices) > 1:
        return "operands on different devices (" + ", ".join(sorted(map(str, devices))) + ")"
    return None


class _Support(OperatorSupportBase):
    def __init__(self, blocked, reasons, eager_matmul):
        super().__init__()
        self.blocked, self.reasons, self.eager_matmul = blocked, reasons, eager_matmul

    def is_node_supported(self, submodules, node):
        if node in self.blocked:
            return False
        why = static_check(node)
        if why is None and self.eager_matmul and kind_of(node.target) == "matmul":
            why = "matmuls left to torch (option matmul='eager')"
        if why is not None:
            if node.op == "call_function":
                self.reasons[node] = why
            return False
        return True


class Plan:
    """The partitioner's result: partitions (lists of nodes) and, per eager call_function
    node, why it stayed eager."""

    def __init__(self, partitions, eager):
        self.partitions, self.eager = partitions, eager


def _fuses_something(nodes):
    kinds = {kind_of(n.target) for n in nodes}
    return bool(kinds & {"pointwise", "reduction"})


def plan(gm, min_ops=1, eager_matmul=False):
    """Partitions `gm`'s graph, lowering each partition to check it. Returns a Plan.
    eager_matmul: matmuls run in torch (cuBLAS), Solder fuses what lies between them."""
    order = {n: i for i, n in enumerate(gm.graph.nodes)}
    views = {_get_qualified_name(n.target) for n in gm.graph.nodes
             if n.op == "call_function" and getattr(n.target, "overloadpacket", None) in METADATA_VIEWS}
    blocked, reasons = {}, {}
    for _ in range(_MAX_ROUNDS):
        reasons.clear()
        partitioner = CapabilityBasedPartitioner(gm, _Support(blocked, reasons, eager_matmul), allows_single_node_partition=True,
                                                 non_compute_ops=sorted(views))
        proposed = partitioner.propose_partitions()
        partitioner.remove_bookend_non_compute_ops(proposed)
        proposed = [list(p.nodes) for p in proposed if p.nodes]
        kept, retry = [], False
        for nodes in proposed:
            if not _fuses_something(nodes):
                for n in nodes:
                    reasons[n] = "its partition only moves data or multiplies matrices: nothing to fuse"
                continue
            if sum(1 for n in nodes if n.target is not operator.getitem) < min_ops:
                for n in nodes:
                    reasons[n] = f"partition of fewer than {min_ops} ops"
                continue
            region = Region.of(nodes, order)
            try:
                lowered = lower(region)
            except LoweringError as e:
                blocked[e.node] = e.reason
                retry = True
                continue
            if not lowered.tensor_inputs:
                # Constants only (a mask or a fill): eager makes them on the graph's device, where
                # an Executor called without tensors would not know which device that is.
                for n in nodes:
                    reasons[n] = "its partition reads no tensor (constants only): eager makes them"
                continue
            if not any(kind == "fusion" for kind, _ in lowered.outputs):
                for n in nodes:  # e.g. a lone clone: its outputs are its inputs
                    reasons[n] = "its partition computes nothing (copies only): nothing to fuse"
                continue
            kept.append(nodes)
        if not retry:
            fused = {n for p in kept for n in p}
            eager = {}
            # Every op outside the partitions, with its reason; not ops: getitems of an eager
            # op, size arithmetic, asserts.
            for n in gm.graph.nodes:
                if (n.op != "call_function" or n in fused or n.target is operator.getitem
                        or not _tensors(n.meta.get("val"))):
                    continue
                eager[n] = blocked.get(n) or reasons.get(n) or "a view at a partition's edge: free in eager"
            return Plan([sorted(p, key=order.__getitem__) for p in kept], eager)
    raise RuntimeError("solder: partitioning did not settle")
