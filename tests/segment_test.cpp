// Which segments and kernel categories each workload gets: views launch nothing, matmul goes
// to the library, norms are one inner kernel, the fp8 cast with amax one full reduction.
#include <gtest/gtest.h>

#include "ir/parser.h"
#include "ops/workloads.h"
#include "programs/load_program.h"
#include "pipeline/pipeline.h"

using namespace solder;

namespace {
struct Counts {
  int kernels = 0, views = 0, cats = 0, matmuls = 0;
  std::vector<KernelCategory> categories;
};
Counts count(const std::string& workload) {
  SegmentedFusion s = lower(make_workload(workload));
  Counts c;
  for (const auto& seg : s.segments) {
    switch (seg.kind) {
      case SegmentKind::Kernel: ++c.kernels; c.categories.push_back(seg.category); break;
      case SegmentKind::View: ++c.views; break;
      case SegmentKind::Cat: ++c.cats; break;
      case SegmentKind::Matmul: ++c.matmuls; break;
    }
  }
  return c;
}
}  // namespace

TEST(Segment, NormsAreOneInnerKernel) {
  for (const char* w : {"w1_layer_norm_fused", "w5_softmax_bf16", "w5_rms_norm_bf16"}) {
    Counts c = count(w);
    EXPECT_EQ(c.kernels, 1) << w;
    ASSERT_EQ(c.categories.size(), 1u);
    EXPECT_EQ(c.categories[0], KernelCategory::Inner) << w;
  }
}

TEST(Segment, Fp8CastWithAmaxIsOneFullReduction) {
  for (const auto& w : workload_names()) {
    if (w.rfind("w2_", 0) != 0) continue;
    Counts c = count(w);
    EXPECT_EQ(c.kernels, 1) << w;
    EXPECT_EQ(c.categories[0], KernelCategory::Full) << w;
  }
}

TEST(Segment, GeluBiasIsOnePointwiseKernel) {
  Counts c = count("w5_gelu_bias_bf16");
  EXPECT_EQ(c.kernels, 1);
  EXPECT_EQ(c.categories[0], KernelCategory::Pointwise);
}

TEST(Segment, EinsumTransposesAreViewsAroundTheMatmul) {
  // Seed 003: the transposes/reshapes around the matmul must not become kernels of their own
  // (a reshape that strides cannot express is copied at run time, not planned as a kernel).
  Counts c = count("w4_einsum_1");
  EXPECT_EQ(c.kernels, 0);
  EXPECT_EQ(c.matmuls, 1);
  EXPECT_GE(c.views, 2);
}

TEST(Segment, CombinedLayerNormTanhFusesBeforeTheLinear) {
  Counts c = count("w3_combined");
  EXPECT_EQ(c.matmuls, 1);
  ASSERT_GE(c.kernels, 1);
  EXPECT_EQ(c.categories[0], KernelCategory::Inner);  // layer norm + tanh in one kernel
}

namespace {
Counts count_program(const char* text) {
  SegmentedFusion s = lower(parse_fusion(text));
  Counts c;
  for (const auto& seg : s.segments)
    if (seg.kind == SegmentKind::Kernel) ++c.kernels, c.categories.push_back(seg.category);
    else if (seg.kind == SegmentKind::Matmul) ++c.matmuls;
  return c;
}
}  // namespace

TEST(Segment, ElementMathOfAMatmulJoinsItsConsumerAcrossTheNextMatmul) {
  // SwiGLU as aot_autograd lists it (a Llama MLP): the gate's cast comes right after its matmul,
  // the up projection's matmul next, then silu(gate) * up. The cast's only reader is that kernel,
  // so both are one kernel (the cast was a kernel of its own: an f32 copy of the gate, written
  // and read back).
  const Counts c = count_program(R"(fusion swiglu {
  input x: bf16[T, D]
  input wg: bf16[D, F]
  input wu: bf16[D, F]
  g = matmul(x, wg)
  gf = cast(g, dtype=f32)
  u = matmul(x, wu)
  s = silu(gf)
  sb = cast(s, dtype=bf16)
  y = mul(sb, u)
  output y
}
)");
  EXPECT_EQ(c.matmuls, 2);
  EXPECT_EQ(c.kernels, 1);
}

TEST(Segment, SharedCastOfABroadcastValueIsRecomputedByEachReader) {
  // A Llama layer's RoPE: the f32 cast of cos (and of sin) is read by the q and the k rotation
  // (CSE merged the two casts). The kernel holding a cast and q * cos then had two readers and
  // could not sink into q's rotation: q * cos went to memory in f32 and was read back (344 us of
  // 2150 per forward on the H100). Each rotation now recomputes the casts: one kernel per head
  // set, and no kernel writes an f32 value as large as q.
  const Fusion f = load_program(std::string(SOLDER_SOURCE_DIR) + "/tests/data/llama_bf16_qkv_rope.fusion");
  const SegmentedFusion sf = lower(f);
  int q_kernels = 0, k_kernels = 0;
  for (const Segment& s : sf.segments) {
    if (s.kind != SegmentKind::Kernel) continue;
    const std::string domain = shape_str(s.domain);
    q_kernels += domain == "[8, 32, 1024, 64]";
    k_kernels += domain == "[8, 4, 1024, 64]";
    for (int o : s.outputs)
      EXPECT_FALSE(sf.fusion.value(o).dtype == DType::F32 && shape_str(sf.fusion.value(o).shape) == "[8, 32, 1024, 64]")
          << describe_segments(sf);
  }
  EXPECT_EQ(q_kernels, 1) << describe_segments(sf);
  EXPECT_EQ(k_kernels, 1) << describe_segments(sf);
}
