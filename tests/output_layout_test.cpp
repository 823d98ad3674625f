// natural_output_metas: the layout a program output gets where the caller leaves its buffer to
// Solder (the Python call without out=): a permute of a computed value that nothing else reads
// is that permuted view over a dense buffer (eager's strides); every other output contiguous.
#include <gtest/gtest.h>

#include "exec/view_meta.h"

using namespace solder;

namespace {
std::vector<TensorMeta> metas(const Fusion& f, const Bindings& b) { return natural_output_metas(f, b); }
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

TEST(OutputLayout, EverythingElseIsContiguous) {
  Fusion f("others");
  Tensor x = f.input("x", DType::F32, {Dim::sym("B"), Dim::sym("H")});
  Tensor t = tanh(x);
  f.output(permute(x, {1, 0}));               // a view of an input: its copy is written in order
  f.output(permute(t, {1, 0}));               // t is also an output: read twice
  f.output(t);
  f.output(permute(reshape(exp(x), {Dim::sym("H"), Dim::sym("B")}), {1, 0}));  // a view of a view
  const auto m = metas(f, {{"B", 4}, {"H", 6}});
  ASSERT_EQ(m.size(), 4u);
  for (const TensorMeta& o : m) EXPECT_EQ(o.strides, TensorMeta::contiguous(o.dtype, o.shape).strides);
}
