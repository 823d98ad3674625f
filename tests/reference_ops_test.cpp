// Elementwise ops of the reference executor against hand-computed values: every unary,
// binary, compare, logical, where/clamp/cast op, type promotion, broadcasting, strided inputs.
#include <gtest/gtest.h>

#include <functional>
#include <limits>

#include "reference_test_util.h"
#include "solder/error.h"

using namespace solder;
using namespace solder::test;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
using UnaryFn = std::function<Tensor(const Tensor&)>;

HostTensor unary_f64(const UnaryFn& fn, const std::vector<double>& x) {
  Fusion f("u");
  Tensor in = f.input("x", DType::F64, {Dim(static_cast<int64_t>(x.size()))});
  f.output(fn(in));
  return run1(f, {tensor(DType::F64, {static_cast<int64_t>(x.size())}, x)});
}

HostTensor binary(const std::function<Tensor(const Tensor&, const Tensor&)>& fn, DType ta, std::vector<int64_t> sa,
                  const std::vector<double>& a, DType tb, std::vector<int64_t> sb, const std::vector<double>& b) {
  Fusion f("b");
  Shape da(sa.begin(), sa.end()), db(sb.begin(), sb.end());
  Tensor ia = f.input("a", ta, da);  // declared in order: argument evaluation order is unspecified
  Tensor ib = f.input("b", tb, db);
  f.output(fn(ia, ib));
  return run1(f, {tensor(ta, sa, a), tensor(tb, sb, b)});
}
}  // namespace

TEST(ReferenceUnary, EveryOpF64) {
  const std::vector<double> x = {-1.0, 0.5, 2.0};
  struct Case {
    const char* name;
    UnaryFn fn;
    std::vector<double> want;
  };
  const Case cases[] = {
      {"neg", [](const Tensor& t) { return neg(t); }, {1, -0.5, -2}},
      {"abs", [](const Tensor& t) { return abs(t); }, {1, 0.5, 2}},
      {"exp", [](const Tensor& t) { return exp(t); }, {0.36787944117144233, 1.6487212707001282, 7.38905609893065}},
      {"log", [](const Tensor& t) { return log(t); }, {kNaN, -0.6931471805599453, 0.6931471805599453}},
      {"sqrt", [](const Tensor& t) { return sqrt(t); }, {kNaN, 0.7071067811865476, 1.4142135623730951}},
      {"rsqrt", [](const Tensor& t) { return rsqrt(t); }, {kNaN, 1.4142135623730951, 0.7071067811865476}},
      {"reciprocal", [](const Tensor& t) { return reciprocal(t); }, {-1, 2, 0.5}},
      {"tanh", [](const Tensor& t) { return tanh(t); }, {-0.7615941559557649, 0.46211715726000974, 0.9640275800758169}},
      {"sigmoid", [](const Tensor& t) { return sigmoid(t); }, {0.2689414213699951, 0.6224593312018546, 0.8807970779778823}},
      {"erf", [](const Tensor& t) { return erf(t); }, {-0.8427007929497149, 0.5204998778130465, 0.9953222650189527}},
      {"sin", [](const Tensor& t) { return sin(t); }, {-0.8414709848078965, 0.479425538604203, 0.9092974268256817}},
      {"cos", [](const Tensor& t) { return cos(t); }, {0.5403023058681398, 0.8775825618903728, -0.4161468365471424}},
      {"relu", [](const Tensor& t) { return relu(t); }, {0, 0.5, 2}},
      {"gelu", [](const Tensor& t) { return gelu(t); }, {-0.15865525393145707, 0.34573123063700656, 1.9544997361036416}},
      {"gelu_tanh", [](const Tensor& t) { return gelu_tanh(t); },
       {-0.15880800939172324, 0.34571400982514394, 1.954597694087775}},
      {"silu", [](const Tensor& t) { return silu(t); }, {-0.2689414213699951, 0.3112296656009273, 1.7615941559557646}},
      {"log1p", [](const Tensor& t) { return log1p(t); }, {-kInf, 0.4054651081081644, 1.0986122886681098}},
      {"expm1", [](const Tensor& t) { return expm1(t); }, {-0.6321205588285577, 0.6487212707001282, 6.38905609893065}},
      {"floor", [](const Tensor& t) { return floor(t); }, {-1, 0, 2}},
      {"ceil", [](const Tensor& t) { return ceil(t); }, {-1, 1, 2}},
      {"trunc", [](const Tensor& t) { return trunc(t); }, {-1, 0, 2}},
      {"round", [](const Tensor& t) { return round(t); }, {-1, 0, 2}},  // 0.5: halves to even
  };
  for (const auto& c : cases) expect_tensor(unary_f64(c.fn, x), DType::F64, {3}, c.want, 1e-15, c.name);
}

TEST(ReferenceUnary, RoundsToDType) {
  for (auto [t, want] : {std::pair{DType::F32, 2.7182817459106445}, {DType::F16, 2.71875}, {DType::BF16, 2.71875}}) {
    Fusion f("r");
    f.output(exp(f.input("x", t, {2})));
    expect_tensor(run1(f, {tensor(t, {2}, {1.0, 0.0})}), t, {2}, {want, 1.0}, 0, std::string(dtype_name(t)));
  }
  // f16 overflow inside an op gives Inf, not a large finite value.
  Fusion g("o");
  g.output(exp(g.input("x", DType::F16, {1})));
  expect_tensor(run1(g, {tensor(DType::F16, {1}, {12.0})}), DType::F16, {1}, {kInf});
}

// log1p and expm1 keep the digits of tiny arguments that log(1 + x) and exp(x) - 1 lose; round
// takes halves to even (torch.round); the whole-number ops keep integer dtypes and values.
TEST(ReferenceUnary, Log1pExpm1AndWholeNumbers) {
  const std::vector<double> tiny = {1e-10, -3e-9};
  expect_tensor(unary_f64([](const Tensor& t) { return log1p(t); }, tiny), DType::F64, {2},
                {std::log1p(1e-10), std::log1p(-3e-9)}, 0, "log1p");
  expect_tensor(unary_f64([](const Tensor& t) { return expm1(t); }, tiny), DType::F64, {2},
                {std::expm1(1e-10), std::expm1(-3e-9)}, 0, "expm1");
  expect_tensor(unary_f64([](const Tensor& t) { return round(t); }, {0.5, 1.5, 2.5, -0.5, -2.5}), DType::F64, {5},
                {0, 2, 2, -0.0, -2}, 0, "round");
  Fusion f("whole");
  Tensor x = f.input("x", DType::I32, {3});
  f.output(floor(x));
  f.output(round(x));
  auto out = run_reference(f, {tensor(DType::I32, {3}, {-3, 0, 4})});
  expect_tensor(out[0], DType::I32, {3}, {-3, 0, 4});
  expect_tensor(out[1], DType::I32, {3}, {-3, 0, 4});
}

TEST(ReferenceUnary, IntegerOperands) {
  Fusion f("i");
  Tensor x = f.input("x", DType::I32, {3});
  f.output(relu(x));
  f.output(neg(x));
  f.output(exp(x));  // the builder casts integers to f32 first
  f.output(logical_not(x));
  auto out = run_reference(f, {tensor(DType::I32, {3}, {-3, 0, 4})});
  expect_tensor(out[0], DType::I32, {3}, {0, 0, 4});
  expect_tensor(out[1], DType::I32, {3}, {3, 0, -4});
  expect_tensor(out[2], DType::F32, {3}, {0.049787066876888275, 1.0, 54.598148345947266});
  expect_tensor(out[3], DType::Bool, {3}, {0, 1, 0});
}

TEST(ReferenceBinary, ArithmeticWithBroadcast) {
  const std::vector<double> a = {1, 2, 3, 4, 5, 6}, b = {10, 20, 30};
  auto run = [&](auto fn) { return binary(fn, DType::F32, {2, 3}, a, DType::F32, {3}, b); };
  expect_tensor(run([](auto x, auto y) { return x + y; }), DType::F32, {2, 3}, {11, 22, 33, 14, 25, 36});
  expect_tensor(run([](auto x, auto y) { return x - y; }), DType::F32, {2, 3}, {-9, -18, -27, -6, -15, -24});
  expect_tensor(run([](auto x, auto y) { return x * y; }), DType::F32, {2, 3}, {10, 40, 90, 40, 100, 180});
  expect_tensor(run([](auto x, auto y) { return x / y; }), DType::F32, {2, 3},
                {0.10000000149011612, 0.10000000149011612, 0.10000000149011612, 0.4000000059604645, 0.25,
                 0.20000000298023224});
  // Size-1 dims on both sides stretch: [2,1] + [1,3] -> [2,3].
  expect_tensor(binary([](auto x, auto y) { return x + y; }, DType::F32, {2, 1}, {1, 2}, DType::F32, {1, 3}, b),
                DType::F32, {2, 3}, {11, 21, 31, 12, 22, 32});
  // Odd sizes and a rank-0 operand.
  expect_tensor(binary([](auto x, auto y) { return x * y; }, DType::F32, {1, 5}, {1, 2, 3, 4, 5}, DType::F32, {}, {-2}),
                DType::F32, {1, 5}, {-2, -4, -6, -8, -10});
}

TEST(ReferenceBinary, PowMaximumMinimum) {
  auto p = binary([](auto x, auto y) { return pow(x, y); }, DType::F64, {4}, {2, -8, 0, kNaN}, DType::F64, {4},
                  {3, 1.0 / 3, 0, 0});
  expect_tensor(p, DType::F64, {4}, {8, kNaN, 1, 1});
  auto mx = binary([](auto x, auto y) { return maximum(x, y); }, DType::F32, {4}, {1, kNaN, -0.5, -kInf}, DType::F32,
                   {4}, {2, 1, kNaN, -3});
  expect_tensor(mx, DType::F32, {4}, {2, kNaN, kNaN, -3});
  auto mn = binary([](auto x, auto y) { return minimum(x, y); }, DType::F32, {4}, {1, kNaN, -0.5, -kInf}, DType::F32,
                   {4}, {2, 1, kNaN, -3});
  expect_tensor(mn, DType::F32, {4}, {1, kNaN, kNaN, -kInf});
}

TEST(ReferenceBinary, ComparisonsGiveBool) {
  const std::vector<double> a = {1, 2, kNaN, 3}, b = {2, 2, kNaN, 1};
  struct Case {
    const char* name;
    std::function<Tensor(const Tensor&, const Tensor&)> fn;
    std::vector<double> want;
  };
  const Case cases[] = {
      {"eq", [](auto x, auto y) { return eq(x, y); }, {0, 1, 0, 0}},
      {"ne", [](auto x, auto y) { return ne(x, y); }, {1, 0, 1, 1}},
      {"lt", [](auto x, auto y) { return lt(x, y); }, {1, 0, 0, 0}},
      {"le", [](auto x, auto y) { return le(x, y); }, {1, 1, 0, 0}},
      {"gt", [](auto x, auto y) { return gt(x, y); }, {0, 0, 0, 1}},
      {"ge", [](auto x, auto y) { return ge(x, y); }, {0, 1, 0, 1}},
  };
  for (const auto& c : cases)
    expect_tensor(binary(c.fn, DType::F16, {4}, a, DType::F32, {4}, b), DType::Bool, {4}, c.want, 0, c.name);
}

TEST(ReferenceBinary, LogicalOpsTreatNonzeroAsTrue) {
  const std::vector<double> a = {0, 2, 0, 0.5, kNaN}, b = {0, 0, 3, 7, 1};
  expect_tensor(binary([](auto x, auto y) { return logical_and(x, y); }, DType::F32, {5}, a, DType::I32, {5}, b),
                DType::Bool, {5}, {0, 0, 0, 1, 1});
  expect_tensor(binary([](auto x, auto y) { return logical_or(x, y); }, DType::F32, {5}, a, DType::I32, {5}, b),
                DType::Bool, {5}, {0, 1, 1, 1, 1});
  Fusion f("n");
  f.output(logical_not(f.input("x", DType::F32, {3})));
  expect_tensor(run1(f, {tensor(DType::F32, {3}, {0, 2, kNaN})}), DType::Bool, {3}, {1, 0, 0});
}

TEST(ReferenceTernary, WhereBroadcastsAndPromotes) {
  Fusion f("w");
  Tensor c = f.input("c", DType::Bool, {2, 1});
  Tensor a = f.input("a", DType::F16, {3});
  Tensor b = f.input("b", DType::F32, {});
  f.output(where(c, a, b));
  auto out = run1(f, {tensor(DType::Bool, {2, 1}, {1, 0}), tensor(DType::F16, {3}, {1, 2, 3}),
                      tensor(DType::F32, {}, {-0.1})});
  // f16 tensor with an f32 rank-0 tensor: the dimensioned operand decides -> f16; -0.1 rounds.
  expect_tensor(out, DType::F16, {2, 3}, {1, 2, 3, -0.0999755859375, -0.0999755859375, -0.0999755859375});
}

TEST(ReferenceUnary, ClampKeepsNaN) {
  Fusion f("c");
  Tensor x = f.input("x", DType::F32, {5});
  f.output(clamp(x, -1, 1));
  f.output(clamp(x, 0, kInf));
  auto out = run_reference(f, {tensor(DType::F32, {5}, {-5, 0.5, 5, kNaN, -kInf})});
  expect_tensor(out[0], DType::F32, {5}, {-1, 0.5, 1, kNaN, -1});
  expect_tensor(out[1], DType::F32, {5}, {0, 0.5, 5, kNaN, 0});
}

TEST(ReferenceUnary, CastToEveryKind) {
  Fusion f("c");
  Tensor x = f.input("x", DType::F32, {6});
  for (DType t : {DType::I32, DType::F8E4M3, DType::F8E5M2, DType::Bool, DType::F16, DType::BF16}) f.output(cast(x, t));
  auto out = run_reference(f, {tensor(DType::F32, {6}, {1.7, -1.7, 500, kNaN, 2.5, 70000})});
  expect_tensor(out[0], DType::I32, {6}, {1, -1, 500, 0, 2, 70000});
  expect_tensor(out[1], DType::F8E4M3, {6}, {1.75, -1.75, kNaN, kNaN, 2.5, kNaN});
  expect_tensor(out[2], DType::F8E5M2, {6}, {1.75, -1.75, 512, kNaN, 2.5, 65536 > 61440 ? kInf : 0});
  expect_tensor(out[3], DType::Bool, {6}, {1, 1, 1, 1, 1, 1});
  expect_tensor(out[4], DType::F16, {6}, {1.7001953125, -1.7001953125, 500, kNaN, 2.5, kInf});
  expect_tensor(out[5], DType::BF16, {6}, {1.703125, -1.703125, 500, kNaN, 2.5, 70144});
}

TEST(ReferencePromotion, MixedDTypes) {
  // f16 + f32 -> f32, computed exactly (an f16 result would have lost the 2^-12).
  expect_tensor(binary([](auto x, auto y) { return x + y; }, DType::F16, {1}, {1.0009765625}, DType::F32, {1},
                       {0.000244140625}),
                DType::F32, {1}, {1.001220703125});
  // bf16 tensor x f32 rank-0 tensor stays bf16: 1.0078125 * 1.5 = 1.51171875 is a bf16 tie -> 1.515625.
  expect_tensor(binary([](auto x, auto y) { return x * y; }, DType::BF16, {2}, {1.0078125, 2.0}, DType::F32, {},
                       {1.5}),
                DType::BF16, {2}, {1.515625, 3.0});
  // f16 + bf16 -> f32.
  expect_tensor(binary([](auto x, auto y) { return x + y; }, DType::F16, {1}, {1.5}, DType::BF16, {1}, {0.25}),
                DType::F32, {1}, {1.75});
  // i32 / i32 -> f32 true division; i32 + i64 -> i64.
  expect_tensor(binary([](auto x, auto y) { return x / y; }, DType::I32, {2}, {7, -7}, DType::I32, {2}, {2, 2}),
                DType::F32, {2}, {3.5, -3.5});
  expect_tensor(binary([](auto x, auto y) { return x + y; }, DType::I32, {1}, {7}, DType::I64, {1}, {-9}), DType::I64,
                {1}, {-2});
}

TEST(ReferencePromotion, WrappedConstants) {
  Fusion f("k");
  Tensor h = f.input("h", DType::F16, {1});
  Tensor i = f.input("i", DType::I32, {2});
  f.output(h * 1.5);  // stays f16: 1.0009765625 * 1.5 = 1.50146484375 ties to 1.501953125
  f.output(i + 0.5);  // int tensor + float constant -> f32
  f.output(i * 3.0);  // integer-valued constant keeps the int dtype
  auto out = run_reference(f, {tensor(DType::F16, {1}, {1.0009765625}), tensor(DType::I32, {2}, {1, 2})});
  expect_tensor(out[0], DType::F16, {1}, {1.501953125});
  expect_tensor(out[1], DType::F32, {2}, {1.5, 2.5});
  expect_tensor(out[2], DType::I32, {2}, {3, 6});
}

TEST(ReferenceInputs, StridedAndBroadcastInputsMatchDenseCopies) {
  Fusion f("s");
  Tensor x = f.input("x", DType::F32, {Dim::sym("M"), Dim::sym("N")});
  Tensor y = f.input("y", DType::F32, {Dim::sym("M"), Dim::sym("N")});
  f.output(x * 2.0 + y);
  // x: a transposed view of a dense [3, 2] buffer {1..6} -> logical [2, 3] {1,3,5,2,4,6}.
  HostTensor base = tensor(DType::F32, {3, 2}, {1, 2, 3, 4, 5, 6});
  HostTensor xt = base;
  xt.shape = {2, 3};
  xt.strides = {1, 2};
  // y: one row {10, 20, 30} stretched over 2 rows with stride 0, at an offset into its storage.
  HostTensor row = tensor(DType::F32, {4}, {99, 10, 20, 30});
  HostTensor yb = row;
  yb.shape = {2, 3};
  yb.strides = {0, 1};
  yb.offset = 1;
  EXPECT_FALSE(xt.is_contiguous());
  EXPECT_FALSE(yb.is_contiguous());
  auto strided = run1(f, {xt, yb});
  auto dense = run1(f, {xt.contiguous(), yb.contiguous()});
  expect_tensor(strided, DType::F32, {2, 3}, {12, 26, 40, 14, 28, 42});
  expect_tensor(dense, DType::F32, {2, 3}, values(strided));
}

TEST(ReferenceExecutor, ConstantsOutputsAndLiveness) {
  Fusion f("l");
  Tensor x = f.input("x", DType::F32, {Dim::sym("N")});
  Tensor unused = max(x);  // would throw on an empty input, but no output needs it
  (void)unused;
  f.output(sum(x));
  f.output(x);  // an input may be an output
  f.output(constant(f, 0.1, DType::F16));
  auto out = run_reference(f, {tensor(DType::F32, {0}, {})});
  ASSERT_EQ(out.size(), 3u);
  expect_tensor(out[0], DType::F32, {}, {0});
  expect_tensor(out[1], DType::F32, {0}, {});
  expect_tensor(out[2], DType::F16, {}, {0.0999755859375});
}

TEST(ReferenceExecutor, SymbolicBroadcast) {
  Fusion f("sym");
  Dim B = Dim::sym("B"), H = Dim::sym("H");
  Tensor x = f.input("x", DType::F32, {B, H});
  Tensor y = f.input("y", DType::F32, {H});
  f.output(x - y);
  auto out = run1(f, {tensor(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6}), tensor(DType::F32, {3}, {1, 1, 1})});
  expect_tensor(out, DType::F32, {2, 3}, {0, 1, 2, 3, 4, 5});
}

// Large results are computed in chunks on several threads (reference/parallel.h): a broadcast
// whose chunks start mid-row, and a unary op, give what one element at a time gives.
TEST(ReferenceBroadcast, LargeResultsMatchElementByElement) {
  const int64_t rows = 3, cols = 100003;  // 300009 elements: more than one chunk
  std::vector<double> a(rows), b(cols);
  for (int64_t i = 0; i < rows; ++i) a[i] = 1000.0 * (i + 1);
  for (int64_t j = 0; j < cols; ++j) b[j] = 0.25 * j;
  HostTensor sum = binary([](const Tensor& x, const Tensor& y) { return neg(x + y); }, DType::F64, {rows, 1}, a,
                          DType::F64, {1, cols}, b);
  ASSERT_EQ(sum.shape, (std::vector<int64_t>{rows, cols}));
  int64_t bad = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) bad += sum.get(i * cols + j) != -(a[i] + b[j]);
  EXPECT_EQ(bad, 0);
}
