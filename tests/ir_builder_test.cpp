#include <gtest/gtest.h>

#include "solder/error.h"
#include "solder/fusion.h"

using namespace solder;

TEST(IrBuilder, BroadcastAndPromotion) {
  Fusion f("t");
  Dim B = Dim::sym("B"), H = Dim::sym("H");
  Tensor a = f.input("a", DType::F16, {B, H});
  Tensor b = f.input("b", DType::F32, {H});
  Tensor c = a + b;
  EXPECT_EQ(c.dtype(), DType::F32);
  EXPECT_EQ(shape_str(c.shape()), "[B, H]");
  Tensor d = a * 2.0;
  EXPECT_EQ(d.dtype(), DType::F16);  // wrapped number does not widen
  f.output(c);
  verify(f);
}

TEST(IrBuilder, MismatchNamesOperands) {
  Fusion f("t");
  Tensor a = f.input("a", DType::F32, {Dim::sym("B"), Dim(5)});
  Tensor b = f.input("b", DType::F32, {Dim(6)});
  try {
    add(a, b);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("add"), std::string::npos) << m;
    EXPECT_NE(m.find("5 vs 6"), std::string::npos) << m;
  }
}

// ---- type promotion ---------------------------------------------------------------------

namespace {
Dim B = Dim::sym("B"), H = Dim::sym("H");

int count_ops(const Fusion& f, Op op) {
  int n = 0;
  for (const auto& node : f.nodes()) n += node.op == op;
  return n;
}

// Runs `build`, expects a solder::Error, and checks the message names every fragment.
template <class F>
void expect_error(F build, std::initializer_list<std::string> fragments) {
  try {
    build();
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    for (const auto& frag : fragments) EXPECT_NE(m.find(frag), std::string::npos) << "'" << frag << "' not in: " << m;
  }
}
}  // namespace

TEST(IrPromotion, HalfAndBfloatMeetInFloat) {
  Fusion f;
  Tensor a = f.input("a", DType::F16, {4});
  Tensor b = f.input("b", DType::BF16, {4});
  Tensor c = a + b;
  EXPECT_EQ(c.dtype(), DType::F32);
  EXPECT_EQ(count_ops(f, Op::Cast), 2);  // both operands cast explicitly
  const Node& add_node = f.nodes().back();
  for (int id : add_node.in) EXPECT_EQ(f.value(id).dtype, DType::F32);
}

TEST(IrPromotion, IntegerTensorMeetsFloatTensor) {
  Fusion f;
  Tensor i = f.input("i", DType::I32, {4});
  Tensor h = f.input("h", DType::F16, {4});
  EXPECT_EQ((i + h).dtype(), DType::F16);
  EXPECT_EQ((i + i).dtype(), DType::I32);
  EXPECT_EQ(add(i, 2.0).dtype(), DType::I32);  // an integral number keeps an int tensor int
}

TEST(IrPromotion, ZeroDimTensorDoesNotWidenDimensionedTensor) {
  Fusion f;
  Tensor x = f.input("x", DType::BF16, {B});
  Tensor s = f.input("s", DType::F32, {});
  EXPECT_EQ((x * s).dtype(), DType::BF16);
  Tensor s16 = f.input("s16", DType::F16, {});
  EXPECT_EQ((s + s16).dtype(), DType::F32);  // two rank-0 tensors promote normally
  Tensor xi = f.input("xi", DType::I32, {B});
  EXPECT_EQ((xi * s).dtype(), DType::F32);  // a higher category still wins
}

TEST(IrPromotion, FloatNumberWidensIntegerTensorToDefaultFloat) {
  Fusion f;
  Tensor i = f.input("i", DType::I32, {4});
  EXPECT_EQ((i * 2.5).dtype(), DType::F32);
  Tensor h = f.input("h", DType::F16, {4});
  EXPECT_EQ((h * 2.5).dtype(), DType::F16);
}

TEST(IrPromotion, IntegerDivisionIsTrueDivision) {
  Fusion f;
  Tensor a = f.input("a", DType::I32, {4});
  Tensor b = f.input("b", DType::I32, {4});
  EXPECT_EQ((a / b).dtype(), DType::F32);
  EXPECT_EQ(pow(a, b).dtype(), DType::F32);
  EXPECT_EQ(exp(a).dtype(), DType::F32);  // float math on ints computes in f32
  EXPECT_EQ(neg(a).dtype(), DType::I32);
}

TEST(IrPromotion, ComparisonsAndLogicGiveBool) {
  Fusion f;
  Tensor a = f.input("a", DType::F16, {4});
  Tensor b = f.input("b", DType::F32, {4});
  for (Tensor c : {eq(a, b), ne(a, b), lt(a, b), le(a, 1.0), gt(a, b), ge(2.0, b)}) EXPECT_EQ(c.dtype(), DType::Bool);
  EXPECT_EQ(logical_and(lt(a, b), gt(a, b)).dtype(), DType::Bool);
  EXPECT_EQ(logical_not(a).dtype(), DType::Bool);
  EXPECT_EQ(where(lt(a, b), a, b).dtype(), DType::F32);
}

TEST(IrPromotion, Fp8MixesOnlyWithItself) {
  Fusion f;
  Tensor a = f.input("a", DType::F8E4M3, {4});
  Tensor b = f.input("b", DType::F8E5M2, {4});
  expect_error([&] { add(a, b); }, {"f8e4m3", "f8e5m2", "do not promote"});
  expect_error([&] { exp(a); }, {"exp(a f8e4m3[4])", "cast to f32 first"});
  EXPECT_EQ(cast(a, DType::F32).dtype(), DType::F32);
}

// ---- broadcasting -----------------------------------------------------------------------

TEST(IrBroadcast, SizeOneDimsStretch) {
  Fusion f;
  Tensor a = f.input("a", DType::F32, {B, 1, 5});
  Tensor b = f.input("b", DType::F32, {3, 1});
  EXPECT_EQ(shape_str((a + b).shape()), "[B, 3, 5]");
  Tensor c = f.input("c", DType::F32, {1});
  Tensor d = f.input("d", DType::F32, {B, H});
  EXPECT_EQ(shape_str((c * d).shape()), "[B, H]");
  Tensor s = f.input("s", DType::F32, {});
  EXPECT_EQ(shape_str((s - d).shape()), "[B, H]");
  Tensor col = f.input("col", DType::F32, {B, 1});
  Tensor row = f.input("row", DType::F32, {1, H});
  EXPECT_EQ(shape_str((col + row).shape()), "[B, H]");
}

TEST(IrBroadcast, DifferentSymbolsDoNotBroadcast) {
  Fusion f;
  Tensor a = f.input("a", DType::F32, {B, H});
  Tensor b = f.input("b", DType::F32, {B});
  expect_error([&] { mul(a, b); }, {"mul(a f32[B, H], b f32[B])", "H vs B"});
  Tensor c = f.input("c", DType::F32, {4});
  Tensor t = f.input("t", DType::F32, {4});
  expect_error([&] { where(gt(c, 0.0), a, t); }, {"where(", "a f32[B, H]", "t f32[4]"});
}

// ---- views ------------------------------------------------------------------------------

TEST(IrViews, ReshapeInfersMinusOneWithSymbols) {
  Fusion f;
  Dim S = Dim::sym("S"), D = Dim::sym("D");
  Tensor x = f.input("x", DType::F32, {B, S, D});
  EXPECT_EQ(shape_str(reshape(x, {B, S * D}).shape()), "[B, S*D]");
  EXPECT_EQ(shape_str(reshape(x, {B, -1}).shape()), "[B, D*S]");
  Tensor y = f.input("y", DType::F32, {6, H});
  EXPECT_EQ(shape_str(reshape(y, {2, -1, H}).shape()), "[2, 3, H]");
  EXPECT_EQ(shape_str(reshape(y, {-1}).shape()), "[6*H]");
  expect_error([&] { reshape(y, {4, H}); }, {"reshape(y f32[6, H])", "different number of elements"});
  expect_error([&] { reshape(y, {-1, -1}); }, {"reshape(y f32[6, H])", "only one -1"});
  expect_error([&] { reshape(y, {5, -1}); }, {"cannot infer -1"});
}

TEST(IrViews, PermuteAndTranspose) {
  Fusion f;
  Tensor x = f.input("x", DType::F32, {B, 3, H});
  EXPECT_EQ(shape_str(permute(x, {2, 0, 1}).shape()), "[H, B, 3]");
  EXPECT_EQ(shape_str(permute(x, {-1, 1, 0}).shape()), "[H, 3, B]");
  EXPECT_EQ(shape_str(transpose(x, 0, -1).shape()), "[H, 3, B]");
  expect_error([&] { permute(x, {0, 0, 1}); }, {"permute(x f32[B, 3, H])", "not a permutation"});
  expect_error([&] { permute(x, {0, 1}); }, {"permutation of 3 dims"});
}

TEST(IrViews, SqueezeAndUnsqueeze) {
  Fusion f;
  Tensor x = f.input("x", DType::F32, {B, 1, 5, 1});
  EXPECT_EQ(shape_str(squeeze(x, {1}).shape()), "[B, 5, 1]");
  EXPECT_EQ(shape_str(squeeze(x, {1, -1}).shape()), "[B, 5]");
  expect_error([&] { squeeze(x, {2}); }, {"squeeze(x f32[B, 1, 5, 1])", "dim 2 is 5, not 1"});
  expect_error([&] { squeeze(x, {0}); }, {"dim 0 is B, not 1"});
  EXPECT_EQ(shape_str(unsqueeze(x, 0).shape()), "[1, B, 1, 5, 1]");
  EXPECT_EQ(shape_str(unsqueeze(x, -1).shape()), "[B, 1, 5, 1, 1]");
  expect_error([&] { unsqueeze(x, 6); }, {"unsqueeze(x", "out of range"});
}

TEST(IrViews, SliceNormalizesNegativeBounds) {
  Fusion f;
  Tensor x = f.input("x", DType::F32, {B, 10});
  EXPECT_EQ(shape_str(slice(x, 1, -3).shape()), "[B, 3]");
  EXPECT_EQ(shape_str(slice(x, -1, 1, -1).shape()), "[B, 8]");
  EXPECT_EQ(shape_str(slice(x, 1, 0, kSliceToEnd, 3).shape()), "[B, 4]");
  EXPECT_EQ(shape_str(slice(x, 1, 7, 2).shape()), "[B, 0]");
  EXPECT_EQ(shape_str(slice(x, 1, -100, 100).shape()), "[B, 10]");
  const Node& n = f.nodes().back();
  EXPECT_EQ(n.attrs.start, 0);
  EXPECT_EQ(n.attrs.end, 10);
  // Symbolic dims clamp at run time, as torch's slices do: B=1 gives 0 rows, not -1.
  EXPECT_EQ(shape_str(slice(x, 0, 2).shape()), "[B+-1*min(B, 2), 10]");
  EXPECT_EQ(shape_str(slice(x, 0, 2, 6, 2).shape()), "[ceildiv(min(B, 6)+-1*min(B, 2), 2), 10]");
  EXPECT_EQ(shape_str(slice(x, 0, 0, 6).shape()), "[min(B, 6), 10]");
  expect_error([&] { slice(x, 0, -2); }, {"slice(x f32[B, 10])", "symbolic dim B"});
  EXPECT_EQ(shape_str(select(x, 1, 4).shape()), "[B]");
  EXPECT_EQ(shape_str(select(x, 1, -1).shape()), "[B]");
}

TEST(IrViews, ExpandAndCat) {
  Fusion f;
  Tensor x = f.input("x", DType::F32, {1, 5});
  EXPECT_EQ(shape_str(expand(x, {B, 5}).shape()), "[B, 5]");
  EXPECT_EQ(shape_str(expand(x, {2, B, -1}).shape()), "[2, B, 5]");
  expect_error([&] { expand(x, {B, 6}); }, {"expand(x f32[1, 5])", "cannot expand dim 1 (5) to 6"});
  Tensor a = f.input("a", DType::F32, {B, 3});
  Tensor b = f.input("b", DType::F16, {B, 4});
  Tensor c = cat({a, b, a}, 1);
  EXPECT_EQ(shape_str(c.shape()), "[B, 10]");
  EXPECT_EQ(c.dtype(), DType::F32);
  EXPECT_EQ(shape_str(cat({a, a}, 0).shape()), "[2*B, 3]");
  expect_error([&] { cat({a, b}, 0); }, {"cat(a f32[B, 3]", "differ in dim 1"});
}

// ---- reductions -------------------------------------------------------------------------

TEST(IrReductions, KeepdimAndAxes) {
  Fusion f;
  Tensor x = f.input("x", DType::F16, {B, 7, H});
  EXPECT_EQ(shape_str(sum(x, {1}).shape()), "[B, H]");
  EXPECT_EQ(shape_str(sum(x, {1}, true).shape()), "[B, 1, H]");
  EXPECT_EQ(shape_str(max(x, {-1, 0}, true).shape()), "[1, 7, 1]");
  EXPECT_EQ(shape_str(mean(x).shape()), "[]");
  EXPECT_EQ(f.nodes().back().attrs.axes, (std::vector<int64_t>{0, 1, 2}));  // [] means every axis
  auto [v, m] = var_mean(x, {2}, 1, true);
  EXPECT_EQ(shape_str(v.shape()), "[B, 7, 1]");
  EXPECT_EQ(shape_str(m.shape()), "[B, 7, 1]");
  EXPECT_EQ(sum(x, {0}).dtype(), DType::F16);
  expect_error([&] { sum(x, {1, -2}); }, {"sum(x f16[B, 7, H])", "repeated reduction axis"});
  expect_error([&] { min(x, {3}); }, {"min(x", "axis 3 is out of range for rank 3"});
}

TEST(IrReductions, IntegerSumsWidenAndMeansNeedFloats) {
  Fusion f;
  Tensor i = f.input("i", DType::I32, {B});
  EXPECT_EQ(sum(i).dtype(), DType::I64);
  EXPECT_EQ(max(i).dtype(), DType::I32);
  expect_error([&] { mean(i); }, {"mean(i i32[B])", "expected a floating operand"});
  expect_error([&] { var_mean(f.input("g", DType::F32, {4}), {0}, -1); }, {"var_mean(g f32[4])", "correction"});
}

// ---- matmul / linear --------------------------------------------------------------------

TEST(IrMatmul, Shapes) {
  Fusion f;
  Tensor a = f.input("a", DType::F32, {B, 8, 16});
  Tensor w = f.input("w", DType::F32, {16, 4});
  EXPECT_EQ(shape_str(matmul(a, w).shape()), "[B, 8, 4]");
  Tensor v = f.input("v", DType::F32, {16});
  EXPECT_EQ(shape_str(matmul(v, w).shape()), "[4]");
  EXPECT_EQ(shape_str(matmul(a, v).shape()), "[B, 8]");
  EXPECT_EQ(shape_str(matmul(v, v).shape()), "[]");
  Tensor p = f.input("p", DType::F32, {2, 1, 8, 16});
  Tensor q = f.input("q", DType::F32, {3, 16, 5});
  EXPECT_EQ(shape_str(matmul(p, q).shape()), "[2, 3, 8, 5]");
  Tensor h = f.input("h", DType::F16, {16, 4});
  EXPECT_EQ(matmul(a, h).dtype(), DType::F32);  // promoted like any binary op
  expect_error([&] { matmul(w, a); }, {"matmul(w f32[16, 4], a f32[B, 8, 16])", "contracted dims differ: 4 vs 8"});
}

TEST(IrMatmul, LinearShapesAndErrors) {
  Fusion f;
  Tensor x = f.input("x", DType::BF16, {B, 3, 64});
  Tensor w = f.input("w", DType::BF16, {32, 64});
  Tensor b = f.input("b", DType::BF16, {32});
  Tensor y = linear(x, w, b);
  EXPECT_EQ(shape_str(y.shape()), "[B, 3, 32]");
  EXPECT_EQ(y.dtype(), DType::BF16);
  EXPECT_EQ(shape_str(linear(x, w).shape()), "[B, 3, 32]");
  Tensor wt = f.input("wt", DType::BF16, {64, 32});
  expect_error([&] { linear(x, wt); }, {"linear(x bf16[B, 3, 64], wt bf16[64, 32])", "K of x and w differ"});
  Tensor b2 = f.input("b2", DType::BF16, {64});
  expect_error([&] { linear(x, w, b2); }, {"linear(", "b2 bf16[64]", "bias must be [N]"});
  Tensor i = f.input("i", DType::I32, {B, 64});
  Tensor wi = f.input("wi", DType::I32, {32, 64});
  expect_error([&] { linear(i, wi); }, {"linear(i i32[B, 64], wi i32[32, 64])", "expected f16/bf16/f32/f64"});
}

// ---- other validation -------------------------------------------------------------------

TEST(IrValidation, ErrorsNameOpAndOperands) {
  Fusion f;
  Tensor c = f.input("c", DType::F32, {4});
  Tensor x = f.input("x", DType::F32, {4});
  expect_error([&] { where(c, x, x); }, {"where(c f32[4], x f32[4], x f32[4])", "condition must be bool"});
  Tensor flag = f.input("flag", DType::Bool, {4});
  expect_error([&] { add(flag, flag); }, {"add(flag bool[4], flag bool[4])", "bool"});
  expect_error([&] { clamp(x, 2.0, 1.0); }, {"clamp(x f32[4])", "lo > hi"});
  Fusion other;
  Tensor y = other.input("y", DType::F32, {4});
  expect_error([&] { add(x, y); }, {"add", "y f32[4]", "another fusion"});
  expect_error([&] { f.input("x", DType::F32, {4}); }, {"'x'", "already used"});
}

TEST(IrValidation, VerifyAcceptsBuiltFusionsAndNeedsOutputs) {
  Fusion f("v");
  Tensor x = f.input("x", DType::F16, {B, H});
  Tensor y = layer_norm(x, 1, std::nullopt, std::nullopt);
  expect_error([&] { verify(f); }, {"no outputs"});
  f.output(y);
  verify(f);
  EXPECT_EQ(y.dtype(), DType::F16);
}

// Halves of a symbolic dim (`x[:, :32]` against `x[:, 32:64]`) have sizes that differ as
// expressions (min(H, 32) against min(H, 64) - min(H, 32)) but agree for H >= 64: the builder
// assumes them equal (a reshape of the second to the first's dims), bind_shapes checks it.
TEST(IrBroadcast, SliceDimsAssumedEqualAndCheckedWhenBound) {
  Fusion f("halves");
  Tensor x = f.input("x", DType::F32, {B, H});
  Tensor y = slice(x, 1, 0, 32, 1) * slice(x, 1, 32, 64, 1);
  f.output(y);
  verify(f);
  EXPECT_EQ(shape_str(y.shape()), "[B, min(H, 32)]");
  EXPECT_EQ(count_ops(f, Op::Reshape), 1);
  EXPECT_EQ(bind_shapes(f, {{5, 64}}).at("H"), 64);
  expect_error([&] { bind_shapes(f, {{5, 40}}); }, {"reshape(", "must be equal", "H=40"});
  // The reshape falls on the view, not on the element math's result (a view of a kernel's
  // result would split b * exp(a) into two kernels).
  Fusion sw("swapped");
  Tensor xs = sw.input("x", DType::F32, {B, H});
  Tensor ys = slice(xs, 1, 32, 64, 1) * exp(slice(xs, 1, 0, 32, 1));
  sw.output(ys);
  verify(sw);
  ASSERT_EQ(count_ops(sw, Op::Reshape), 1);
  for (const Node& n : sw.nodes())
    if (n.op == Op::Reshape) EXPECT_EQ(sw.nodes()[sw.value(n.in[0]).producer].op, Op::Slice);
  // Symbols and constants compare as expressions: no assumption, an error at once.
  Fusion g("symbols");
  Tensor a = g.input("a", DType::F32, {B, H});
  expect_error([&] { a + g.input("b", DType::F32, {B, Dim::sym("W")}) * 1.0; }, {"cannot broadcast"});
  expect_error([&] { a + g.input("c", DType::F32, {Dim(3)}); }, {"cannot broadcast"});
  // Strided slices of a symbolic dim (ceildiv) are assumed equal and checked when bound:
  // x[:, 0::2] * x[:, 1::2] (the sweep's strided_slice programs).
  Fusion st("strided");
  Tensor xs2 = st.input("x", DType::F32, {B, H});
  st.output(slice(xs2, 1, 0, 8192, 2) * slice(xs2, 1, 1, 8192, 2));
  verify(st);
  EXPECT_EQ(bind_shapes(st, {{5, 64}}).at("H"), 64);
  expect_error([&] { bind_shapes(st, {{5, 9}}); }, {"reshape(", "must be equal", "H=9"});
}
