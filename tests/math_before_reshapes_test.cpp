// Element math on a reshape of a computed value runs before the reshape
// (passes/math_before_reshapes.cpp): the reference's results are unchanged, and a group norm with
// the SiLU and per-channel weights after it is one kernel.
#include <gtest/gtest.h>

#include "ir/parser.h"
#include "passes/math_before_reshapes.h"
#include "pipeline/pipeline.h"
#include "support/lowered_graphs.h"
#include "support/reshape_math_programs.h"

using namespace solder;
using namespace solder::testing;

namespace {

// Reshapes of values that are not views of inputs, as the segmenter sees them.
int computed_reshapes(const Fusion& f) {
  int n = 0;
  for (const Node& node : f.nodes()) {
    if (node.op != Op::Reshape) continue;
    const int p = f.value(node.in[0]).producer;
    n += p >= 0 && op_info(f.nodes()[p].op).kind != OpKind::View;
  }
  return n;
}

}  // namespace

// A group norm as the torch frontend lowers one, with weights, a residual and a SiLU after it;
// a pointwise chain across a reshape (tests/support/reshape_math_programs.h): one kernel each,
// the reshape left on the output alone, the values unchanged.
TEST(MathBeforeReshapes, MathAfterAReshapeJoinsTheValuesKernel) {
  for (const auto& p : solder::testing::reshape_math_programs()) {
    const Fusion f = parse_fusion(p.text);
    const SegmentedFusion sf = lower(f);
    EXPECT_EQ(computed_reshapes(sf.fusion), 1) << p.name << ": the output's alone\n" << describe_segments(sf);
    EXPECT_EQ(kernels(sf), 1) << p.name << "\n" << describe_segments(sf);
    if (p.name.rfind("group_norm", 0) == 0)
      expect_same_results(f, {{2, 32, 3, 5}, {32}, {2, 32, 3, 5}}, 5, p.name);
    else
      expect_same_results(f, {{2, 5, 12}, {5, 1, 1}}, 5, p.name);
  }
}

// What stays after the reshape: an operand that varies along a run of dims the reshape makes
// from one (its reshape to that one dim would merge dims: not always a strided view), and one
// that broadcasts within such a run. The values are the same either way.
TEST(MathBeforeReshapes, OperandsThatDoNotRegroupStay) {
  const Fusion merged = parse_fusion(R"(fusion merged {
  input x: f32[B, C, 12]
  input q: f32[B, C, 3, 4]
  input p: f32[3, 1]
  e = exp(x)
  e4 = reshape(e, shape=[B, C, 3, 4])
  a = add(e4, q)
  m = mul(e4, p)
  output a
  output m
}
)");
  const Fusion g = math_before_reshapes(merged);
  EXPECT_EQ(computed_reshapes(g), 1) << "e4 stays for both readers";
  expect_same_results(merged, {{2, 5, 12}, {2, 5, 3, 4}, {3, 1}}, 5, "merged runs");

}

// Reshapes that do not regroup dims (sizes that interleave) and reshapes of views are left to
// the segmenter as they were.
TEST(MathBeforeReshapes, OtherReshapesStay) {
  const Fusion f = parse_fusion(R"(fusion other {
  input x: f32[6, 10]
  input y: f32[4, 15]
  e = exp(x)
  e2 = reshape(e, shape=[4, 15])
  a = add(e2, y)
  x2 = reshape(x, shape=[4, 15])
  b = mul(x2, y)
  output a
  output b
}
)");
  const Fusion g = math_before_reshapes(f);
  EXPECT_EQ(g.hash(), f.hash());
  expect_same_results(f, {{6, 10}, {4, 15}}, 5, "interleaved sizes");
}
