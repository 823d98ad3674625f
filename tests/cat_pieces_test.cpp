// A cat's pieces in one kernel (passes/cat_pieces.cpp): a cat whose pieces are element math
// over inputs becomes a where over windows of padded leaves, with the reference's results
// unchanged, and the pieces, the cat and what reads it segment into one pointwise kernel.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/parser.h"
#include "ir/printer.h"
#include "passes/cat_pieces.h"
#include "pipeline/pipeline.h"
#include "programs/run_inputs.h"
#include "solder/error.h"
#include "solder/executor.h"
#include "solder/reference.h"

using namespace solder;

namespace {

int count_ops(const Fusion& f, Op op) {
  int n = 0;
  for (const auto& node : f.nodes()) n += node.op == op;
  return n;
}

int kernels(const SegmentedFusion& sf) {
  int n = 0;
  for (const auto& s : sf.segments) n += s.kind == SegmentKind::Kernel;
  return n;
}

// The reference's results of `f` and of its lowered graph agree bit for bit.
void expect_same_results(const Fusion& f, const std::vector<std::vector<int64_t>>& shapes, const std::string& what) {
  const std::vector<HostTensor> in = make_random_inputs(f, shapes, 11);
  const auto want = run_reference(f, in);
  const auto got = run_reference(lower(f).fusion, in);
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].numel(), want[i].numel()) << what;
    for (int64_t e = 0; e < want[i].numel(); ++e) {
      const double a = got[i].get(e), b = want[i].get(e);
      if (!(a == b || (std::isnan(a) && std::isnan(b)))) {
        ADD_FAILURE() << what << ": output " << i << " element " << e << ": " << a << " vs " << b;
        return;
      }
    }
  }
}

const char* kRope = R"(fusion rope {
  input x: f16[B, M, 128]
  input c: f16[M, 128]
  input s: f16[M, 128]
  a = slice(x, axis=2, start=64, end=128)
  n = neg(a)
  b = slice(x, axis=2, start=0, end=64)
  rot = cat(n, b, axis=2)
  xc = mul(x, c)
  rs = mul(rot, s)
  y = add(xc, rs)
  output y
}
)";

}  // namespace

TEST(CatPieces, RotateHalfIsOneKernel) {
  const Fusion f = parse_fusion(kRope);
  const SegmentedFusion sf = lower(f);
  EXPECT_EQ(count_ops(sf.fusion, Op::Cat), 0);
  EXPECT_EQ(count_ops(sf.fusion, Op::Pad), 2);
  EXPECT_EQ(count_ops(sf.fusion, Op::Window), 1);
  EXPECT_EQ(kernels(sf), 1) << describe_segments(sf);
  expect_same_results(f, {{3, 5, 128}, {5, 128}, {5, 128}}, "rope");
  // Windows and pads print in the text format and read back to the same graph.
  EXPECT_EQ(parse_fusion(print_fusion(sf.fusion)).hash(), sf.fusion.hash()) << print_fusion(sf.fusion);
  // The kernel's vectors stay whole inside each piece (64 is a multiple of 8) and compile
  // without spills.
  Executor ex(f);
  const std::string text = ex.explain({{16, 512, 128}, {512, 128}, {512, 128}});
  EXPECT_NE(text.find("vec=8"), std::string::npos) << text;
  EXPECT_NE(text.find(" 0 bytes spill stores"), std::string::npos) << text;
}

// Pieces of unequal, odd lengths along a leading and the last axis, leaves that broadcast
// along the axis (kept as they are), a piece that is a plain view, three pieces, a cat that is
// itself an output: the reference agrees; vectors narrow to the pieces' bounds.
TEST(CatPieces, UnequalPiecesAndBroadcastLeaves) {
  const Fusion last = parse_fusion(R"(fusion three {
  input x: f32[B, 5]
  input y: f32[B, 16]
  input z: bf16[B, 3]
  input r: f32[B, 1]
  tx = tanh(x)
  my = mul(y, r)
  cz = cast(z, dtype=f32)
  k = cat(tx, my, cz, axis=1)
  e = exp(k)
  output e
  output k
}
)");
  const SegmentedFusion sf = lower(last);
  EXPECT_EQ(count_ops(sf.fusion, Op::Cat), 0);
  EXPECT_EQ(count_ops(sf.fusion, Op::Window), 2);
  EXPECT_EQ(count_ops(sf.fusion, Op::Pad), 3);  // x, y, z: r broadcasts along the axis
  EXPECT_EQ(kernels(sf), 1) << describe_segments(sf);
  expect_same_results(last, {{7, 5}, {7, 16}, {7, 3}, {7, 1}}, "three pieces");
  Executor ex(last);
  const std::string text = ex.explain({{1000, 5}, {1000, 16}, {1000, 3}, {1000, 1}});
  EXPECT_NE(text.find("vec=1 "), std::string::npos) << text;  // bounds 5 and 21

  const Fusion lead = parse_fusion(R"(fusion lead {
  input x: f16[3, H]
  input y: f16[4, H]
  t = relu(x)
  k = cat(t, y, axis=0)
  o = add(k, k)
  output o
}
)");
  EXPECT_EQ(count_ops(lower(lead).fusion, Op::Cat), 0);
  expect_same_results(lead, {{3, 10}, {4, 10}}, "leading axis");
}

// What stays a cat: pieces made by reductions, pieces of symbolic length.
TEST(CatPieces, OtherCatsStay) {
  const Fusion reduced = parse_fusion(R"(fusion red {
  input x: f32[B, H]
  m = sum(x, axes=[1], keepdim=true)
  k = cat(m, x, axis=1)
  output k
}
)");
  EXPECT_EQ(count_ops(lower(reduced).fusion, Op::Cat), 1);
  const Fusion symbolic = parse_fusion(R"(fusion sym {
  input x: f32[B, H]
  input y: f32[B, W]
  t = tanh(x)
  k = cat(t, y, axis=1)
  output k
}
)");
  EXPECT_EQ(count_ops(lower(symbolic).fusion, Op::Cat), 1);
}

// A pad written by hand reads zeros outside its source; as an output it is refused by name.
TEST(CatPieces, PadsInTheTextFormat) {
  const Fusion f = parse_fusion(R"(fusion p {
  input x: f32[B, 4]
  q = pad(x, axis=1, start=2, end=3)
  e = exp(q)
  output e
}
)");
  const std::vector<HostTensor> in = make_random_inputs(f, {{2, 4}}, 3);
  const auto out = run_reference(f, in);
  ASSERT_EQ(out[0].numel(), 18);
  EXPECT_EQ(out[0].get(0), 1.0);                         // exp(0) before x
  EXPECT_FLOAT_EQ(out[0].get(2), std::exp(in[0].get(0)));  // x[0, 0]
  EXPECT_EQ(out[0].get(8), 1.0);                         // exp(0) after x
  EXPECT_EQ(kernels(lower(f)), 1);
  const Fusion bad = parse_fusion("fusion p {\n  input x: f32[B, 4]\n  q = pad(x, axis=1, start=2, end=3)\n  output q\n}\n");
  try {
    lower(bad);
    ADD_FAILURE() << "a pad as an output was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pad"), std::string::npos) << e.what();
  }
}

TEST(CatPieces, PiecesOfAMatmulsPermutedResult) {
  // RoPE as a model's graph has it: the query projection's result, split into heads and
  // permuted, rotated half by half. The matmul writes memory, so its pieces are read padded in
  // place like an input's: one kernel after the matmul, no cat copies (Llama's layer had four).
  const Fusion f = parse_fusion(R"(fusion rope_q {
  input x: f32[10, 16]
  input w: f32[16, 16]
  input c: f32[5, 8]
  input s: f32[5, 8]
  q = matmul(x, w)
  q4 = reshape(q, shape=[2, 5, 2, 8])
  qt = permute(q4, axes=[0, 2, 1, 3])
  a = slice(qt, axis=3, start=4, end=8)
  n = neg(a)
  b = slice(qt, axis=3, start=0, end=4)
  rot = cat(n, b, axis=3)
  qc = mul(qt, c)
  rs = mul(rot, s)
  y = add(qc, rs)
  output y
}
)");
  const SegmentedFusion sf = lower(f);
  EXPECT_EQ(count_ops(sf.fusion, Op::Cat), 0);
  EXPECT_EQ(kernels(sf), 1) << describe_segments(sf);
  expect_same_results(f, {{10, 16}, {16, 16}, {5, 8}, {5, 8}}, "rope of a matmul");
}
