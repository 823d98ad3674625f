"""The torch integration on the GPU: the fast call (torch's allocator and stream, out=), a
caller's CUDA graph capture, and torch.compile(backend="solder") against eager. Runs where
torch sees a CUDA device (scripts/device.sh); skipped elsewhere."""
import os
import sys
import unittest

import solder

try:
    import torch

    HAVE_CUDA = torch.cuda.is_available()
except ImportError:
    HAVE_CUDA = False

if HAVE_CUDA:
    import solder.dynamo
    from solder.dynamo import report

    sys.path.insert(0, os.path.dirname(__file__))
    from test_dynamo import Block, RmsSwiGlu
    from test_exact import QUANT_SIZES, QUANT_SPELLINGS, fp8_mismatches, quant_eager, quant_fusion, quant_input


def add_fusion(dtype="f32"):
    f = solder.Fusion("add")
    u = f.input("u", dtype, ["N"])
    v = f.input("v", dtype, ["N"])
    f.output(u + v)
    return f


def residual_norm_fusion():
    # Two outputs and an intermediate: (x + r), layer_norm(x + r).
    f = solder.Fusion("residual_ln")
    x = f.input("x", "bf16", ["B", "H"])
    r = f.input("r", "bf16", ["B", "H"])
    w = f.input("w", "bf16", ["H"])
    h = x + r
    f.output(h)
    f.output(solder.layer_norm(h, 1, w))
    return f


@unittest.skipUnless(HAVE_CUDA, "needs torch with a CUDA device")
class FastCall(unittest.TestCase):
    def test_outputs_come_from_torchs_allocator(self):
        ex = solder.Executor(add_fusion())
        u, v = torch.randn(1 << 20, device="cuda"), torch.randn(1 << 20, device="cuda")
        ex(u, v)  # plans and compiles
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        (y,) = ex(u, v)
        self.assertEqual(torch.cuda.memory_allocated() - before, y.numel() * 4)
        torch.testing.assert_close(y, u + v)

    def test_runs_on_the_current_stream(self):
        ex = solder.Executor(residual_norm_fusion())
        x, r = (torch.randn(64, 1000, device="cuda").bfloat16() for _ in range(2))
        w = torch.randn(1000, device="cuda").bfloat16()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            h, y = ex(x, r, w)
        s.synchronize()
        hf = (x + r).float()
        torch.testing.assert_close(h, x + r)
        want = torch.nn.functional.layer_norm(hf, (1000,), w.float()).bfloat16()
        torch.testing.assert_close(y, want, atol=2e-2, rtol=2e-2)

    def test_out_with_any_strides(self):
        ex = solder.Executor(residual_norm_fusion())
        x = torch.randn(300, 64, device="cuda").bfloat16().t()  # [64, 300], transposed
        r = torch.randn(64, 300, device="cuda").bfloat16()
        w = torch.randn(300, device="cuda").bfloat16()
        h = torch.empty(300, 64, device="cuda", dtype=torch.bfloat16).t()
        y = torch.empty(64, 300, device="cuda", dtype=torch.bfloat16)
        res = ex(x, r, w, out=[h, y])
        self.assertIs(res[0], h)
        torch.testing.assert_close(h, x + r)

    def test_permuted_result_is_a_view_or_written_by_its_kernel(self):
        # tanh(x + a).t(): the output is the transposed view eager gives (its kernel writes rows in
        # order, one pointwise launch); into a contiguous out= buffer the kernel writes its result
        # transposed (the transpose scheduler), one launch, no copy.
        f = solder.Fusion("tanh_t")
        x = f.input("x", "bf16", ["B", "H"])
        a = f.input("a", "bf16", ["B", "H"])
        f.output(solder.permute(solder.tanh(x + a), [1, 0]))
        ex = solder.Executor(f)
        for rows, cols in ((2048, 1024), (301, 67)):
            u, v = (torch.randn(rows, cols, device="cuda").bfloat16() for _ in range(2))
            want = (u + v).tanh().t()
            (y,) = ex(u, v)
            self.assertEqual(y.stride(), want.stride())
            torch.testing.assert_close(y, want, atol=2e-2, rtol=2e-2)
            kernels = [k for k in ex.launches() if k != "view"]
            self.assertEqual(len(kernels), 1, kernels)
            self.assertTrue(kernels[0].startswith("solder_pw_"), kernels)
            del y  # its buffer (the wrapped allocation) freed while the next call runs
            out = torch.empty(cols, rows, device="cuda", dtype=torch.bfloat16)
            (z,) = ex(u, v, out=[out])
            self.assertIs(z, out)
            torch.testing.assert_close(z, want, atol=2e-2, rtol=2e-2)
            kernels = [k for k in ex.launches() if k != "view"]
            self.assertEqual(len(kernels), 1, kernels)
            self.assertTrue(kernels[0].startswith("solder_transpose_"), kernels)
        (w,) = solder.Executor(f, contiguous_outputs=True)(u, v)
        self.assertTrue(w.is_contiguous())
        torch.testing.assert_close(w, want, atol=2e-2, rtol=2e-2)

    def test_new_outputs_take_eagers_strides(self):
        # Without out=, each new output is laid out as eager lays it out on the GPU: element ops
        # follow their operands (a transposed input gives a transposed result), x - mean(x)
        # follows x, a layer norm and a softmax are contiguous.
        f = solder.Fusion("eager_strides")
        x = f.input("x", "bf16", ["B", "H"])
        w = f.input("w", "bf16", ["H"])
        f.output(solder.sigmoid(x) * w)
        xf = solder.cast(x, "f32")
        f.output(xf - solder.mean(xf, [1], keepdim=True))
        f.output(solder.layer_norm(x, 1, w, None, 1e-5))
        f.output(solder.softmax(x, 1))
        ex = solder.Executor(f)
        for rows, cols in ((4096, 3000), (37, 301)):
            xt = torch.randn(cols, rows, device="cuda").bfloat16().t()
            wv = torch.randn(cols, device="cuda").bfloat16()
            want = [torch.sigmoid(xt) * wv, xt.float() - xt.float().mean(1, keepdim=True),
                    torch.nn.functional.layer_norm(xt, (cols,), wv, None, 1e-5), torch.softmax(xt, 1)]
            got = ex(xt, wv)
            for i, (g, e) in enumerate(zip(got, want)):
                with self.subTest(rows=rows, output=i):
                    self.assertEqual(g.stride(), e.stride())
                    torch.testing.assert_close(g.float(), e.float(), atol=3e-2, rtol=3e-2)

    def test_outputs_in_the_inputs_transposed_layout_are_one_pointwise_kernel(self):
        # out= in the transposed input's layout (eager's, as torch.compile passes it): the kernel
        # walks that memory order, reading and writing at unit stride (no transpose kernel).
        # Where another input disagrees, a transpose kernel.
        f = solder.Fusion("t_layout")
        x = f.input("x", "bf16", ["B", "H"])
        w = f.input("w", "bf16", ["H"])
        f.output(solder.tanh(x * 2.0 + w))
        ex = solder.Executor(f)
        g = solder.Fusion("mixed")
        u = g.input("u", "f32", ["B", "H"])
        v = g.input("v", "f32", ["B", "H"])
        g.output(u * 2.0 + v)
        mixed = solder.Executor(g)
        for rows, cols in ((4096, 4097), (37, 301)):
            x_t = torch.randn(cols, rows, device="cuda").bfloat16().t()
            w_c = torch.randn(cols, device="cuda").bfloat16()
            out = torch.empty(cols, rows, device="cuda", dtype=torch.bfloat16).t()
            ex(x_t, w_c, out=[out])
            torch.testing.assert_close(out, torch.tanh(x_t * 2 + w_c), atol=2e-2, rtol=2e-2)
            kernels = [k for k in ex.launches() if k != "view"]
            self.assertEqual(len(kernels), 1, kernels)
            self.assertTrue(kernels[0].startswith("solder_pw_"), kernels)
            u_t = torch.randn(cols, rows, device="cuda").t()
            v_c = torch.randn(rows, cols, device="cuda")
            z = torch.empty(cols, rows, device="cuda").t()
            mixed(u_t, v_c, out=[z])
            torch.testing.assert_close(z, u_t * 2 + v_c)

    def test_a_callers_cuda_graph_replays_solder_kernels(self):
        ex = solder.Executor(residual_norm_fusion())
        x, r = (torch.randn(32, 4096, device="cuda").bfloat16() for _ in range(2))
        w = torch.randn(4096, device="cuda").bfloat16()
        ex(x, r, w)  # warm: plans and compiles outside the capture
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        keep = solder.CaptureRetention()
        with torch.cuda.graph(g, capture_error_mode="relaxed"), keep:
            h, y = ex(x, r, w)
        for _ in range(3):
            x.copy_(torch.randn_like(x))
            g.replay()
            torch.cuda.synchronize()
            torch.testing.assert_close(h, x + r)


@unittest.skipUnless(HAVE_CUDA, "needs torch with a CUDA device")
class RoundedTanhOnGpu(unittest.TestCase):
    def test_f16_and_bf16_tanh_round_as_eagers(self):
        # tanh.approx's 2^-11 relative error is f16's half ulp: it moved results by an ulp, and
        # later f32 arithmetic carried the difference (seed 30 #028 of bench/variants.py).
        x32 = torch.linspace(-4, 4, 1 << 20, device="cuda")
        for dt, name in ((torch.float16, "f16"), (torch.bfloat16, "bf16")):
            f = solder.Fusion("rounded")
            f.output(solder.tanh(f.input("x", name, ["N"])))
            x = x32.to(dt)
            (got,) = solder.Executor(f)(x)
            off = (got != torch.tanh(x)).sum().item()
            self.assertLessEqual(off, x.numel() // 10000, f"{name}: {off} of {x.numel()} differ from eager")

    def test_f16_and_bf16_gelu_tanh_within_an_ulp(self):
        # gelu's tanh form as x * sigmoid(2u) (a composite with its own arithmetic): within an
        # ulp of eager's, and of the exact value where eager's 1 + tanh(u) cancels (u << 0).
        x32 = torch.linspace(-8, 8, 1 << 20, device="cuda")
        for dt, name, ulp in ((torch.float16, "f16", 2.0**-10), (torch.bfloat16, "bf16", 2.0**-7)):
            with self.subTest(dtype=name):
                f = solder.Fusion("rounded")
                f.output(solder.gelu_tanh(f.input("x", name, ["N"])))
                x = x32.to(dt)
                (got,) = solder.Executor(f)(x)
                xd = x.double()
                exact = 0.5 * xd * (1 + torch.tanh(0.7978845608028654 * (xd + 0.044715 * xd**3)))
                want = torch.nn.functional.gelu(x, approximate="tanh").double()
                tol = ulp * torch.maximum(want.abs(), exact.abs()) + 1e-7
                bad = ((got.double() - want).abs() > tol) & ((got.double() - exact).abs() > tol)
                self.assertEqual(bad.sum().item(), 0, f"{name}: {x[bad][:8].tolist()}")


@unittest.skipUnless(HAVE_CUDA, "needs torch with a CUDA device")
class Fp8QuantizationOnGpu(unittest.TestCase):
    """Issue 29: per-row fp8 e4m3 quantization, bit for bit as eager computes it on the GPU
    (the scale 448 / amax, IEEE division, no FMA contraction, the e4m3 cast)."""

    def test_identical_to_eager(self):
        g = torch.Generator().manual_seed(290)
        sizes = QUANT_SIZES + [(8192, 4096), (1000, 770), (132, 20480), (5, 131072)]
        for spelling in QUANT_SPELLINGS:
            ex = solder.Executor(quant_fusion(spelling))
            for rows, cols in sizes:
                with self.subTest(spelling=spelling, rows=rows, cols=cols):
                    x = quant_input(rows, cols, g, device="cuda")
                    (got,) = ex(x)
                    want = quant_eager(x, spelling)
                    bad = fp8_mismatches(got, want)
                    self.assertEqual(bad, 0, f"{bad} of {x.numel()} fp8 values differ from eager")

    def test_compiled_identical_to_eager(self):
        torch._dynamo.reset()
        x = quant_input(64, 4096, torch.Generator().manual_seed(291), device="cuda")
        for spelling in QUANT_SPELLINGS:
            with self.subTest(spelling=spelling), torch.no_grad():
                c = torch.compile(lambda t: quant_eager(t, spelling), backend="solder")
                self.assertEqual(fp8_mismatches(c(x), quant_eager(x, spelling)), 0)


@unittest.skipUnless(HAVE_CUDA, "needs torch with a CUDA device")
class CompiledOnGpu(unittest.TestCase):
    def setUp(self):
        torch.manual_seed(0)
        report.clear()
        torch._dynamo.reset()

    def check(self, model, x, tol, **kw):
        with torch.no_grad():
            want = model(x)
            c = torch.compile(model, backend="solder", **kw)
            for _ in range(3):  # graph replays reuse static inputs: later calls must still match
                x.copy_(torch.randn_like(x))
                want = model(x)
                torch.testing.assert_close(c(x), want, **tol)
        text = solder.compile_report()
        self.assertIn("launch(es)", text, text)
        return text

    def test_gpt2_like_block_fp32_and_bf16(self):
        for dt, tol in ((torch.float32, dict(atol=1e-3, rtol=1e-3)), (torch.bfloat16, dict(atol=5e-2, rtol=5e-2))):
            with self.subTest(dtype=dt):
                self.check(Block(64).cuda().to(dt).eval(), torch.randn(4, 33, 64, device="cuda", dtype=dt), tol)

    def test_transposed_contiguous_output_is_one_kernel(self):
        # (x + a).tanh().t().contiguous(): the partition's output is the permute of the kernel's
        # result into a contiguous buffer, written by that kernel (no solder_copy_permute).
        fn = lambda x, a: (x + a).tanh().t().contiguous()  # noqa: E731
        x, a = (torch.randn(512, 384, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        with torch.no_grad():
            got = torch.compile(fn, backend="solder")(x, a)
        torch.testing.assert_close(got, fn(x, a), atol=2e-2, rtol=2e-2)
        self.assertTrue(got.is_contiguous())
        text = solder.compile_report()
        self.assertNotIn("solder_copy", text, text)
        self.assertIn("1 launch(es)", text, text)

    def test_llama_like_mlp_bf16_with_graph_replay(self):
        m = RmsSwiGlu(64, 96).cuda().bfloat16().eval()
        text = self.check(m, torch.randn(2, 40, 64, device="cuda", dtype=torch.bfloat16),
                          dict(atol=5e-2, rtol=5e-2), mode="reduce-overhead")
        self.assertIn("CUDA graph", text)

    def test_group_norm_silu_is_one_kernel_and_other_lowerings_match(self):
        # GroupNorm + SiLU: the norm on [N, G, C/G, H, W], the SiLU moved before the reshape back
        # (math_before_reshapes): one launch.
        gn = torch.nn.Sequential(torch.nn.GroupNorm(8, 64), torch.nn.SiLU()).cuda().half().eval()
        text = self.check(gn, torch.randn(3, 64, 17, 19, device="cuda", dtype=torch.float16), dict(atol=2e-2, rtol=2e-2))
        self.assertIn("1 launch(es)", text, text)
        bn = torch.nn.Sequential(torch.nn.BatchNorm2d(32), torch.nn.ReLU()).cuda().eval()
        with torch.no_grad():
            bn[0].running_mean.copy_(torch.randn(32))
            bn[0].running_var.copy_(torch.rand(32) + 0.5)
        fns = [bn, lambda t: torch.nn.functional.pad(t, (3, 5), value=-1.0).exp(),
               lambda t: torch.nn.functional.max_pool2d(t, 2) + torch.nn.functional.avg_pool2d(t, 2),
               lambda t: torch.nn.functional.softplus(t) * torch.nn.functional.hardswish(t) + torch.nn.functional.elu(t),
               lambda t: torch.round(t * 4) + torch.log1p(t.abs()) + torch.expm1(t).sign()]
        for i, fn in enumerate(fns):
            report.clear()
            torch._dynamo.reset()
            with self.subTest(case=i):
                text = self.check(fn, torch.randn(4, 32, 18, 22, device="cuda"), dict(atol=1e-4, rtol=1e-4))
                self.assertNotIn("no Solder lowering", text, text)


if __name__ == "__main__":
    unittest.main()
