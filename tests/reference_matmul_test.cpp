// matmul (PyTorch semantics: 1-D operands, batch broadcasting) and linear in the reference.
#include <gtest/gtest.h>

#include "reference_test_util.h"

using namespace solder;
using namespace solder::test;

namespace {
HostTensor mm(DType t, std::vector<int64_t> sa, const std::vector<double>& a, std::vector<int64_t> sb,
              const std::vector<double>& b) {
  Fusion f("mm");
  Tensor x = f.input("a", t, Shape(sa.begin(), sa.end()));
  Tensor y = f.input("b", t, Shape(sb.begin(), sb.end()));
  f.output(matmul(x, y));
  return run1(f, {tensor(t, sa, a), tensor(t, sb, b)});
}
const std::vector<double> kA = {1, 2, 3, 4, 5, 6}, kB = {7, 8, 9, 10, 11, 12};
}  // namespace

TEST(ReferenceMatmul, TwoD) {
  expect_tensor(mm(DType::F32, {2, 3}, kA, {3, 2}, kB), DType::F32, {2, 2}, {58, 64, 139, 154});
}

TEST(ReferenceMatmul, OneDOperands) {
  expect_tensor(mm(DType::F32, {3}, {1, 2, 3}, {3, 2}, kB), DType::F32, {2}, {58, 64});
  expect_tensor(mm(DType::F32, {2, 3}, kA, {3}, {1, 0, -1}), DType::F32, {2}, {-2, -2});
  expect_tensor(mm(DType::F32, {3}, {1, 2, 3}, {3}, {4, 5, 6}), DType::F32, {}, {32});
  // 1-D with batched: [2] @ [3,2,1] -> [3,1];  [2,1,2] @ [2] -> [2,1].
  expect_tensor(mm(DType::F32, {2}, {1, 2}, {3, 2, 1}, {1, 1, 1, 0, 0, 1}), DType::F32, {3, 1}, {3, 1, 2});
  expect_tensor(mm(DType::F32, {2, 1, 2}, {1, 2, 3, 4}, {2}, {1, 1}), DType::F32, {2, 1}, {3, 7});
}

TEST(ReferenceMatmul, BatchBroadcast) {
  std::vector<double> a2 = kA;
  for (double v : kA) a2.push_back(-v);
  expect_tensor(mm(DType::F32, {2, 2, 3}, a2, {3, 2}, kB), DType::F32, {2, 2, 2},
                {58, 64, 139, 154, -58, -64, -139, -154});
  // [2,1,1,2] @ [3,2,1]: batch dims [2,1] and [3] broadcast to [2,3].
  expect_tensor(mm(DType::F32, {2, 1, 1, 2}, {1, 2, 3, 4}, {3, 2, 1}, {1, 1, 1, 0, 0, 1}), DType::F32,
                {2, 3, 1, 1}, {3, 1, 2, 7, 3, 4});
}

TEST(ReferenceMatmul, AccumulatesInDoubleRoundsOnce) {
  // 2048 + 1 + 1 = 2050 exactly; a running f16 sum would round 2049 back to 2048.
  expect_tensor(mm(DType::F16, {1, 3}, {2048, 1, 1}, {3, 1}, {1, 1, 1}), DType::F16, {1, 1}, {2050});
  // 2048 + 1 = 2049 is an f16 tie: the one final rounding gives 2048.
  expect_tensor(mm(DType::F16, {1, 2}, {2048, 1}, {2, 1}, {1, 1}), DType::F16, {1, 1}, {2048});
  expect_tensor(mm(DType::BF16, {1, 2}, {1, 0.00390625}, {2}, {1, 1}), DType::BF16, {1}, {1});
}

TEST(ReferenceMatmul, SymbolicSizes) {
  Fusion f("s");
  Dim M = Dim::sym("M"), K = Dim::sym("K"), N = Dim::sym("N");
  Tensor a = f.input("a", DType::F32, {M, K});
  Tensor b = f.input("b", DType::F32, {K, N});
  f.output(matmul(a, b));
  expect_tensor(run1(f, {tensor(DType::F32, {2, 3}, kA), tensor(DType::F32, {3, 2}, kB)}), DType::F32, {2, 2},
                {58, 64, 139, 154});
}

TEST(ReferenceLinear, WithAndWithoutBias) {
  Fusion f("l");
  Tensor x = f.input("x", DType::F32, {2, 3});
  Tensor w = f.input("w", DType::F32, {2, 3});
  Tensor b = f.input("b", DType::F32, {2});
  f.output(linear(x, w, b));
  f.output(linear(x, w));
  f.output(linear(reshape(x, {2, 1, 3}), w, b));
  f.output(linear(reshape(slice(x, 0, 1, 2), {3}), w));
  auto out = run_reference(f, {tensor(DType::F32, {2, 3}, kA), tensor(DType::F32, {2, 3}, {1, 0, 0, 0, 1, 1}),
                               tensor(DType::F32, {2}, {10, 20})});
  expect_tensor(out[0], DType::F32, {2, 2}, {11, 25, 14, 31});
  expect_tensor(out[1], DType::F32, {2, 2}, {1, 5, 4, 11});
  expect_tensor(out[2], DType::F32, {2, 1, 2}, {11, 25, 14, 31});
  expect_tensor(out[3], DType::F32, {2}, {4, 11});
}

TEST(ReferenceLinear, PromotesAndRounds) {
  Fusion f("l");
  Tensor x = f.input("x", DType::F16, {1, 2});
  Tensor w = f.input("w", DType::F32, {1, 2});
  Tensor xb = f.input("xb", DType::BF16, {1, 2});
  Tensor wb = f.input("wb", DType::BF16, {1, 2});
  f.output(linear(x, w));    // f16 x f32 -> f32
  f.output(linear(xb, wb));  // bf16: 1 + 2^-8 rounds back to 1 (tie to even)
  auto out = run_reference(f, {tensor(DType::F16, {1, 2}, {2048, 1}), tensor(DType::F32, {1, 2}, {1, 1}),
                               tensor(DType::BF16, {1, 2}, {1, 0.00390625}), tensor(DType::BF16, {1, 2}, {1, 1})});
  expect_tensor(out[0], DType::F32, {1, 1}, {2049});
  expect_tensor(out[1], DType::BF16, {1, 1}, {1});
}
