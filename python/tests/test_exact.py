"""Faithful results at the Python boundary (issue 29), on the CPU: bf16/fp8 host outputs come
back typed, integers wrap and i64 stays exact, odd size-symbol names are an error or round
trip, every bad input is a Python exception with a message, and the per-row fp8 quantization
is bit-identical to torch's eager CPU result."""
import os
import tempfile
import unittest

import numpy as np

import solder

try:
    import torch
except ImportError:
    torch = None


def cast_fusion(src, dst, shape=("N",)):
    f = solder.Fusion("cast")
    f.output(solder.cast(f.input("x", src, list(shape)), dst))
    return f


# Per-row fp8 e4m3 quantization (issue 29), in three spellings; each pair is the Solder build
# and the eager torch program written the same way.
def quant_fusion(spelling):
    f = solder.Fusion("fp8_row_quant")
    x = f.input("x", "bf16", ["R", "C"])
    amax = solder.max(solder.abs(x), [1], keepdim=True)
    if spelling == "f32_scale":  # scale = 448 / amax in f32, x * scale in f32
        y = solder.cast(x, "f32") * (448.0 / solder.cast(amax, "f32"))
    elif spelling == "bf16_scale":  # all in bf16: each op rounds to bf16
        y = x * (448.0 / amax)
    else:  # "divide": x / amax * 448 in f32
        y = solder.cast(x, "f32") / solder.cast(amax, "f32") * 448.0
    f.output(solder.cast(solder.clamp(y, -448.0, 448.0), "f8e4m3"))
    return f


def quant_eager(x, spelling):
    amax = x.abs().amax(-1, keepdim=True)
    if spelling == "f32_scale":
        y = x.float() * (448.0 / amax.float())
    elif spelling == "bf16_scale":
        y = x * (448.0 / amax)
    else:
        y = x.float() / amax.float() * 448
    return y.clamp(-448, 448).to(torch.float8_e4m3fn)


QUANT_SPELLINGS = ("f32_scale", "bf16_scale", "divide")


def fp8_mismatches(got, want):
    """e4m3fn values whose bits differ, a NaN of either sign equal to any NaN: torch's own CPU
    result of 0 * inf in bf16 is +NaN or -NaN depending on whether its loop vectorized."""
    a, b = got.view(torch.uint8), want.view(torch.uint8)
    nan = lambda v: (v & 0x7F) == 0x7F  # noqa: E731
    return ((a != b) & ~(nan(a) & nan(b))).sum().item()
QUANT_SIZES = [(1, 1), (3, 7), (37, 1000), (64, 4096), (16, 5140), (2, 65537)]


def quant_input(rows, cols, generator, device="cpu"):
    """Random bf16 rows over many magnitudes (a row scale of 2^-20 .. 2^20), a zero row and a
    row with one nonzero value among them."""
    x = torch.randn(rows, cols, generator=generator)
    x *= torch.exp2(torch.randint(-20, 21, (rows, 1), generator=generator).float())
    x = x.to(torch.bfloat16)
    if rows > 2:
        x[1] = 0
        x[2] = 0
        x[2, cols // 2] = -3.0
    return x.to(device)


@unittest.skipUnless(torch is not None, "needs torch (CPU)")
class Fp8QuantizationMatchesEager(unittest.TestCase):
    def test_reference_is_bit_identical_to_torch_cpu(self):
        g = torch.Generator().manual_seed(29)
        for spelling in QUANT_SPELLINGS:
            ex = solder.Executor(quant_fusion(spelling))
            for rows, cols in QUANT_SIZES:
                x = quant_input(rows, cols, g)
                (got,) = ex(x)
                want = quant_eager(x, spelling)
                self.assertEqual(got.dtype, torch.float8_e4m3fn)
                bad = fp8_mismatches(got, want)
                self.assertEqual(bad, 0, f"{spelling} {rows}x{cols}: {bad} of {x.numel()} fp8 values differ")

    def test_compiled_on_cpu_is_bit_identical(self):
        # torch.compile(backend="solder") lowers the ATen graph (reciprocal, mul, ...) and runs
        # it on the reference executor for CPU tensors.
        import solder.dynamo  # noqa: F401

        x = quant_input(37, 1000, torch.Generator().manual_seed(30))
        for spelling in QUANT_SPELLINGS:
            torch._dynamo.reset()
            with torch.no_grad():
                c = torch.compile(lambda t: quant_eager(t, spelling), backend="solder")
                got = c(x)
            self.assertEqual(fp8_mismatches(got, quant_eager(x, spelling)), 0, spelling)

    def test_scalar_over_tensor_is_torchs_reciprocal_times_scalar(self):
        # torch's Tensor.__rtruediv__ is reciprocal(t) * s: two roundings, and for about 4 in 10
        # divisors not the correctly rounded s / t that solder.div computes.
        f = solder.Fusion("rdiv")
        a = f.input("a", "f32", ["N"])
        f.output(448.0 / a)
        f.output(solder.div(448.0, a))
        t = torch.rand(4096, generator=torch.Generator().manual_seed(1)) + 0.5
        op, div = solder.Executor(f)(t)
        self.assertTrue(torch.equal(op, 448.0 / t))
        self.assertTrue(torch.equal(div, torch.div(torch.full_like(t, 448.0), t)))
        self.assertFalse(torch.equal(op, div))


class TypedNarrowOutputs(unittest.TestCase):
    VALUES = np.array([1.5, -2.0, 3.0, 0.0, -0.0, 448.0, 1e-3, 240.0], np.float32)
    # The bits each dtype rounds VALUES to (checked against torch below where it is installed).
    BITS = {
        "bf16": [0x3FC0, 0xC000, 0x4040, 0x0000, 0x8000, 0x43E0, 0x3A83, 0x4370],
        "f8e4m3": [0x3C, 0xC0, 0x44, 0x00, 0x80, 0x7E, 0x01, 0x77],
        "f8e5m2": [0x3E, 0xC0, 0x42, 0x00, 0x80, 0x5F, 0x14, 0x5C],
    }

    def setUp(self):
        self.saved = solder._ml_dtypes

    def tearDown(self):
        solder._ml_dtypes = self.saved

    def check(self, want_ml_dtypes):
        for dt, bits in self.BITS.items():
            (y,) = solder.Executor(cast_fusion("f32", dt))(self.VALUES)
            self.assertIsInstance(y, np.ndarray)
            self.assertEqual(y.shape, self.VALUES.shape)
            self.assertEqual(solder.narrow_dtype(y), dt)
            raw = y.view(np.uint16 if dt == "bf16" else np.uint8)
            self.assertEqual(raw.tolist(), bits, dt)
            if want_ml_dtypes:
                self.assertEqual(y.dtype.name, solder._NARROW[dt][0])
                np.testing.assert_array_equal(y.astype(np.float32), self.VALUES.astype(y.dtype).astype(np.float32))
            else:
                self.assertEqual(y.dtype, np.uint16 if dt == "bf16" else np.uint8)
                self.assertEqual(y.dtype.metadata["solder_dtype"], dt)
            # The output is an input again: back to f32, exactly the rounded values.
            (back,) = solder.Executor(cast_fusion(dt, "f32"))(y)
            self.assertEqual(back.dtype, np.float32)
            (again,) = solder.Executor(cast_fusion("f32", dt))(back)
            self.assertEqual(again.view(raw.dtype).tolist(), bits)

    @unittest.skipUnless(solder._ml_dtypes is not None, "ml_dtypes not installed")
    def test_ml_dtypes_arrays(self):
        self.check(True)

    def test_tagged_bits_without_ml_dtypes(self):
        solder._ml_dtypes = None
        self.check(False)

    def test_non_contiguous_narrow_input(self):
        solder._ml_dtypes = None
        (y,) = solder.Executor(cast_fusion("f32", "bf16", ("R", "C")))(np.arange(12, dtype=np.float32).reshape(3, 4))
        (back,) = solder.Executor(cast_fusion("bf16", "f32", ("R", "C")))(y.T)
        np.testing.assert_array_equal(back, np.arange(12, dtype=np.float32).reshape(3, 4).T)

    @unittest.skipUnless(torch is not None, "needs torch (CPU)")
    def test_torch_in_torch_out_of_the_same_dtype(self):
        for dt, tdt in [("bf16", torch.bfloat16), ("f8e4m3", torch.float8_e4m3fn), ("f8e5m2", torch.float8_e5m2)]:
            (y,) = solder.Executor(cast_fusion("f32", dt))(torch.from_numpy(self.VALUES))
            self.assertEqual(y.dtype, tdt)
            want = torch.from_numpy(self.VALUES).to(tdt)
            self.assertTrue(torch.equal(y.view(torch.uint8), want.view(torch.uint8)))
            (back,) = solder.Executor(cast_fusion(dt, "f32"))(y)
            self.assertTrue(torch.equal(back, y.float()))


class IntegerSemantics(unittest.TestCase):
    def test_i32_wraps_like_numpy(self):
        f = solder.Fusion("wrap")
        x = f.input("x", "i32", ["N"])
        y = f.input("y", "i32", ["N"])
        f.output(x + y)
        f.output(x - y)
        f.output(x * y)
        f.output(-x)
        f.output(x * 2)
        f.output(solder.sum(x, [0]))
        xs = np.array([2**31 - 1, -(2**31), 123456789, -5, 65536], np.int32)
        ys = np.array([1, 1, 1000, 7, 65536], np.int32)
        add, sub, mul, neg, twice, total = solder.Executor(f)(xs, ys)
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(add, xs + ys)
            np.testing.assert_array_equal(sub, xs - ys)
            np.testing.assert_array_equal(mul, xs * ys)
            np.testing.assert_array_equal(neg, -xs)
            np.testing.assert_array_equal(twice, xs * np.int32(2))
        # torch sums i32 in i64: no overflow of the total here.
        self.assertEqual(total.dtype, np.int64)
        self.assertEqual(int(total), int(xs.astype(np.int64).sum()))

    @unittest.skipUnless(torch is not None, "needs torch (CPU)")
    def test_i32_wraps_like_torch(self):
        f = solder.Fusion("wrap")
        x = f.input("x", "i32", ["N"])
        f.output(x * x + 7)
        xs = torch.tensor([2**31 - 1, -(2**31), 46341, -3], dtype=torch.int32)
        (y,) = solder.Executor(f)(xs)
        self.assertTrue(torch.equal(y, xs * xs + 7))

    def test_i64_beyond_2_53_stays_exact(self):
        f = solder.Fusion("big")
        x = f.input("x", "i64", ["N"])
        f.output(solder.relu(x))
        f.output(x + 1)
        f.output(x * 3)
        f.output(solder.maximum(x, 2**53))
        f.output(solder.sum(x, [0]))
        xs = np.array([2**53 + 1, 2**63 - 1, -(2**62) - 3, 9007199254740993 * 3], np.int64)
        relu, inc, tri, mx, total = solder.Executor(f)(xs)
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(relu, np.maximum(xs, 0))
            self.assertEqual(int(relu[0]), 2**53 + 1)
            np.testing.assert_array_equal(inc, xs + 1)  # 2^63 - 1 + 1 wraps to -2^63
            np.testing.assert_array_equal(tri, xs * np.int64(3))
            np.testing.assert_array_equal(mx, np.maximum(xs, 2**53))
            self.assertEqual(int(total), int(xs.sum()))

    def test_int_constants_a_double_cannot_hold_are_an_error(self):
        x = solder.Fusion("c").input("x", "i64", ["N"])
        with self.assertRaisesRegex(ValueError, "9007199254740993 is not exactly representable"):
            x + (2**53 + 1)
        with self.assertRaisesRegex(ValueError, "not exactly representable"):
            x * 2**64
        self.assertEqual((x + 2**60).dtype, "i64")  # a power of two is exact

    def test_python_float_promotes_integer_tensors_to_f32(self):
        # As in torch: i32 * 2 stays i32, i32 * 2.0 and i32 / 2 are f32.
        x = solder.Fusion("p").input("x", "i32", ["N"])
        self.assertEqual((x * 2).dtype, "i32")
        self.assertEqual((x * 2.0).dtype, "f32")
        self.assertEqual((2.5 + x).dtype, "f32")
        self.assertEqual((x / 2).dtype, "f32")


class SymbolNames(unittest.TestCase):
    def round_trip(self, f):
        g = solder.Fusion.parse(str(f))
        self.assertEqual(str(g), str(f))
        return g

    def test_a_shape_string_is_a_size_expression_that_round_trips(self):
        # "a+b" and "2*B" are sums and products of the symbols a, b and B, not names.
        f = solder.Fusion("s")
        x = f.input("x", "f32", ["a+b", "2*B"])
        f.output(solder.relu(x))
        self.round_trip(f)
        self.assertEqual(x.shape, ["a+b", "2*B"])
        f = solder.Fusion("s")
        f.output(solder.relu(f.input("x", "f32", ["B", "2*B"])))
        g = self.round_trip(f)
        (y,) = solder.Executor(g)(np.ones((3, 6), np.float32))
        self.assertEqual(y.shape, (3, 6))
        with self.assertRaisesRegex(ValueError, "2\\*B"):
            solder.Executor(g)(np.ones((3, 7), np.float32))  # 7 is not 2 * B

    def test_odd_symbol_names_are_errors(self):
        for bad, why in [("", "expected a size"), ("a b", "unexpected character"), ("B-1", "unexpected character"),
                         ("é", "bad size expression"), ('"B"', "bad size expression")]:
            with self.subTest(name=bad), self.assertRaisesRegex(ValueError, why):
                solder.Fusion("s").input("x", "f32", [bad])
        for text in ['fusion s { input x: f32[""]\n output x }', "fusion s { input x: f32[a b]\n output x }"]:
            with self.subTest(text=text), self.assertRaises(ValueError):
                solder.Fusion.parse(text)

    def test_value_and_fusion_names_that_would_not_parse_refuse_to_print(self):
        for bad in ["", "a+b", "2*B", "x y"]:
            f = solder.Fusion("s")
            f.output(solder.relu(f.input(bad, "f32", ["N"])))
            with self.subTest(name=bad), self.assertRaisesRegex(ValueError, "is not an identifier"):
                str(f)
            g = solder.Fusion(bad)
            g.output(solder.relu(g.input("x", "f32", ["N"])))
            with self.subTest(fusion=bad), self.assertRaisesRegex(ValueError, "is not an identifier"):
                str(g)


class ExceptionsAtTheBoundary(unittest.TestCase):
    @staticmethod
    def ex_fusion():
        f = solder.Fusion("p")
        x = f.input("x", "f32", ["B", "H"])
        w = f.input("w", "f32", ["H"])
        f.output(x * w)
        return f

    def setUp(self):
        self.ex = solder.Executor(self.ex_fusion())
        self.x, self.w = np.zeros((2, 3), np.float32), np.zeros(3, np.float32)

    def test_bad_calls(self):
        cases = [
            (lambda: self.ex(self.x, np.zeros(4, np.float32)), ValueError, "dim 0 \\(H\\) is 3"),
            (lambda: self.ex(self.x.astype(np.float64), self.w), ValueError, "declared f32\\[B, H\\] but got dtype f64"),
            (lambda: self.ex(self.w, self.w), ValueError, "rank 2\\) but got rank 1"),
            (lambda: self.ex(self.x.astype(np.uint8), self.w), TypeError, "unsupported DLPack dtype"),
            (lambda: self.ex("hello", self.w), TypeError, "argument 0: expected a tensor .* got str"),
            (lambda: self.ex(self.x, [1.0, 2.0, 3.0]), TypeError, "argument 1: expected a tensor .* got list"),
            (lambda: self.ex(self.x), ValueError, "takes 2 inputs, got 1"),
            (lambda: self.ex(self.x, self.w, out=[self.x]), ValueError, "out= takes GPU tensors"),
            (lambda: self.ex(self.x, self.w, foo=1), TypeError, "unexpected keyword argument 'foo'"),
            (lambda: self.ex.capture(self.x, self.w), ValueError, "must be GPU tensors"),
            (lambda: self.ex.explain([[2, 3]]), ValueError, "takes 2 inputs, got 1 shapes"),
            (lambda: self.ex.output_shapes([[2, 3], [4]]), ValueError, "dim 0 \\(H\\) is 3"),
        ]
        for i, (call, kind, message) in enumerate(cases):
            with self.subTest(case=i), self.assertRaisesRegex(kind, message):
                call()

    def test_bad_programs(self):
        f = solder.Fusion("q")
        x = f.input("x", "f32", ["B", "H"])
        cases = [
            (lambda: solder.Fusion.parse("fusion b {\n input x: f32[N]\n y = cumsum(x)\n output y\n}"), "unknown op 'cumsum'"),
            (lambda: solder.Fusion.parse(""), "expected 'fusion NAME \\{'"),
            (lambda: solder.Executor(solder.Fusion("empty")), "has no outputs"),
            (lambda: solder.sum(x, [5]), "axis 5 is out of range"),
            (lambda: solder.matmul(x, x), "contracted dims differ"),
            (lambda: solder.where(x, x, x), "condition must be bool"),
            (lambda: solder.cast(x, "u8"), "unknown dtype 'u8'"),
            (lambda: solder.Fusion("r").input("x", "f32", [1] * 64), "more than the 32 dims"),
            (lambda: x + solder.Fusion("other").input("y", "f32", ["H"]), "belongs to another fusion"),
            (lambda: solder.Executor(self.ex_fusion(), plan="nonsense"), "unknown part 'nonsense'"),
        ]
        for i, (call, message) in enumerate(cases):
            with self.subTest(case=i), self.assertRaisesRegex(ValueError, message):
                call()

    def test_sizes_past_the_limits(self):
        f = solder.Fusion("huge")
        x = f.input("x", "f32", ["N"])
        f.output(solder.expand(solder.reshape(x, ["N", 1]), ["N", 2**40]))
        with self.assertRaisesRegex(ValueError, "over the limit of .* GB for one tensor"):
            solder.Executor(f)(np.zeros(4, np.float32))
        g = solder.Fusion("wide")
        g.output(solder.relu(g.input("x", "f32", [2**40, 2**40])))
        with self.assertRaisesRegex(ValueError, "overflow|over the limit"):
            solder.Executor(g).output_shapes([[2**40, 2**40]])

    def test_bad_files(self):
        with self.assertRaisesRegex(ValueError, "No such file"):
            solder.Fusion.load("/nonexistent/x.fusion")
        with self.assertRaisesRegex(ValueError, "not a regular file"):
            solder.Fusion.load(tempfile.gettempdir())
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "garbage.fusion")
            with open(path, "wb") as out:
                out.write(b"fusion g {\n  input x: f32[N]\n  \x89\xff\xfe\n}\n")
            # Bytes that are not UTF-8 are named, not a UnicodeDecodeError.
            with self.assertRaisesRegex(ValueError, "unexpected character byte 0x89"):
                solder.Fusion.load(path)


if __name__ == "__main__":
    unittest.main()
