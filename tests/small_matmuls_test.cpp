// Matmuls and linears that run as reduction kernels (passes/small_matmuls: f64): each form
// lowers to one kernel and no library call, its values against the program as written on the
// reference; other dtypes stay with cuBLASLt.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/parser.h"
#include "ir/printer.h"
#include "passes/small_matmuls.h"
#include "pipeline/pipeline.h"
#include "programs/run_inputs.h"
#include "solder/reference.h"
#include "support/small_matmul_programs.h"

using namespace solder;
using namespace solder::testing;

namespace {

int count(const SegmentedFusion& sf, SegmentKind kind) {
  int n = 0;
  for (const Segment& s : sf.segments) n += s.kind == kind;
  return n;
}

}  // namespace

TEST(SmallMatmuls, EveryFormIsOneKernelAndMatchesTheProgram) {
  for (const SmallMatmulProgram& p : small_matmul_programs()) {
    SCOPED_TRACE(p.name);
    const Fusion f = parse_fusion(p.text);
    const SegmentedFusion sf = lower(f);
    EXPECT_EQ(count(sf, SegmentKind::Matmul), 0) << describe_segments(sf);
    EXPECT_EQ(count(sf, SegmentKind::Kernel), 1) << describe_segments(sf);
    const auto in = make_random_inputs(f, resolve_input_shapes(f, {}, {}), 5);
    const auto want = run_reference(f, in), got = run_reference(sf.fusion, in);
    ASSERT_EQ(want.size(), got.size());
    const DType t = want[0].dtype;
    const double tol = t == DType::F64 ? 1e-12 : t == DType::F32 ? 1e-5 : 8e-3;
    for (size_t k = 0; k < want.size(); ++k) {
      ASSERT_EQ(want[k].shape, got[k].shape);
      ASSERT_EQ(want[k].dtype, got[k].dtype);
      for (int64_t i = 0; i < want[k].numel(); ++i)
        ASSERT_NEAR(got[k].get(i), want[k].get(i), tol * (1 + std::fabs(want[k].get(i)))) << "element " << i;
    }
  }
}

TEST(SmallMatmuls, ProductsSumOverK) {
  const Fusion g = small_matmuls_as_reductions(parse_fusion(
      "fusion mm {\n  input a: f64[B, 8]\n  input b: f64[8, 2]\n  c = matmul(a, b)\n  output c\n}\n"));
  const Fusion want = parse_fusion(R"(
fusion mm {
  input a: f64[B, 8]
  input b: f64[8, 2]
  bt = permute(b, axes=[1, 0])
  b3 = unsqueeze(bt, axis=0)
  a3 = unsqueeze(a, axis=1)
  p = mul(a3, b3)
  s = sum(p, axes=[2], keepdim=true)
  c = reshape(s, shape=[B, 2])
  output c
}
)");
  EXPECT_EQ(g.hash(), want.hash()) << "got:\n" << print_fusion(g) << "want:\n" << print_fusion(want);
}

TEST(SmallMatmuls, OtherDtypesStayWithTheLibrary) {
  for (const std::string text :
       {"fusion mm {\n  input a: f32[2, 16]\n  input b: f32[16, 16]\n  c = matmul(a, b)\n  output c\n}\n",
        "fusion mm {\n  input a: bf16[B, 64]\n  input b: bf16[64, 64]\n  c = matmul(a, b)\n  output c\n}\n",
        "fusion mm {\n  input x: f16[4096, 64]\n  input w: f16[512, 64]\n  y = linear(x, w)\n  output y\n}\n"}) {
    const Fusion f = parse_fusion(text);
    EXPECT_EQ(small_matmuls_as_reductions(f).hash(), f.hash()) << text;
    EXPECT_EQ(count(lower(f), SegmentKind::Matmul), 1) << text;
  }
  EXPECT_FALSE(matmul_as_reduction(DType::F32));
  EXPECT_TRUE(matmul_as_reduction(DType::F64));
}
