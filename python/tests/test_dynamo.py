"""torch.compile(backend="solder") on the CPU: partition decisions on small FX graphs, and
compiled models against eager, their Solder partitions run by the CPU reference executor.
Skipped where torch is not installed (scripts/setup.sh installs it into build/pyenv)."""
import os
import re
import unittest
import warnings

import solder

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False

if not HAVE_TORCH:  # the module's models are torch modules: nothing here runs without it
    raise unittest.SkipTest("torch is not installed")

if HAVE_TORCH:
    import solder.dynamo
    from solder.dynamo import report
    from solder.dynamo.partition import plan


def aten_graph(fn, *args):
    """The core-ATen inference graph of fn, as the backend receives it."""
    from torch._decomp import core_aten_decompositions
    from torch._functorch.aot_autograd import aot_export_module

    class Wrap(nn.Module):
        def forward(self, *xs):
            out = fn(*xs)
            return out if isinstance(out, tuple) else (out,)

    with torch.no_grad():
        gm, _ = aot_export_module(Wrap(), args, trace_joint=False, decompositions=core_aten_decompositions())
    return gm


def compiled(model, **kw):
    torch._dynamo.reset()
    return torch.compile(model, backend="solder", **kw)


class Block(nn.Module):
    """A GPT-2-like block: layer norm, projections, tanh GELU, a softmax over scores."""

    def __init__(self, d=32):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        q, k, v = self.qkv(self.ln1(x)).split(x.shape[-1], dim=-1)
        s = torch.softmax(q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5, dim=-1)
        x = x + self.proj(s @ v)
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class RmsSwiGlu(nn.Module):
    """A Llama-like MLP: RMSNorm in fp32, SwiGLU, rotate-half (slices + cat)."""

    def __init__(self, d=32, h=48):
        super().__init__()
        self.w = nn.Parameter(torch.rand(d) + 0.5)
        self.gate, self.up, self.down = nn.Linear(d, h, bias=False), nn.Linear(d, h, bias=False), nn.Linear(h, d, bias=False)

    def forward(self, x):
        hf = x.float()
        hf = hf * torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + 1e-6)
        h = self.w * hf.to(x.dtype)
        h1, h2 = h[..., : h.shape[-1] // 2], h[..., h.shape[-1] // 2:]
        rot = torch.cat((-h2, h1), dim=-1)
        return x + self.down(F.silu(self.gate(h + rot)) * self.up(h))


@unittest.skipUnless(HAVE_TORCH, "needs torch (scripts/setup.sh installs it into build/pyenv)")
class Partitioning(unittest.TestCase):
    def test_backend_is_registered(self):
        self.assertIn("solder", torch._dynamo.list_backends(exclude_tags=()))

    def test_pointwise_and_norm_fuse_unsupported_op_falls_back_with_reason(self):
        def f(x, w):
            y = F.layer_norm(x, (x.shape[-1],), w) * 2 + 1
            return torch.cumsum(torch.sigmoid(y), 0)

        p = plan(aten_graph(f, torch.randn(4, 8), torch.randn(8)))
        self.assertEqual(len(p.partitions), 1)
        fused = {n.target.overloadpacket.__name__ for n in p.partitions[0] if hasattr(n.target, "overloadpacket")}
        self.assertTrue({"native_layer_norm", "mul", "add", "sigmoid"} <= fused, fused)
        eager = {n.target.overloadpacket.__name__: r for n, r in p.eager.items()}
        self.assertIn("cumsum", eager)
        self.assertIn("no Solder lowering", eager["cumsum"])

    def test_matmul_alone_is_left_to_eager(self):
        p = plan(aten_graph(lambda a, b: (a @ b).t(), torch.randn(4, 8), torch.randn(8, 3)))
        self.assertEqual(p.partitions, [])
        self.assertTrue(any("nothing to fuse" in r for r in p.eager.values()), p.eager)

    def test_matmul_joins_its_epilogue(self):
        p = plan(aten_graph(lambda x, w, b: torch.relu(F.linear(x, w, b)), torch.randn(4, 8), torch.randn(6, 8),
                            torch.randn(6)))
        self.assertEqual(len(p.partitions), 1)
        ops = {n.target.overloadpacket.__name__ for n in p.partitions[0]}
        self.assertIn("addmm", ops)
        self.assertIn("relu", ops)

    def test_items_of_an_eager_op_stay_eager(self):
        # max.dim gives (values, indices): Solder does not lower it, nor its getitems.
        def f(x):
            v, i = torch.max(x, dim=1)
            return torch.exp(v) * 2, i

        p = plan(aten_graph(f, torch.randn(4, 6)))
        self.assertEqual(len(p.partitions), 1)
        self.assertFalse(any(n.target is __import__("operator").getitem for n in p.partitions[0]))
        self.assertIn("max", {n.target.overloadpacket.__name__ for n in p.eager})

    def test_matmuls_can_be_left_to_torch(self):
        g = aten_graph(lambda x, w, b: torch.relu(F.linear(x, w, b)) * 2, torch.randn(4, 8), torch.randn(6, 8),
                       torch.randn(6))
        p = plan(g, eager_matmul=True)
        self.assertEqual(len(p.partitions), 1)
        ops = {n.target.overloadpacket.__name__ for n in p.partitions[0]}
        self.assertEqual(ops, {"relu", "mul"})
        reasons = {n.target.overloadpacket.__name__: r for n, r in p.eager.items()}
        self.assertIn("matmul='eager'", reasons["addmm"])

    def test_a_lone_copy_is_not_a_partition(self):
        p = plan(aten_graph(lambda x: torch.cumsum(x.t().contiguous(), 0), torch.randn(3, 4)))
        self.assertEqual(p.partitions, [])
        self.assertIn("copies only", p.eager[next(n for n in p.eager if n.target.overloadpacket.__name__ == "clone")])

    def test_views_at_a_partition_edge_stay_eager(self):
        # As around attention: a partition's result is viewed (split heads) by an eager op. The
        # view stays in eager (free), so the partition gives a contiguous tensor, no copy.
        def f(x, w):
            h = torch.relu(x @ w).view(2, 3, 4, 2).permute(0, 2, 1, 3)
            return torch.cumsum(h, 2)

        p = plan(aten_graph(f, torch.randn(2, 3, 8), torch.randn(8, 8)))
        self.assertEqual(len(p.partitions), 1)
        ops = {n.target.overloadpacket.__name__ for n in p.partitions[0]}
        self.assertIn("relu", ops)
        self.assertNotIn("permute", ops)
        edge = [r for n, r in p.eager.items() if n.target.overloadpacket.__name__ == "permute"]
        self.assertEqual(edge, ["a view at a partition's edge: free in eager"])

    def test_lowering_failure_blocks_the_node_and_repartitions(self):
        # div with rounding_mode passes the table but not the rule: that node alone goes eager.
        def f(x):
            return torch.div(torch.exp(x), 3, rounding_mode="floor") + torch.tanh(x)

        p = plan(aten_graph(f, torch.randn(5, 6)))
        reasons = {n.target.overloadpacket.__name__: r for n, r in p.eager.items()}
        self.assertIn("div", reasons)
        self.assertIn("rounding_mode", reasons["div"])
        self.assertTrue(p.partitions)

    def test_casts_and_reductions_fuse(self):
        def f(x):
            return (x.to(torch.float64) * 2).sum(0)

        p = plan(aten_graph(f, torch.randn(3, 4)))
        self.assertEqual(len(p.partitions), 1)
        self.assertEqual(p.eager, {})


@unittest.skipUnless(HAVE_TORCH, "needs torch (scripts/setup.sh installs it into build/pyenv)")
class CompiledMatchesEager(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        report.clear()

    def check(self, model, *args, atol=1e-5, rtol=1e-5, **kw):
        with torch.no_grad():
            want = model(*args)
            got = compiled(model, **kw)(*args)
        want = want if isinstance(want, tuple) else (want,)
        got = got if isinstance(got, tuple) else (got,)
        for g, w in zip(got, want):
            self.assertEqual(g.dtype, w.dtype)
            self.assertEqual(g.shape, w.shape)
            self.assertEqual(g.stride(), w.stride())
            torch.testing.assert_close(g, w, atol=atol, rtol=rtol)
        self.assertTrue(report.graphs(), "nothing compiled")
        self.assertTrue(any(g.partitions for g in report.graphs()), solder.compile_report())
        return got

    def test_gpt2_like_block(self):
        self.check(Block().eval(), torch.randn(2, 5, 32))

    def test_llama_like_mlp_in_bf16(self):
        m = RmsSwiGlu().to(torch.bfloat16).eval()
        self.check(m, torch.randn(2, 3, 32, dtype=torch.bfloat16), atol=3e-2, rtol=3e-2)

    def test_masked_softmax_and_reductions(self):
        def f(x, mask):
            s = x.masked_fill(mask, float("-inf")).softmax(-1)
            v, m = torch.var_mean(x, dim=-1, keepdim=True)
            return s * (x - m) / torch.sqrt(v + 1e-5), x.amax(0), x.abs().mean()

        x = torch.randn(6, 7)
        self.check(f, x, torch.rand(6, 7) > 0.7)

    def test_non_contiguous_outputs_keep_eager_strides(self):
        def f(x):
            y = (x * 2 + 1).transpose(0, 1)
            return y, torch.exp(x)[:, 1:3]

        self.check(f, torch.randn(4, 6))

    def test_clone_of_a_strided_input_gets_the_traced_strides(self):
        # The partition gives the (transposed) input back as it is: the copy must be contiguous.
        self.check(lambda x: (x.t().contiguous(), torch.relu(x) * 2), torch.randn(4, 6))

    def test_cast_chain_and_clamp(self):
        def f(x):
            return (x.to(torch.float16).float() * 3).clamp(-1, 2).to(torch.bfloat16)

        self.check(f, torch.randn(9, 5), atol=1e-2, rtol=1e-2)

    def test_dynamic_sizes_use_symbolic_dims(self):
        m = Block().eval()
        c = compiled(m, dynamic=True)
        with torch.no_grad():
            for b, s in ((2, 5), (3, 7)):
                x = torch.randn(b, s, 32)
                torch.testing.assert_close(c(x), m(x), atol=1e-5, rtol=1e-5)
        kernels = [p.kernel for g in report.graphs() for p in g.partitions]
        self.assertTrue(kernels)
        # One compiled fusion for both sizes: its inputs are declared with size symbols.
        self.assertTrue(any(re.search(r"input in\d+: f32\[s\d+", str(k.lowered.fusion)) for k in kernels),
                        [str(k.lowered.fusion) for k in kernels])
        self.assertEqual(len(report.graphs()), 1)

    def assert_all_lowered(self):
        """No op of the compiled graphs fell back for want of a lowering."""
        txt = solder.compile_report()
        self.assertNotIn("no Solder lowering", txt, txt)
        self.assertNotIn("refused", txt, txt)

    def test_activations_lower_in_f32_and_bf16(self):
        acts = [lambda x: F.leaky_relu(x, 0.2), F.elu, F.selu, F.softplus, lambda x: F.softplus(x, 2.0, 3.0), F.mish,
                F.hardswish, F.hardsigmoid, F.logsigmoid, lambda x: torch.log1p(x.abs()), torch.expm1, torch.floor, torch.ceil,
                torch.trunc, torch.round, torch.sign, lambda x: torch.nan_to_num(x.log(), 0.5, 3.0, -3.0)]
        x = torch.randn(7, 33) * 4
        x[0, :4] = torch.tensor([0.5, -2.5, 0.0, -0.0])  # halves round to even; signs of zeros
        for dt, tol in ((torch.float32, 1e-5), (torch.bfloat16, 2e-2)):
            for i, f in enumerate(acts):
                report.clear()
                with self.subTest(dtype=dt, act=i):
                    self.check(f, x.to(dt), atol=tol, rtol=tol)
                    self.assert_all_lowered()

    def test_constant_pads_fuse_with_their_neighbours(self):
        x = torch.randn(4, 6, 5)
        for i, f in enumerate([lambda t: F.pad(t, (1, 2)).exp(), lambda t: F.pad(t.sin(), (3, 0), value=2.0) * 3,
                               lambda t: F.pad(t, (-1, -2, 2, -1)).relu(), lambda t: F.pad(t, (1, 1, 0, 2), value=-1.5) + 1,
                               lambda t: F.pad(t.to(torch.bfloat16), (0, 3), value=0.25).float() * 2]):
            report.clear()
            with self.subTest(case=i):
                self.check(f, x)
                self.assert_all_lowered()
                g = report.graphs()[0]
                self.assertEqual(len(g.partitions), 1, solder.compile_report())
                self.assertNotIn("constant_pad_nd", [op for _, op, _ in g.eager])

    def test_pads_and_repeats_of_two_dims_are_one_kernel(self):
        # A conv's padding of H and W then a residual, and repeats of two dims: the nested cats
        # the frontend makes are one kernel.
        x, y = torch.randn(2, 3, 5, 7), torch.randn(2, 3, 7, 9)
        for i, (f, args) in enumerate([(lambda t, r: F.pad(t, (1, 1, 1, 1)) + r, (x, y)),
                                       (lambda t: t.repeat(1, 1, 2, 3).exp(), (x,))]):
            report.clear()
            with self.subTest(case=i):
                self.check(f, *args)
                self.assert_all_lowered()
                plan = report.graphs()[0].partitions[0].kernel.ex.explain([list(a.shape) for a in args])
                self.assertEqual(len(re.findall(r"^segment \d+: kernel", plan, re.M)), 1, plan)

    def test_pools_whose_windows_tile_the_image_lower(self):
        x = torch.randn(2, 3, 8, 12)
        for i, f in enumerate([lambda t: F.max_pool2d(t, 2).relu(), lambda t: F.avg_pool2d(t, (2, 3)) * 2,
                               lambda t: F.avg_pool2d(t.to(torch.float16), 4).float(), lambda t: F.max_pool2d(t[0], 2)]):
            report.clear()
            with self.subTest(case=i):
                self.check(f, x, atol=1e-3, rtol=1e-3)
                self.assert_all_lowered()
        # Overlapping or padded windows stay eager, with the reason.
        report.clear()
        self.check(lambda t: F.max_pool2d(t, 3, 2, 1) + 1, x)
        self.assertIn("Solder pools windows that tile the image", solder.compile_report())

    def test_max_and_min_values_xor_and_repeat_lower(self):
        x, m = torch.randn(3, 5, 7), torch.rand(3, 5, 7) > 0.5
        for i, f in enumerate([lambda t: t.max(1).values * 2, lambda t: torch.min(t, -1, keepdim=True)[0] + t,
                               lambda t: torch.logical_xor(t > 0, m).float() + 1, lambda t: t.repeat(1, 2, 1).exp(),
                               lambda t: t.repeat(2, 1, 1, 3) * 2]):
            report.clear()
            with self.subTest(case=i):
                self.check(f, x)
                self.assert_all_lowered()
        # Indices read, or more copies than a cat takes: eager, with the reason.
        report.clear()
        self.check(lambda t: tuple(v + 1 for v in t.max(1)), x)
        self.assertIn("indices of max.dim", solder.compile_report())
        report.clear()
        self.check(lambda t: t.repeat(1, 9, 1) + 1, x)
        self.assertIn("Solder cats 1 to 8 copies", solder.compile_report())

    def test_writes_into_slices_lower(self):
        # Functionalized `z[:, a:b] = y`: copy (y broadcast into the slice) and slice_scatter
        # (a cat of z's slices around it).
        def f(x, y):
            z = x * 2
            z[:, 1:4] = y
            z[:, 6:] = y[:, :2].sin()
            z[-1:] = 0.25
            return z.exp()

        self.check(f, torch.randn(5, 8), torch.randn(5, 3))
        eager = [op for g in report.graphs() for _, op, _ in g.eager]
        self.assertIn("slice_scatter", solder.compile_report())
        self.assertFalse({"copy", "slice_scatter"} & set(eager), solder.compile_report())

    def test_bit_operations_of_bools_are_logical(self):
        def f(x, m, n):
            return x.masked_fill(~m, 0.0), (m & n).float() + (m | n).float() * 2 + (m ^ n).float() * 4

        self.check(f, torch.randn(5, 9), torch.rand(5, 9) > 0.5, torch.rand(5, 9) > 0.3)
        self.assert_all_lowered()

    def test_group_batch_and_instance_norms_and_vector_norms_lower(self):
        x = torch.randn(3, 8, 5, 7)
        gn, bn = nn.GroupNorm(4, 8), nn.BatchNorm2d(8)
        with torch.no_grad():
            for p in list(gn.parameters()) + list(bn.parameters()):
                p.copy_(torch.randn_like(p))
            bn.running_mean.copy_(torch.randn(8))
            bn.running_var.copy_(torch.rand(8) + 0.5)
        for i, f in enumerate([gn, bn.eval(), lambda t: F.relu(F.instance_norm(t)), lambda t: F.normalize(t, dim=1),
                               lambda t: torch.linalg.vector_norm(t, ord=1, dim=(2, 3)), lambda t: t.norm(dim=-1),
                               lambda t: torch.linalg.vector_norm(t, ord=float("inf"))]):
            report.clear()
            with self.subTest(case=i):
                self.check(f, x, atol=1e-4, rtol=1e-4)
                self.assert_all_lowered()
        report.clear()
        self.check(gn.to(torch.bfloat16), x.to(torch.bfloat16), atol=3e-2, rtol=3e-2)

    def test_batch_norm_training_updates_running_statistics_as_eager(self):
        ref, new = nn.BatchNorm2d(6, momentum=0.3), nn.BatchNorm2d(6, momentum=0.3)
        new.load_state_dict(ref.state_dict())
        x = torch.randn(4, 6, 3, 5) * 2 + 1
        c = compiled(new)
        for _ in range(2):
            torch.testing.assert_close(c(x), ref(x), atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(new.running_mean, ref.running_mean)
        torch.testing.assert_close(new.running_var, ref.running_var)
        self.assertEqual(int(new.num_batches_tracked), int(ref.num_batches_tracked))
        self.assertTrue(any(g.partitions for g in report.graphs()), solder.compile_report())

    def test_a_partition_of_constants_only_is_left_to_eager(self):
        # Fills that only an eager op reads (cumsum): a partition of them alone would be called
        # without tensors, so it stays eager (it gave numpy arrays to torch).
        def f(x):
            return (x + torch.cumsum(torch.full((3,), 2.0) * torch.ones(3), 0)).relu()

        self.check(f, torch.randn(2, 4, 3))
        self.assertIn("constants only", solder.compile_report())

    def test_training_graphs_compile_and_grads_match(self):
        m = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.LayerNorm(16), nn.Linear(16, 4))
        x = torch.randn(5, 8)
        m(x).square().sum().backward()
        want = [p.grad.clone() for p in m.parameters()]
        m.zero_grad()
        compiled(m)(x).square().sum().backward()
        for g, w in zip([p.grad for p in m.parameters()], want):
            torch.testing.assert_close(g, w, atol=1e-4, rtol=1e-4)
        self.assertIn("backward", solder.compile_report())


@unittest.skipUnless(HAVE_TORCH, "needs torch (scripts/setup.sh installs it into build/pyenv)")
class Report(unittest.TestCase):
    def setUp(self):
        report.clear()

    def test_report_lists_partitions_kernels_and_fallbacks(self):
        def f(x):
            return torch.cumsum(torch.relu(x) * 2, 1)

        with torch.no_grad():
            compiled(f)(torch.randn(3, 4))
        text = solder.compile_report()
        self.assertIn("Solder partition", text)
        self.assertIn("g0_fused_0", text)
        self.assertIn("relu", text)
        self.assertIn("cumsum x1: no Solder lowering for this op", text)

    def test_recompile_is_reported_and_warned(self):
        f = compiled(lambda x: torch.sigmoid(x) * 3, dynamic=False)
        with torch.no_grad():
            f(torch.randn(3, 4))
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                f(torch.randn(5, 4))
        self.assertTrue(any("recompile" in str(x.message) for x in w), [str(x.message) for x in w])
        self.assertIn("recompile", solder.compile_report())

    def test_a_partition_solder_cannot_run_falls_back_to_eager(self):
        f = compiled(lambda x: torch.sigmoid(x) * 3)
        x = torch.randn(3, 4)
        with torch.no_grad():
            f(x)
            kernel = report.graphs()[0].partitions[0].kernel

            class Broken:
                runs = kernels_compiled = signatures = 0

                def __call__(self, *args, **kwargs):
                    raise ValueError("no plan for these inputs")

            kernel.ex = Broken()
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                y = f(x)
        torch.testing.assert_close(y, torch.sigmoid(x) * 3)
        self.assertTrue(any("runs eagerly" in str(m.message) for m in w), [str(m.message) for m in w])
        self.assertIn("no plan for these inputs", solder.compile_report())

    def test_no_leak_warnings_at_exit(self):
        # Dynamo's caches held the compiled partitions past nanobind's leak check at exit.
        import subprocess
        import sys

        code = "import torch, solder.dynamo\nprint(torch.compile(lambda t: t.exp() * 2, backend='solder')(torch.randn(3)).shape)"
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ), timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("leaked", r.stderr, r.stderr)

    def test_environment_variable_prints_the_report(self):
        import contextlib
        import io

        os.environ[report.ENV] = "1"
        try:
            err = io.StringIO()
            with contextlib.redirect_stderr(err), torch.no_grad():
                compiled(lambda x: torch.tanh(x) + 1)(torch.randn(2, 3))
        finally:
            del os.environ[report.ENV]
        self.assertIn("Solder partition", err.getvalue())


@unittest.skipUnless(HAVE_TORCH, "needs torch (scripts/setup.sh installs it into build/pyenv)")
class TorchCall(unittest.TestCase):
    """The Executor's call on torch CPU tensors: through torch's exchange table where torch has
    it (no DLPack capsules), results as torch tensors, out= written in place."""

    def fusion(self):
        f = solder.Fusion("axpb")
        x = f.input("x", "f32", ["B", "H"])
        b = f.input("b", "f32", ["H"])
        f.output(x * 2.0 + b)
        f.output(solder.sum(x, [1]))
        return f

    def test_outputs_are_torch_tensors(self):
        ex = solder.Executor(self.fusion())
        x, b = torch.randn(3, 5), torch.randn(5)
        y, s = ex(x, b)
        self.assertIsInstance(y, torch.Tensor)
        torch.testing.assert_close(y, x * 2 + b)
        torch.testing.assert_close(s, x.sum(1))

    def test_out_is_written_in_place_with_its_strides(self):
        ex = solder.Executor(self.fusion())
        x, b = torch.randn(4, 6).t(), torch.randn(4)  # transposed input
        y = torch.empty(4, 6).t()  # transposed output
        s = torch.empty(6)
        res = ex(x, b, out=[y, s])
        self.assertIs(res[0], y)
        torch.testing.assert_close(y, x * 2 + b)
        torch.testing.assert_close(s, x.sum(1))

    def test_outputs_take_eagers_layout(self):
        # A permute of a computed result is that permuted view over a dense buffer (eager's
        # strides), on the host as on the GPU; contiguous_outputs=True makes it contiguous.
        f = solder.Fusion("tanh_t")
        x = f.input("x", "f32", ["B", "H"])
        a = f.input("a", "f32", ["H"])
        f.output(solder.permute(solder.tanh(x + a), [1, 0]))
        f.output(solder.tanh(x))
        u, v = torch.randn(5, 3), torch.randn(3)
        want = (u + v).tanh().t()
        ex = solder.Executor(f)
        for _ in range(2):  # the layouts of these sizes, then from the cache
            t, w = ex(u, v)
            self.assertEqual(t.stride(), want.stride())
            self.assertTrue(w.is_contiguous())
            torch.testing.assert_close(t, want)
            del t  # the wrapped buffer freed with its tensor
        (c, _) = solder.Executor(f, contiguous_outputs=True)(u, v)
        self.assertTrue(c.is_contiguous())
        torch.testing.assert_close(c, want)

    def test_element_results_take_their_inputs_layout(self):
        # Eager's TensorIterator lays an element op's result out as its operands are (the first
        # operand whose strides tell two dims apart deciding; broadcast operands telling nothing):
        # the same strides here, compared with torch's own, and explain plans that layout.
        f = solder.Fusion("pw_layout")
        x = f.input("x", "f32", ["A", "B", "C"])
        w = f.input("w", "f32", ["C"])
        y = f.input("y", "f32", ["A", "B", "C"])
        f.output(solder.sigmoid(x) * w)
        f.output(y + x)
        f.output(solder.cast(x, "f16") + 1.0)
        f.output(solder.permute(x, [2, 0, 1]))
        f.output(solder.sum(x, [1]))
        ex = solder.Executor(f)
        for perm in ((2, 0, 1), (0, 2, 1), (1, 2, 0)):
            base = torch.randn(*[(3, 4, 5)[p] for p in perm])
            xp = base.permute(*[perm.index(d) for d in range(3)])
            wv, yc = torch.randn(5), torch.randn(3, 4, 5)
            want = [torch.sigmoid(xp) * wv, yc + xp, xp.half() + 1.0, xp.permute(2, 0, 1), xp.sum(1)]
            got = ex(xp, wv, yc)
            for i, (g, e) in enumerate(zip(got, want)):
                with self.subTest(perm=perm, output=i):
                    self.assertEqual(g.stride(), e.stride())
                    torch.testing.assert_close(g, e, atol=1e-3, rtol=1e-3)
            self.assertEqual(ex.output_strides([[3, 4, 5], [5], [3, 4, 5]], [list(xp.stride()), [1], [20, 5, 1]]),
                             [list(e.stride()) for e in want])

    def test_bad_arguments_say_what_is_wrong(self):
        ex = solder.Executor(self.fusion())
        with self.assertRaisesRegex(ValueError, "takes 2 inputs"):
            ex(torch.randn(3, 5))
        with self.assertRaisesRegex(ValueError, "outputs, got 1"):
            ex(torch.randn(3, 5), torch.randn(5), out=[torch.empty(3, 5)])
        with self.assertRaisesRegex(TypeError, "keyword"):
            ex(torch.randn(3, 5), torch.randn(5), strem=0)

    def test_uses_the_exchange_table_where_torch_has_it(self):
        if not hasattr(torch.Tensor, "__dlpack_c_exchange_api__"):
            self.skipTest("this torch has no DLPack exchange table")
        # With __dlpack__ broken, only the exchange table can read the tensors.
        ex = solder.Executor(self.fusion())
        x, b = torch.randn(3, 5), torch.randn(5)
        saved = torch.Tensor.__dlpack__

        def refuse(*a, **k):
            raise RuntimeError("__dlpack__ called")

        torch.Tensor.__dlpack__ = refuse
        try:
            y, _ = ex(x, b)
        finally:
            torch.Tensor.__dlpack__ = saved
        torch.testing.assert_close(y, x * 2 + b)


if __name__ == "__main__":
    unittest.main()
