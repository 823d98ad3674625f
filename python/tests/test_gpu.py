"""The Python frontend on the GPU, against torch: runs only where torch sees a CUDA device
(scripts/device.sh runs it on the device machine); skipped elsewhere."""
import unittest

import solder

try:
    import torch

    HAVE_CUDA = torch.cuda.is_available()
except ImportError:  # no torch here: the CPU tests cover the frontend
    HAVE_CUDA = False


@unittest.skipUnless(HAVE_CUDA, "needs torch with a CUDA device")
class Gpu(unittest.TestCase):
    def fused_layer_norm(self):
        # Seed 004's W1: x + bcast(a) -> half -> + bcast(c) -> layer_norm(w, b) -> half.
        f = solder.Fusion("w1")
        a = f.input("a", "f16", ["H"])
        x = f.input("x", "f16", ["B", "H"])
        c = f.input("c", "f16", ["H"])
        w = f.input("w", "f16", ["H"])
        b = f.input("b", "f16", ["H"])
        f.output(solder.layer_norm((x + a) + c, 1, w, b, 1e-5))
        return solder.Executor(f)

    def reference(self, a, x, c, w, b):
        h = ((x + a) + c).float()
        return torch.nn.functional.layer_norm(h, h.shape[-1:], w.float(), b.float(), 1e-5).half()

    def test_fused_layer_norm_matches_torch(self):
        ex = self.fused_layer_norm()
        g = torch.Generator(device="cuda").manual_seed(3)
        for rows, cols in [(16, 768), (513, 5140), (7, 4098), (1, 20480)]:
            args = [torch.randn(cols, device="cuda", generator=g).half(),
                    torch.randn(rows, cols, device="cuda", generator=g).half()]
            args += [torch.randn(cols, device="cuda", generator=g).half() for _ in range(3)]
            (y,) = ex(*args)
            self.assertTrue(y.is_cuda)
            self.assertEqual(y.dtype, torch.float16)
            torch.testing.assert_close(y, self.reference(*args), atol=2e-2, rtol=1e-2)

    def test_strided_and_misaligned_inputs_on_a_side_stream(self):
        ex = self.fused_layer_norm()
        cols = 1000
        base = torch.randn(cols + 1, 64, device="cuda").half()
        x = base[1:].t()  # [64, cols], transposed and one element off alignment
        vec = [torch.randn(cols + 1, device="cuda").half()[1:] for _ in range(4)]
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            (y,) = ex(vec[0], x, vec[1], vec[2], vec[3])
        s.synchronize()
        torch.testing.assert_close(y, self.reference(vec[0], x, vec[1], vec[2], vec[3]), atol=2e-2, rtol=1e-2)

    def test_one_kernel_across_sizes(self):
        ex = self.fused_layer_norm()
        compiled_by_first = None
        # From as many rows as SMs one kernel serves every batch (fewer rows take a plan that
        # spreads them over the SMs: a kernel of their own).
        for rows in (200, 1000, 4099):
            args = [torch.randn(4096, device="cuda").half(), torch.randn(rows, 4096, device="cuda").half()]
            args += [torch.randn(4096, device="cuda").half() for _ in range(3)]
            ex(*args)
            if compiled_by_first is None:
                compiled_by_first = ex.kernels_compiled  # 0 when the disk cache has it
        self.assertEqual(ex.kernels_compiled, compiled_by_first)  # new sizes: no compile
        self.assertEqual(len(ex.launches()), 1)
        self.assertIn("vec=", ex.launch_params()[0])  # the plan, as solder explain prints it

    def test_captured_run_replays_new_values(self):
        ex = self.fused_layer_norm()
        g = torch.Generator(device="cuda").manual_seed(5)
        rows, cols = 37, 1030
        args = [torch.randn(cols, device="cuda", generator=g).half(),
                torch.randn(rows, cols, device="cuda", generator=g).half()]
        args += [torch.randn(cols, device="cuda", generator=g).half() for _ in range(3)]
        captured = ex.capture(*args)
        del ex  # the captured run keeps what its graph needs
        for _ in range(2):
            for a in args:
                a.copy_(torch.randn(a.shape, device="cuda", generator=g).half())
            (y,) = captured.outputs
            y.fill_(float("nan"))
            captured.replay(torch.cuda.current_stream().cuda_stream)
            torch.testing.assert_close(y, self.reference(*args), atol=2e-2, rtol=1e-2)


if __name__ == "__main__":
    unittest.main()
