// natural_output_metas: the layout a program output gets where the caller leaves its buffer to
// Solder (the Python call without out=), eager's: element ops follow their operands' layout
// (TensorIterator's rule), views their source's, reductions, cats and pads are contiguous. The
// strides each case expects are the ones torch 2.x gives (checked in python/tests).
#include <gtest/gtest.h>

#include "exec/view_meta.h"

using namespace solder;

namespace {
std::vector<TensorMeta> metas(const Fusion& f, const Bindings& b, const std::vector<std::vector<int64_t>>& in = {}) {
  return natural_output_metas(f, b, in);
}
using Strides = std::vector<int64_t>;
}  // namespace

TEST(OutputLayout, PermuteOfAComputedValueKeepsItsStrides) {
  Fusion f("tanh_t");
  Tensor x = f.input("x", DType::BF16, {Dim::sym("B"), Dim::sym("H")});
  Tensor a = f.input("a", DType::BF16, {Dim::sym("H")});
  f.output(permute(tanh(x + a), {1, 0}));
  const auto m = metas(f, {{"B", 300}, {"H", 7}});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].shape, (std::vector<int64_t>{7, 300}));
  EXPECT_EQ(m[0].strides, (std::vector<int64_t>{1, 7}));
  // 3-d, NCHW -> NHWC of a scaled activation: strides of [B, C, S] seen as [B, S, C].
  Fusion g("nhwc");
  Tensor y = g.input("y", DType::F16, {Dim::sym("B"), Dim::sym("C"), Dim::sym("S")});
  g.output(permute(y * 2.0, {0, 2, 1}));
  EXPECT_EQ(metas(g, {{"B", 2}, {"C", 3}, {"S", 5}})[0].strides, (std::vector<int64_t>{15, 1, 5}));
}

TEST(OutputLayout, ViewsKeepTheirSourcesOrder) {
  Fusion f("views");
  Tensor x = f.input("x", DType::F32, {Dim::sym("B"), Dim::sym("H")});
  Tensor t = tanh(x);
  f.output(permute(x, {1, 0}));  // a view of an input: copied in its memory order
  f.output(permute(t, {1, 0}));
  f.output(t);
  f.output(permute(reshape(exp(x), {Dim::sym("H"), Dim::sym("B")}), {1, 0}));
  f.output(slice(permute(t, {1, 0}), 0, 1, 4));
  const auto m = metas(f, {{"B", 4}, {"H", 6}});
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[0].strides, (Strides{1, 6}));
  EXPECT_EQ(m[1].strides, (Strides{1, 6}));
  EXPECT_EQ(m[2].strides, (Strides{6, 1}));
  EXPECT_EQ(m[3].strides, (Strides{1, 4}));
  EXPECT_EQ(m[4].shape, (Strides{3, 4}));
  EXPECT_EQ(m[4].strides, (Strides{1, 3}));  // dense, in the slice's order
}

TEST(OutputLayout, ElementOpsFollowTheirOperands) {
  // x [3, 4, 5] of strides (1, 15, 3) (a permuted [4, 5, 3]); torch gives the strides below.
  Fusion f("pw");
  Tensor x = f.input("x", DType::F32, {Dim::sym("A"), Dim::sym("B"), Dim::sym("C")});
  Tensor w = f.input("w", DType::F32, {Dim::sym("C")});
  Tensor y = f.input("y", DType::F32, {Dim::sym("A"), Dim::sym("B"), Dim::sym("C")});
  f.output(sigmoid(x) * w);                 // the broadcast operand tells nothing
  f.output(y + x);                          // the first operand whose strides differ decides
  f.output(cast(x, DType::F16) + 1.0);      // casts and constants keep it
  f.output(where(gt(x, 0.0), x, y));
  const Bindings b{{"A", 3}, {"B", 4}, {"C", 5}};
  const auto m = metas(f, b, {{1, 15, 3}, {1}, {20, 5, 1}});
  EXPECT_EQ(m[0].strides, (Strides{1, 15, 3}));
  EXPECT_EQ(m[1].strides, (Strides{20, 5, 1}));
  EXPECT_EQ(m[2].strides, (Strides{1, 15, 3}));
  EXPECT_EQ(m[3].strides, (Strides{1, 15, 3}));
  // Contiguous inputs, or inputs differing only in size-1 dims: contiguous.
  for (const TensorMeta& o : metas(f, b)) EXPECT_EQ(o.strides, (Strides{20, 5, 1}));
  const auto one = metas(f, {{"A", 3}, {"B", 1}, {"C", 5}}, {{5, 99, 1}, {1}, {5, 5, 1}});
  for (const TensorMeta& o : one) EXPECT_EQ(o.strides, (Strides{5, 5, 1}));
}

TEST(OutputLayout, ReductionsCatsAndNormsAreContiguous) {
  // A reduction's result is contiguous; an element op reading one follows its operands (x -
  // mean(x) follows x); a layer norm's or softmax's result is contiguous (eager's kernels write
  // them so, whatever the input's layout); an expand of a result is written contiguous.
  Fusion f("red");
  Tensor x = f.input("x", DType::F32, {Dim::sym("A"), Dim::sym("B")});
  f.output(sum(x, {0}, true));
  f.output(x - mean(x, {1}, true));
  f.output(cat({x, x}, 0));
  f.output(permute(sum(x, {1}, true), {1, 0}));
  f.output(expand(unsqueeze(tanh(x), 0), {Dim(3), Dim::sym("A"), Dim::sym("B")}));
  f.output(layer_norm(x, 1, std::nullopt, std::nullopt, 1e-5));
  f.output(softmax(x, 1) * 2.0);
  f.output(permute(log_softmax(x, 1), {1, 0}));
  const auto m = metas(f, {{"A", 6}, {"B", 7}}, {{1, 6}});
  EXPECT_EQ(m[0].strides, (Strides{7, 1}));
  EXPECT_EQ(m[1].strides, (Strides{1, 6}));
  EXPECT_EQ(m[2].strides, (Strides{7, 1}));
  EXPECT_EQ(m[3].strides, (Strides{6, 1}));
  EXPECT_EQ(m[4].strides, (Strides{42, 7, 1}));
  EXPECT_EQ(m[5].strides, (Strides{7, 1}));
  EXPECT_EQ(m[6].strides, (Strides{7, 1}));
  EXPECT_EQ(m[7].strides, (Strides{1, 7}));
}
