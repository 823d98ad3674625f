// View ops and cat in the reference executor: expand, reshape, permute/transpose, squeeze,
// unsqueeze, slice (constant and symbolic dims), select, cat.
#include <gtest/gtest.h>

#include "reference_test_util.h"
#include "solder/error.h"

using namespace solder;
using namespace solder::test;

namespace {
std::vector<double> iota(int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(i);
  return v;
}
}  // namespace

TEST(ReferenceViews, Expand) {
  Fusion f("e");
  Tensor x = f.input("x", DType::F32, {3, 1});
  f.output(expand(x, {2, 3, 4}));
  f.output(expand(x, {3, -1}));
  auto out = run_reference(f, {tensor(DType::F32, {3, 1}, {1, 2, 3})});
  expect_tensor(out[0], DType::F32, {2, 3, 4}, {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3});
  expect_tensor(out[1], DType::F32, {3, 1}, {1, 2, 3});
}

TEST(ReferenceViews, ReshapeIsRowMajor) {
  Fusion f("r");
  Tensor x = f.input("x", DType::F32, {2, 3});
  f.output(reshape(x, {3, 2}));
  f.output(reshape(x, {-1}));
  f.output(reshape(transpose(x, 0, 1), {6}));  // reshape reads the permuted (logical) order
  auto out = run_reference(f, {tensor(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6})});
  expect_tensor(out[0], DType::F32, {3, 2}, {1, 2, 3, 4, 5, 6});
  expect_tensor(out[1], DType::F32, {6}, {1, 2, 3, 4, 5, 6});
  expect_tensor(out[2], DType::F32, {6}, {1, 4, 2, 5, 3, 6});
}

TEST(ReferenceViews, SymbolicReshape) {
  Fusion f("r");
  Dim B = Dim::sym("B"), H = Dim::sym("H");
  Tensor x = f.input("x", DType::F32, {B, H});
  f.output(reshape(x, {B * H}));
  auto out = run1(f, {tensor(DType::F32, {2, 2}, {1, 2, 3, 4})});
  expect_tensor(out, DType::F32, {4}, {1, 2, 3, 4});
}

TEST(ReferenceViews, PermuteAndTranspose) {
  Fusion f("p");
  Tensor x = f.input("x", DType::I32, {2, 3, 4});
  f.output(permute(x, {2, 0, 1}));
  f.output(transpose(x, 0, -1));
  auto out = run_reference(f, {tensor(DType::I32, {2, 3, 4}, iota(24))});
  // out[k][i][j] = x[i][j][k] = 12i + 4j + k
  expect_tensor(out[0], DType::I32, {4, 2, 3},
                {0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23});
  // out[k][j][i] = 12i + 4j + k
  expect_tensor(out[1], DType::I32, {4, 3, 2},
                {0, 12, 4, 16, 8, 20, 1, 13, 5, 17, 9, 21, 2, 14, 6, 18, 10, 22, 3, 15, 7, 19, 11, 23});
}

TEST(ReferenceViews, SqueezeUnsqueeze) {
  Fusion f("s");
  Tensor x = f.input("x", DType::F16, {1, 3, 1});
  f.output(squeeze(x, {0, 2}));
  f.output(squeeze(x, {-1}));
  f.output(unsqueeze(squeeze(x, {0, 2}), 0));
  f.output(unsqueeze(squeeze(x, {0, 2}), -1));
  auto out = run_reference(f, {tensor(DType::F16, {1, 3, 1}, {1, 2, 3})});
  expect_tensor(out[0], DType::F16, {3}, {1, 2, 3});
  expect_tensor(out[1], DType::F16, {1, 3}, {1, 2, 3});
  expect_tensor(out[2], DType::F16, {1, 3}, {1, 2, 3});
  expect_tensor(out[3], DType::F16, {3, 1}, {1, 2, 3});
}

TEST(ReferenceViews, SliceConstantDims) {
  Fusion f("s");
  Tensor x = f.input("x", DType::F32, {2, 5});
  f.output(slice(x, 1, 1, 5, 2));
  f.output(slice(x, 1, -2));
  f.output(slice(x, 0, 1, 2));
  f.output(slice(x, 1, 3, 100));  // end clamps to the size
  f.output(slice(x, 1, 4, 2));    // empty
  f.output(select(x, 0, 1));
  f.output(select(x, 1, -1));
  auto out = run_reference(f, {tensor(DType::F32, {2, 5}, iota(10))});
  expect_tensor(out[0], DType::F32, {2, 2}, {1, 3, 6, 8});
  expect_tensor(out[1], DType::F32, {2, 2}, {3, 4, 8, 9});
  expect_tensor(out[2], DType::F32, {1, 5}, {5, 6, 7, 8, 9});
  expect_tensor(out[3], DType::F32, {2, 2}, {3, 4, 8, 9});
  expect_tensor(out[4], DType::F32, {2, 0}, {});
  expect_tensor(out[5], DType::F32, {5}, {5, 6, 7, 8, 9});
  expect_tensor(out[6], DType::F32, {2}, {4, 9});
}

TEST(ReferenceViews, SliceSymbolicDims) {
  Fusion f("s");
  Tensor x = f.input("x", DType::F32, {Dim::sym("N")});
  f.output(slice(x, 0, 1, 4));
  f.output(slice(x, 0, 2));
  f.output(slice(x, 0, 1, 5, 2));
  auto out = run_reference(f, {tensor(DType::F32, {6}, iota(6))});
  expect_tensor(out[0], DType::F32, {3}, {1, 2, 3});
  expect_tensor(out[1], DType::F32, {4}, {2, 3, 4, 5});
  expect_tensor(out[2], DType::F32, {2}, {1, 3});
  // N = 3 is too short for [1:4] and [1:5:2]: the ends clamp, as in torch; never a read past the end.
  out = run_reference(f, {tensor(DType::F32, {3}, iota(3))});
  expect_tensor(out[0], DType::F32, {2}, {1, 2});
  expect_tensor(out[1], DType::F32, {1}, {2});
  expect_tensor(out[2], DType::F32, {1}, {1});
}

TEST(ReferenceViews, Cat) {
  Fusion f("c");
  Tensor a = f.input("a", DType::F32, {2, 1});
  Tensor b = f.input("b", DType::F16, {2, 2});
  Tensor c = f.input("c", DType::F32, {2, 1});
  f.output(cat({a, b, c}, 1));   // f16 operand promoted to f32
  f.output(cat({b, b}, 0));
  f.output(cat({a, c}, -1));
  auto out = run_reference(f, {tensor(DType::F32, {2, 1}, {1, 2}), tensor(DType::F16, {2, 2}, {3, 4, 5, 6}),
                               tensor(DType::F32, {2, 1}, {7, 8})});
  expect_tensor(out[0], DType::F32, {2, 4}, {1, 3, 4, 7, 2, 5, 6, 8});
  expect_tensor(out[1], DType::F16, {4, 2}, {3, 4, 5, 6, 3, 4, 5, 6});
  expect_tensor(out[2], DType::F32, {2, 2}, {1, 7, 2, 8});
}

TEST(ReferenceViews, CatSymbolic) {
  Fusion f("c");
  Dim B = Dim::sym("B");
  Tensor x = f.input("x", DType::F32, {B, 1});
  Tensor y = f.input("y", DType::F32, {B, Dim::sym("K")});
  f.output(cat({x, y}, 1));
  f.output(cat({y, y}, 0));
  auto out = run_reference(f, {tensor(DType::F32, {2, 1}, {0, 9}), tensor(DType::F32, {2, 2}, {1, 2, 3, 4})});
  expect_tensor(out[0], DType::F32, {2, 3}, {0, 1, 2, 9, 3, 4});
  expect_tensor(out[1], DType::F32, {4, 2}, {1, 2, 3, 4, 1, 2, 3, 4});
}
