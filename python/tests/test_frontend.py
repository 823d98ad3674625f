"""The Python frontend on the CPU: build fusions, run them on numpy arrays (the reference
executor), compare with numpy, and check that bad input gets a clear error."""
import gc
import unittest

import numpy as np

import solder


def layer_norm_fusion(dtype="f32"):
    f = solder.Fusion("ln")
    x = f.input("x", dtype, ["B", "H"])
    w = f.input("w", dtype, ["H"])
    b = f.input("b", dtype, ["H"])
    f.output(solder.layer_norm(x, 1, w, b, 1e-5))
    return f


def numpy_layer_norm(x, w, b, eps=1e-5):
    x = x.astype(np.float64)
    y = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + eps)
    return y * w + b


class Frontend(unittest.TestCase):
    def setUp(self):
        self.rng = np.random.default_rng(7)

    def test_layer_norm_matches_numpy_at_odd_sizes(self):
        ex = solder.Executor(layer_norm_fusion())
        for rows, cols in [(3, 5), (17, 770), (2, 5140)]:
            x = self.rng.standard_normal((rows, cols), dtype=np.float32)
            w = self.rng.standard_normal(cols, dtype=np.float32)
            b = self.rng.standard_normal(cols, dtype=np.float32)
            (y,) = ex(x, w, b)
            self.assertEqual(y.shape, (rows, cols))
            self.assertEqual(y.dtype, np.float32)
            np.testing.assert_allclose(y, numpy_layer_norm(x, w, b), rtol=1e-5, atol=1e-5)

    def test_non_contiguous_inputs(self):
        ex = solder.Executor(layer_norm_fusion())
        base = self.rng.standard_normal((40, 12), dtype=np.float32)
        x = base.T  # [12, 40], transposed strides
        w = self.rng.standard_normal(80, dtype=np.float32)[::2]  # stride 2
        b = np.broadcast_to(np.float32(0.5), (40,))  # stride 0
        (y,) = ex(x, w, b)
        np.testing.assert_allclose(y, numpy_layer_norm(x, w, b), rtol=1e-5, atol=1e-5)

    def test_f16_softmax_rounds_like_f16(self):
        f = solder.Fusion("softmax")
        x = f.input("x", "f16", ["B", "H"])
        f.output(solder.softmax(x, 1))
        xs = self.rng.standard_normal((8, 33)).astype(np.float16)
        (y,) = solder.Executor(f)(xs)
        self.assertEqual(y.dtype, np.float16)
        e = np.exp(xs.astype(np.float64) - xs.astype(np.float64).max(1, keepdims=True))
        np.testing.assert_allclose(y.astype(np.float64), e / e.sum(1, keepdims=True), rtol=2e-3, atol=1e-4)

    def test_operators_broadcast_and_reduce(self):
        f = solder.Fusion("ops")
        x = f.input("x", "f32", ["N", 4])
        v, m = solder.var_mean(x, [1], correction=0, keepdim=True)
        f.output(solder.sum(2.0 * x + 1.0, [0]))
        f.output(solder.maximum(x, 0.25) - m)
        f.output(v)
        xs = self.rng.standard_normal((6, 4), dtype=np.float32)
        s, d, var = solder.Executor(f)(xs)
        np.testing.assert_allclose(s, (2 * xs + 1).sum(0), rtol=1e-5)
        np.testing.assert_allclose(d, np.maximum(xs, 0.25) - xs.mean(1, keepdims=True), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(var.reshape(-1), xs.var(1), rtol=1e-5)

    def test_text_format_round_trip(self):
        f = layer_norm_fusion()
        g = solder.Fusion.parse(str(f))
        self.assertEqual(str(g), str(f))
        x = self.rng.standard_normal((4, 9), dtype=np.float32)
        w, b = np.ones(9, np.float32), np.zeros(9, np.float32)
        (a,) = solder.Executor(f)(x, w, b)
        (c,) = solder.Executor(g)(x, w, b)
        np.testing.assert_array_equal(a, c)

    def test_tensors_keep_their_fusion_alive(self):
        def build():
            f = solder.Fusion("tmp")
            return solder.exp(f.input("x", "f32", ["N"]) * 2.0)

        t = build()
        gc.collect()
        self.assertEqual(t.shape, ["N"])
        self.assertEqual(t.dtype, "f32")

    def test_explain_needs_no_gpu(self):
        text = solder.Executor(layer_norm_fusion("f16")).explain([[8192, 5140], [5140], [5140]])
        self.assertIn("persistent_batch", text)
        self.assertIn("0 bytes spill stores", text)

    def test_bad_input_names_the_problem(self):
        ex = solder.Executor(layer_norm_fusion())
        x = np.zeros((4, 8), np.float32)
        with self.assertRaisesRegex(ValueError, "takes 3 inputs, got 2"):
            ex(x, x[0])
        with self.assertRaisesRegex(ValueError, "H"):
            ex(x, np.zeros(7, np.float32), np.zeros(8, np.float32))
        with self.assertRaisesRegex(ValueError, "unknown dtype 'f17'"):
            solder.Fusion("bad").input("x", "f17", [4])
        with self.assertRaises(ValueError):
            solder.Fusion.parse("fusion broken { input x: f32[N]\n y = nosuchop(x) }")
        # CUDA graphs record GPU work: host arrays are refused by name, as is a wrong count.
        with self.assertRaisesRegex(ValueError, "must be GPU tensors"):
            ex.capture(x, x[0], x[0])
        with self.assertRaisesRegex(ValueError, "takes 3 inputs, got 1"):
            ex.capture(x)


if __name__ == "__main__":
    unittest.main()
