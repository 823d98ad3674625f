// Reductions over axes with a kept axis between them (passes/split_gapped_reductions): the
// rewrite's graph, its values against the program as written on the reference, the programs
// it leaves alone, and the two kernels the split lowers to.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/parser.h"
#include "ir/printer.h"
#include "passes/split_gapped_reductions.h"
#include "pipeline/pipeline.h"
#include "programs/run_inputs.h"
#include "solder/reference.h"
#include "support/lowered_graphs.h"

using namespace solder;
using solder::testing::kernels;

namespace {

// One reduction `op` of x over `axes` (var_mean: its variance and mean both outputs).
std::string program(const std::string& dtype, const std::string& shape, const std::string& op, const std::string& axes,
                    bool keepdim, int correction) {
  std::string s = "fusion g {\n  input x: " + dtype + "[" + shape + "]\n";
  const std::string attrs = "axes=[" + axes + "], keepdim=" + (keepdim ? "true" : "false");
  if (op == "var_mean")
    s += "  v, m = var_mean(x, " + attrs + ", correction=" + std::to_string(correction) + ")\n  output v\n  output m\n";
  else
    s += "  r = " + op + "(x, " + attrs + ")\n  output r\n";
  return s + "}\n";
}

// The lowered program's outputs against the program's own on random inputs: the same shapes,
// values within a few roundings of the output dtype (the sums run in another order).
void expect_same_values(const Fusion& f, const Bindings& sizes, const std::string& what) {
  const SegmentedFusion sf = lower(f);
  const auto in = make_random_inputs(f, resolve_input_shapes(f, {}, sizes), 7);
  const auto want = run_reference(f, in), got = run_reference(sf.fusion, in);
  ASSERT_EQ(want.size(), got.size()) << what;
  for (size_t k = 0; k < want.size(); ++k) {
    ASSERT_EQ(want[k].shape, got[k].shape) << what << " output " << k;
    const double tol = want[k].dtype == DType::F32 ? 1e-5 : 4e-3;
    for (int64_t i = 0; i < want[k].numel(); ++i) {
      const double w = want[k].get(i), g = got[k].get(i);
      EXPECT_NEAR(g, w, tol * (1 + std::fabs(w))) << what << " output " << k << " element " << i;
    }
  }
}

}  // namespace

TEST(SplitGappedReductions, TrailingRunFirstThenTheRest) {
  const Fusion got = split_gapped_reductions(parse_fusion(program("f32", "B, M, K", "sum", "0, 2", false, 0)));
  const Fusion want = parse_fusion(R"(
fusion g {
  input x: f32[B, M, K]
  p = sum(x, axes=[2], keepdim=true)
  r = sum(p, axes=[0, 2])
  output r
}
)");
  EXPECT_EQ(got.hash(), want.hash()) << "got:\n" << print_fusion(got) << "want:\n" << print_fusion(want);
}

TEST(SplitGappedReductions, ValuesMatchTheProgramAsWritten) {
  // Odd sizes, every op, both keepdims, corrections 0-2, 16-bit inputs (sums in f32, one
  // rounding at the end), a rank-4 input with a two-axis trailing run.
  const std::vector<std::pair<std::string, std::string>> shapes = {{"B, M, K", "0, 2"}, {"A, B, M, K", "0, 2, 3"},
                                                                   {"A, B, M, K", "1, 3"}};
  const Bindings sizes = {{"A", 3}, {"B", 5}, {"M", 7}, {"K", 33}};
  for (const std::string dtype : {"f32", "f16", "bf16"})
    for (const auto& [shape, axes] : shapes)
      for (const std::string op : {"sum", "mean", "max", "min", "var_mean"})
        for (bool keepdim : {false, true})
          for (int correction : {0, 1, 2}) {
            if (op != "var_mean" && correction > 0) continue;
            const std::string text = program(dtype, shape, op, axes, keepdim, correction);
            const Fusion f = parse_fusion(text);
            const SegmentedFusion sf = lower(f);
            EXPECT_EQ(kernels(sf), 2) << text << describe_segments(sf);
            expect_same_values(f, sizes, text);
          }
}

TEST(SplitGappedReductions, VarianceOfOneElementAndNonFiniteInputsAsWritten) {
  // var over [0, 2] of [1, M, 1] elements with correction 1 divides by zero: NaN either way.
  const Fusion f = parse_fusion(program("f32", "B, M, K", "var_mean", "0, 2", false, 1));
  const auto in = make_random_inputs(f, resolve_input_shapes(f, {}, {{"B", 1}, {"M", 3}, {"K", 40}}), 1);
  const auto want = run_reference(f, in), got = run_reference(lower(f).fusion, in);
  for (int64_t i = 0; i < want[0].numel(); ++i) EXPECT_NEAR(got[0].get(i), want[0].get(i), 1e-5) << i;
  const auto one = make_random_inputs(f, resolve_input_shapes(f, {}, {{"B", 1}, {"M", 3}, {"K", 1}}), 1);
  const Fusion g = parse_fusion(program("f32", "B, M, K", "var_mean", "0, 2", false, 1));
  const auto w1 = run_reference(g, one), g1 = run_reference(lower(g).fusion, one);
  for (int64_t i = 0; i < w1[0].numel(); ++i) EXPECT_EQ(std::isnan(w1[0].get(i)), std::isnan(g1[0].get(i))) << i;
}

TEST(SplitGappedReductions, LeftAlone) {
  // A kept innermost axis (the outer template's coalesced columns), adjacent axes, a gap of
  // size 1, and a known trailing run under 32 elements.
  for (const std::string text : {program("f32", "B, M, K", "sum", "0, 1", false, 0), program("f32", "A, B, M, K", "sum", "0, 2", false, 0),
                                 program("f32", "B, 1, K", "sum", "0, 2", false, 0), program("f32", "B, M, 8", "sum", "0, 2", false, 0),
                                 program("f32", "B, M, K", "sum", "1, 2", false, 0)}) {
    const Fusion f = parse_fusion(text);
    EXPECT_EQ(split_gapped_reductions(f).hash(), f.hash()) << text;
  }
}

TEST(SplitGappedReductions, IntegerSumsStayExactAndF64StaysF64) {
  // An i32 sum splits without a float in between (exact); an f64 var_mean's count and
  // correction stay f64 (means and variances of integers the IR refuses).
  for (const std::string dtype : {"i32", "f64"}) {
    const std::string text = program(dtype, "B, M, K", dtype == "i32" ? "sum" : "var_mean", "0, 2", false, 1);
    const Fusion f = parse_fusion(text);
    const Fusion g = split_gapped_reductions(f);
    for (const Node& n : g.nodes()) {
      if (n.op == Op::Cast) ADD_FAILURE() << text << print_fusion(g);
      if (n.op == Op::Constant) EXPECT_EQ(n.attrs.dtype, DType::F64) << text;
    }
    expect_same_values(f, {{"B", 5}, {"M", 7}, {"K", 33}}, text);
  }
}
