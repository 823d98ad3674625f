// Inner reductions over several axes walk their reduced dims in the dominant input's memory
// order (inner_reduction_order, passed by the executor to analyze_kernel): which orders it gives
// (only where more bytes then lie in unit-stride runs), which orders analyze_kernel accepts, and
// the executor's plans for reductions of permuted inputs (seed 9 #128: x read as vector runs,
// compiled without spills; #038, x permuted times y contiguous: unchanged). The GPU tier:
// tests/gpu/split_rows_test.cpp (GpuSplitRows.ReductionsOverSeveralAxesOfPermutedInputs).
#include <gtest/gtest.h>

#include "support/split_rows_programs.h"

#include "pipeline/pipeline.h"
#include "programs/run_inputs.h"
#include "schedule/kernel_plan.h"
#include "solder/executor.h"

using namespace solder;
using namespace solder::testing;

namespace {

using Sizes = std::vector<std::vector<int64_t>>;

// The first kernel segment of f (lowered).
struct Lowered {
  SegmentedFusion sf;
  int si = 0;
  const Segment& seg() const { return sf.segments.at(si); }
};
Lowered lowered(const Fusion& f) {
  Lowered l{lower(f)};
  while (l.sf.segments.at(l.si).kind != SegmentKind::Kernel) ++l.si;
  return l;
}

// x [B, M, K] reduced over `axes` (sum), with optional second input y of the same shape.
Fusion reduction(std::vector<int64_t> axes, bool two_inputs = false) {
  Fusion f("order");
  const Shape sh{Dim::sym("B"), Dim::sym("M"), Dim::sym("K")};
  Tensor x = f.input("x", DType::F32, sh);
  f.output(sum(two_inputs ? x * f.input("y", DType::F32, sh) : x, axes));
  return f;
}

const std::vector<int64_t> kDims{32, 128, 4097};
// base([K, B, M]).permute(1, 2, 0): the sweep's perm layout.
const std::vector<int64_t> kPermuted{128, 1, 32 * 128}, kContig{128 * 4097, 4097, 1};

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

std::string explain(const Fusion& f, const Bindings& sizes) {
  return Executor(f).explain(resolve_input_shapes(f, {}, sizes));
}

}  // namespace

TEST(ReductionOrder, ReducedDimsFollowTheDominantInputsMemory) {
  const Lowered l = lowered(reduction({1, 2}));
  // Permuted x: kept B, then K (stride B * M), then M (unit stride).
  EXPECT_EQ(inner_reduction_order(l.seg(), {kDims}, {kPermuted}, {4}), (std::vector<int>{0, 2, 1}));
  // Contiguous: the declared order (empty).
  EXPECT_TRUE(inner_reduction_order(l.seg(), {kDims}, {kContig}, {4}).empty());
  // The output's operand may be given too (a [B] statistic: not counted).
  EXPECT_EQ(inner_reduction_order(l.seg(), {kDims, {32}}, {kPermuted, {1}}, {4, 4}), (std::vector<int>{0, 2, 1}));
}

TEST(ReductionOrder, OnlyWhereMoreBytesLieInUnitStrideRuns) {
  const Lowered two = lowered(reduction({1, 2}, true));
  // x permuted, y contiguous (seed 9 #038): one of them strided either way; the declared order stays.
  EXPECT_TRUE(inner_reduction_order(two.seg(), {kDims, kDims}, {kPermuted, kContig}, {4, 4}).empty());
  EXPECT_TRUE(inner_reduction_order(two.seg(), {kDims, kDims}, {kContig, kPermuted}, {4, 4}).empty());
  // Both permuted: reordered.
  EXPECT_EQ(inner_reduction_order(two.seg(), {kDims, kDims}, {kPermuted, kPermuted}, {4, 4}), (std::vector<int>{0, 2, 1}));
  // The bigger input decides (x f32 permuted against y bf16 contiguous).
  EXPECT_EQ(inner_reduction_order(two.seg(), {kDims, kDims}, {kPermuted, kContig}, {4, 2}), (std::vector<int>{0, 2, 1}));
  // A kept dim innermost (sum over [0, 2] of the permuted x: M, kept, has stride 1): the outer
  // schedulers' case, declared order.
  const Lowered outer = lowered(reduction({0, 2}));
  EXPECT_TRUE(inner_reduction_order(outer.seg(), {kDims}, {kPermuted}, {4}).empty());
  // A broadcast input (x expanded along B) does not decide: no input spans the domain, declared.
  const Lowered one = lowered(reduction({1, 2}));
  std::vector<int64_t> expanded = kPermuted;
  expanded[0] = 0;
  EXPECT_TRUE(inner_reduction_order(one.seg(), {kDims}, {expanded}, {4}).empty());
  // A permuted element output of a norm counts as much as its input (see the executor tests below).
}

TEST(ReductionOrder, AnalyzeKernelTakesKeptThenReducedOrdersOnly) {
  const Lowered l = lowered(reduction({1, 2}));
  const Fusion& f = l.sf.fusion;
  EXPECT_EQ(analyze_kernel(f, l.seg()).dim_order, (std::vector<int>{0, 1, 2}));
  const KernelShape ks = analyze_kernel(f, l.seg(), {0, 2, 1});
  EXPECT_EQ(ks.dim_order, (std::vector<int>{0, 2, 1}));
  EXPECT_EQ(ks.split, 1);
  // Spans follow the order: x varies along every kernel dim, the [B] output along the row only.
  EXPECT_EQ(ks.span[l.seg().inputs.at(0)], 7u);
  EXPECT_EQ(ks.span[l.seg().outputs.at(0)], 1u);
  // Orders of another form are ignored (declared order): a reduced dim among the rows, a
  // repeated or missing dim, a dim out of range, the wrong length.
  for (const std::vector<int>& bad : std::vector<std::vector<int>>{{2, 0, 1}, {1, 0, 2}, {0, 2, 2}, {0, 1, 3}, {0, 2}, {0, 2, 1, 3}})
    EXPECT_EQ(analyze_kernel(f, l.seg(), bad).dim_order, (std::vector<int>{0, 1, 2})) << bad.size();
  // Kept dims and reduced dims each in any order (a reduction over [2, 3] of a 4-D x); a kept
  // dim among the reduced ones is ignored.
  Fusion g("order4");
  Tensor x = g.input("x", DType::F32, {Dim::sym("A"), Dim::sym("B"), Dim::sym("C"), Dim::sym("D")});
  g.output(sum(x, {2, 3}));
  const Lowered l4 = lowered(g);
  EXPECT_EQ(analyze_kernel(l4.sf.fusion, l4.seg(), {1, 0, 3, 2}).dim_order, (std::vector<int>{1, 0, 3, 2}));
  EXPECT_EQ(analyze_kernel(l4.sf.fusion, l4.seg(), {0, 1, 3, 2}).dim_order, (std::vector<int>{0, 1, 3, 2}));
  EXPECT_EQ(analyze_kernel(l4.sf.fusion, l4.seg(), {0, 2, 1, 3}).dim_order, (std::vector<int>{0, 1, 2, 3}));
}

// A reduction over dim 0 of x [A, B, C] laid out [A, C, B] (seed 13 #134): the kept dims walk
// x's memory order (C, B), so B, its unit-stride dim, is the kept columns' innermost; laid out as
// declared, or with C unit-stride, the declared order; the output's bytes do not outweigh x's.
TEST(ReductionOrder, KeptDimsFollowTheInputsUnitStrideDim) {
  Fusion f("kept_order");
  Tensor x = f.input("x", DType::F16, {Dim::sym("A"), Dim::sym("B"), Dim::sym("C")});
  f.output(sum(x, {0}, true));
  const Lowered l = lowered(f);
  const std::vector<int64_t> dims = {128, 100, 4097}, out = {1, 100, 4097};
  const std::vector<int64_t> acb = {4097 * 100, 1, 100}, contig = {100 * 4097, 4097, 1}, out_contig = {100 * 4097, 4097, 1};
  EXPECT_EQ(inner_reduction_order(l.seg(), {dims, out}, {acb, out_contig}, {2, 4}), (std::vector<int>{2, 1, 0}));
  EXPECT_TRUE(inner_reduction_order(l.seg(), {dims, out}, {contig, out_contig}, {2, 4}).empty());
  // The output in x's layout too: still x's order.
  EXPECT_EQ(inner_reduction_order(l.seg(), {dims, out}, {acb, {100 * 4097, 1, 100}}, {2, 4}), (std::vector<int>{2, 1, 0}));
  // An element output as large as x in the declared layout (a norm over dim 0): as declared.
  EXPECT_TRUE(inner_reduction_order(l.seg(), {dims, dims}, {acb, contig}, {2, 2}).empty());
}

// Seed 9 #128: amin |x| over [1, 2] of x stored [K, B, M], f32 [32, 128, 4097] (and odd sizes):
// x is read as vector runs along M (general/seg; full where M and K collapse), no spills.
TEST(ReductionOrder, PermutedAminReadsVectorRuns) {
  for (const Bindings& b : std::vector<Bindings>{{{"B", 32}, {"M", 128}, {"K", 4097}}, {{"B", 7}, {"M", 64}, {"K", 5001}}}) {
    const std::string text = explain(perm_amin_abs(DType::F32), b);
    EXPECT_EQ(count(text, "(in,general/seg)"), 1u) << text;
    EXPECT_NE(text.find("params: vec=4 "), std::string::npos) << text;
    EXPECT_NE(text.find(" 0 bytes spill stores"), std::string::npos) << text;
    EXPECT_EQ(text.find("rescheduled"), std::string::npos) << text;
  }
  // M odd: no vector divides the runs; element by element, as before.
  const std::string odd = explain(perm_amin_abs(DType::F32), {{"B", 7}, {"M", 33}, {"K", 5001}});
  EXPECT_NE(odd.find("(in,general)"), std::string::npos) << odd;
}

// #038 (x permuted times y contiguous): one input strided in either order, so the transpose
// tiles take it (y read as vectors, x staged; tiles whose rows and columns are both reduced);
// both permuted: both read as vector runs.
TEST(ReductionOrder, MeanOfProducts) {
  const Bindings b{{"B", 32}, {"M", 1000}, {"K", 512}};
  const std::string mixed = explain(perm_mean_mul(DType::F32), b);
  EXPECT_NE(mixed.find("(transpose)"), std::string::npos) << mixed;
  EXPECT_NE(mixed.find("y(in,full)"), std::string::npos) << mixed;
  EXPECT_NE(mixed.find("(in,staged)"), std::string::npos) << mixed;
  EXPECT_EQ(count(mixed, "(in,general"), 0u) << mixed;
  for (DType t : {DType::F32, DType::BF16}) {
    const std::string both = explain(perm_reduction(t, "mean_mul_pp"), b);
    EXPECT_EQ(count(both, "(in,general/seg)"), 2u) << both;
    EXPECT_NE(both.find(" 0 bytes spill stores"), std::string::npos) << both;
  }
}

// Welford with keepdim, a norm's element output over two permuted axes, four dims, and a kept
// dim innermost (declared order): planned and compiled without spills; what reads as runs.
TEST(ReductionOrder, OtherReductionsCompileWithoutSpills) {
  const Bindings b{{"B", 16}, {"M", 96}, {"K", 1001}};
  for (DType t : {DType::F32, DType::BF16, DType::F16}) {
    const std::string var = explain(perm_reduction(t, "var_keep"), b);
    EXPECT_EQ(count(var, "(in,general/seg)"), 1u) << var;
    const std::string norm = explain(perm_reduction(t, "norm"), b);
    EXPECT_EQ(count(norm, "(in,general/seg)"), 2u) << norm;
    const std::string sum4 = explain(perm_reduction(t, "sum4"), {{"A", 6}, {"B", 64}, {"C", 5}, {"D", 301}});
    EXPECT_NE(sum4.find("(in,general/seg)"), std::string::npos) << sum4;
    const std::string sum02 = explain(perm_reduction(t, "sum_02"), b);
    EXPECT_EQ(sum02.find("/seg)"), std::string::npos) << sum02;
    for (const std::string* text : {&var, &norm, &sum4, &sum02}) {
      EXPECT_GE(count(*text, "ptxas: "), 1u) << *text;
      for (size_t at = text->find("ptxas: "); at != std::string::npos; at = text->find("ptxas: ", at + 1)) {
        const std::string line = text->substr(at, text->find('\n', at) - at);
        EXPECT_NE(line.find(" 0 bytes spill stores"), std::string::npos) << *text;
      }
    }
  }
}
