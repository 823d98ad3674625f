// Rewrite passes on small before/after programs in the text format.
#include <gtest/gtest.h>

#include "ir/parser.h"
#include "ir/printer.h"
#include "passes/passes.h"
#include "pipeline/pipeline.h"

using namespace solder;

namespace {
int count_ops(const Fusion& f, Op op) {
  int n = 0;
  for (const auto& node : f.nodes()) n += node.op == op;
  return n;
}
}  // namespace

TEST(FoldCasts, RemovesLosslessRoundTripKeepsRounding) {
  Fusion f = parse_fusion(R"(
fusion casts {
  input x: f16[N]
  input y: f32[N]
  t2 = cast(x, dtype=f32)
  t3 = cast(t2, dtype=f16)
  t4 = cast(y, dtype=f16)
  t5 = cast(t4, dtype=f32)
  output t3
  output t5
}
)");
  Fusion g = fold_casts(f);
  // f16 -> f32 -> f16 is the identity: the output is x itself.
  EXPECT_EQ(g.value(g.outputs()[0]).name, "x");
  // f32 -> f16 -> f32 rounds: both casts stay.
  EXPECT_EQ(count_ops(eliminate_dead_code(g), Op::Cast), 2);
}

TEST(Cse, MergesDuplicateUpcastsAndConstants) {
  Fusion f = parse_fusion(R"(
fusion dup {
  input x: f16[N]
  t1 = cast(x, dtype=f32)
  t2 = cast(x, dtype=f32)
  t3 = constant(value=2, dtype=f32)
  t4 = constant(value=2, dtype=f32)
  t5 = mul(t1, t3)
  t6 = mul(t2, t4)
  t7 = add(t5, t6)
  output t7
}
)");
  Fusion g = eliminate_dead_code(eliminate_common_subexpressions(f));
  EXPECT_EQ(count_ops(g, Op::Cast), 1);
  EXPECT_EQ(count_ops(g, Op::Constant), 1);
  EXPECT_EQ(count_ops(g, Op::Mul), 1);
}

TEST(Cse, KeepsZeroAndNegativeZeroApart) {
  Fusion f = parse_fusion(R"(
fusion zeros {
  input x: f32[N]
  t1 = constant(value=0, dtype=f32)
  t2 = constant(value=-0, dtype=f32)
  t3 = div(x, t1)
  t4 = div(x, t2)
  output t3
  output t4
}
)");
  Fusion g = eliminate_common_subexpressions(f);
  EXPECT_EQ(count_ops(eliminate_dead_code(g), Op::Constant), 2);
  EXPECT_EQ(count_ops(g, Op::Div), 2);
}

TEST(Dce, DropsWhatNoOutputNeeds) {
  Fusion f = parse_fusion(R"(
fusion dead {
  input x: f32[N]
  t1 = exp(x)
  t2 = log(x)
  output t1
}
)");
  Fusion g = eliminate_dead_code(f);
  EXPECT_EQ(g.nodes().size(), 1u);
  EXPECT_EQ(count_ops(g, Op::Log), 0);
}

TEST(Pipeline, PassesKeepNamesAndVerify) {
  Fusion f = parse_fusion(R"(
fusion keep {
  input x: f16[B, H]
  t1 = cast(x, dtype=f32)
  t2 = cast(t1, dtype=f16)
  t3 = neg(t2)
  output t3
}
)");
  SegmentedFusion s = lower(f);
  verify(s.fusion);
  EXPECT_EQ(s.fusion.value(s.fusion.outputs()[0]).name, "t3");
  EXPECT_EQ(count_ops(s.fusion, Op::Cast), 0);
}
