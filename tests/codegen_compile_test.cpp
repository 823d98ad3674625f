// Every generated kernel compiles with NVRTC for sm_90a without spills, across the H sweep
// (odd sizes included), and the kernel cache key is symbolic: sizes of one class share a kernel.
#include <array>
#include <regex>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "codegen/expr_emitter.h"
#include "pipeline/compile_kernel.h"
#include "runtime/cache_entry.h"
#include "pipeline/pipeline.h"
#include "support/inner_shift_programs.h"
#include "support_workloads.h"

using namespace solder;

namespace {
struct Prepared {
  std::vector<PreparedKernel> kernels;
};

// `addresses`: each kernel operand's address modulo 256 (inputs, then outputs); the last one
// given stands for the rest.
Prepared prepare_at(const Fusion& f, const std::vector<std::vector<int64_t>>& shapes, const std::vector<uint64_t>& addresses) {
  SegmentedFusion sf = lower(f);
  Bindings b = bind_shapes(sf.fusion, shapes);
  Prepared p;
  for (size_t i = 0; i < sf.segments.size(); ++i) {
    if (sf.segments[i].kind != SegmentKind::Kernel) continue;
    LaunchFacts facts = contiguous_facts(sf, static_cast<int>(i), b);
    for (size_t k = 0; k < facts.operands.size(); ++k) facts.operands[k].address = addresses[std::min(k, addresses.size() - 1)];
    p.kernels.push_back(prepare_kernel(sf, static_cast<int>(i), analyze_kernel(sf.fusion, sf.segments[i]), facts,
                                       h100_profile(), KernelCache::global()));
  }
  return p;
}

Prepared prepare_all(const Fusion& f, const std::vector<std::vector<int64_t>>& shapes, uint64_t address = 256) {
  return prepare_at(f, shapes, {address});
}

std::vector<int64_t> h_sweep() {
  std::vector<int64_t> hs = {768, 1024, 1280, 1536, 1600, 2048, 2560, 4096, 5140, 12288, 16384, 20480, 32768, 65536};
  for (int64_t base : {768, 4096, 16384})
    for (int64_t d : {2, 4, 8, 16}) hs.push_back(base + d);
  return hs;
}
}  // namespace

TEST(CodegenCompile, LayerNormSweepHasNoSpills) {
  for (DType t : {DType::F16, DType::BF16, DType::F32})
    for (int64_t h : h_sweep()) {
      auto p = prepare_all(solder::testing::w1_layer_norm(t), {{h}, {8192, h}, {h}, {h}, {h}});
      ASSERT_EQ(p.kernels.size(), 1u) << "W1 must be one kernel";
      const auto& k = p.kernels[0];
      EXPECT_FALSE(k.compiled->ptxas.spills()) << k.plan.name << " H=" << h << " " << k.plan.params.str();
      EXPECT_GT(k.compiled->ptxas.registers, 0);
    }
}

TEST(CodegenCompile, SoftmaxAndRmsNormSweepHaveNoSpills) {
  for (DType t : {DType::F16, DType::BF16, DType::F32})
    for (int64_t h : h_sweep()) {
      for (const Fusion& f : {solder::testing::softmax_fusion(t), solder::testing::rms_norm_fusion(t)}) {
        std::vector<std::vector<int64_t>> shapes = {{512, h}};
        if (f.inputs().size() == 2) shapes.push_back({h});
        auto p = prepare_all(f, shapes);
        ASSERT_EQ(p.kernels.size(), 1u);
        EXPECT_FALSE(p.kernels[0].compiled->ptxas.spills()) << f.name() << " H=" << h << " " << p.kernels[0].plan.params.str();
      }
    }
}

TEST(CodegenCompile, Fp8CastWithAmaxIsOneKernel) {
  for (DType in : {DType::BF16, DType::F32})
    for (DType out : {DType::F8E4M3, DType::F8E5M2})
      for (bool sat : {true, false}) {
        auto p = prepare_all(solder::testing::fp8_cast(in, out, sat), {{1 << 21}, {}});
        ASSERT_EQ(p.kernels.size(), 1u);
        EXPECT_EQ(p.kernels[0].plan.shape.category, KernelCategory::Full);
        EXPECT_FALSE(p.kernels[0].compiled->ptxas.spills());
      }
}

TEST(CodegenCompile, OneKernelServesSizesOfOneClass) {
  // Batch and H multiples of 8 share a pointwise kernel (rows of at least 256 vectors: shorter
  // rows take blocks of as many whole warps as they fill; blocks enough for the same rows in
  // flight: 16 rows take one at a time); rows of one H bucket share a norm kernel (from as many
  // rows as SMs: fewer rows take a plan of their own that spreads them out).
  auto a = prepare_all(solder::testing::gelu_bias(DType::BF16), {{8192, 8192}, {8192}});
  auto b = prepare_all(solder::testing::gelu_bias(DType::BF16), {{4096, 6144}, {6144}});
  EXPECT_EQ(a.kernels[0].cache_key, b.kernels[0].cache_key);
  auto c = prepare_all(solder::testing::w1_layer_norm(), {{4096}, {512, 4096}, {4096}, {4096}, {4096}});
  auto d = prepare_all(solder::testing::w1_layer_norm(), {{4096}, {16384, 4096}, {4096}, {4096}, {4096}});
  EXPECT_EQ(c.kernels[0].cache_key, d.kernels[0].cache_key);
}

// The key names the generated code, not just the plan: a cache written by another version of
// the generator (same plan, other code) must miss.
TEST(CodegenCompile, CacheKeyNamesTheGeneratedSource) {
  auto a = prepare_all(solder::testing::gelu_bias(DType::BF16), {{64, 1024}, {1024}});
  const std::string& src = a.kernels[0].source.source;
  char h[24];
  std::snprintf(h, sizeof h, "%016llx", static_cast<unsigned long long>(fnv1a64(src.data(), src.size())));
  EXPECT_TRUE(a.kernels[0].cache_key.ends_with(std::string("|src=") + h)) << a.kernels[0].cache_key;
}

TEST(CodegenCompile, AlignmentAndDtypeChangeTheKernel) {
  auto aligned = prepare_all(solder::testing::gelu_bias(DType::BF16), {{64, 1024}, {1024}});
  auto misaligned = prepare_all(solder::testing::gelu_bias(DType::BF16), {{64, 1024}, {1024}}, 258);
  EXPECT_NE(aligned.kernels[0].cache_key, misaligned.kernels[0].cache_key);
  // Every operand one element off: the rows are phase-shifted as one (phased_vec).
  EXPECT_EQ(misaligned.kernels[0].plan.params.col_vec, 1);
  // The input one element off and the output aligned: no phase shift aligns both; the input is
  // read at its own phase (shift), the output and the bias in aligned vectors.
  auto mixed = prepare_at(solder::testing::gelu_bias(DType::BF16), {{64, 1024}, {1024}}, {258, 256, 256});
  EXPECT_EQ(mixed.kernels[0].plan.params.vec, 8);
  EXPECT_TRUE(mixed.kernels[0].plan.params.shift);
  EXPECT_EQ(mixed.kernels[0].plan.params.col_vec, 0);
  auto f16 = prepare_all(solder::testing::gelu_bias(DType::F16), {{64, 1024}, {1024}});
  EXPECT_NE(aligned.kernels[0].cache_key, f16.kernels[0].cache_key);
}

// The persistent form as measured on the device (perf-notes, 2026-11-23): the held row is
// packed f16 pairs, every batch loads without a branch around it (lanes past the row load in
// bounds), only the last batch is checked against the row's end, addresses are immediate
// offsets from one row base, and the kernel keeps all of it in registers.
TEST(CodegenCompile, PersistentRowsArePackedAndLoadedAhead) {
  auto p = prepare_all(solder::testing::w1_layer_norm(), {{4096}, {8192, 4096}, {4096}, {4096}, {4096}});
  ASSERT_EQ(p.kernels.size(), 1u);
  const std::string& src = p.kernels[0].source.source;
  EXPECT_GT(p.kernels[0].plan.params.batch, 0);
  EXPECT_NE(src.find("unsigned m"), std::string::npos) << "held f16 values are not packed";
  EXPECT_NE(src.find("const bool in_row = b < BATCH - 1 || col0 < C;"), std::string::npos);
  EXPECT_NE(src.find("const int colc = in_row ? col0 : 0;"), std::string::npos);
  EXPECT_NE(src.find("st_vec<u16, 8>(R5 + colc, out5);"), std::string::npos) << "stores not from the row base";
  EXPECT_EQ(src.find("      if (ok) {\n        const Vec"), std::string::npos) << "a batch's loads sit behind a branch";
  EXPECT_EQ(p.kernels[0].compiled->ptxas.stack_bytes, 0);
}

// Phase-shifted rows (rms norm, H = 5140: rows start 8-byte aligned): each row's phase from its
// address, 16-byte loads of the row, the weight 4 elements per load, the partial vectors in
// the last batch only (the others whole: no lane tests), and loaded whole between the first
// and the last row.
TEST(CodegenCompile, UnalignedRowsArePhaseShifted) {
  auto p = prepare_all(solder::testing::rms_norm_fusion(DType::BF16), {{512, 5140}, {5140}});
  ASSERT_EQ(p.kernels.size(), 1u);
  const std::string& src = p.kernels[0].source.source;
  const auto& params = p.kernels[0].plan.params;
  EXPECT_EQ(params.col_vec, 4) << params.str();
  EXPECT_GT(params.batch, 1) << params.str();
  EXPECT_LE(((params.batch - 1) * params.threads_per_row + 1) * params.vec, 5140) << params.str();
  EXPECT_NE(src.find("const int ph = "), std::string::npos);
  EXPECT_NE(src.find("vi = (vs == nv ? 0 : vs) * VEC"), std::string::npos) << "vector 0 not moved to the last batch";
  EXPECT_NE(src.find("const unsigned ln = b < BATCH - 1 ? (1u << VEC) - 1 : "), std::string::npos);
  EXPECT_NE(src.find("if (prow > 0 && prow < R - 1) {"), std::string::npos);
  EXPECT_NE(src.find("ld_row_pairs<8, 4>("), std::string::npos) << "the weight is not loaded 4 elements at a time";
  EXPECT_NE(src.find("st_row<u16, 8>("), std::string::npos);
  EXPECT_FALSE(p.kernels[0].compiled->ptxas.spills());
}

// Prefetching kernels take their rows by ticket after the first (a counter in scratch that the
// last block zeroes) where a launch gives blocks six rows or more; kernels whose rows fit in a
// warp keep the fixed stride (no barrier to publish a ticket by), and so do those where one
// block fills an SM and no weight is read (measured slower: see the scheduler).
TEST(CodegenCompile, PrefetchingKernelsTakeRowsByTicket) {
  auto p = prepare_all(solder::testing::rms_norm_fusion(DType::BF16), {{8192, 4096}, {4096}});
  ASSERT_EQ(p.kernels.size(), 1u);
  const auto& k = p.kernels[0];
  ASSERT_TRUE(k.plan.params.prefetch) << k.plan.params.str();
  ASSERT_GT(k.plan.params.threads_per_row, 32) << k.plan.params.str();
  EXPECT_TRUE(k.plan.params.tickets) << k.plan.params.str();
  EXPECT_EQ(k.source.scratch_init, (std::vector<unsigned>{0u, 0u}));
  EXPECT_NE(k.source.source.find("const bool by_ticket = R >= 6 * (i64)gridDim.x * RPB;"), std::string::npos);
  EXPECT_NE(k.source.source.find("atomicAdd(tickets, 1u)"), std::string::npos);
  EXPECT_NE(k.source.source.find("if (const i64 prow = nrb + ry; prow < R)"), std::string::npos);
  EXPECT_NE(k.source.source.find("tickets[0] = 0u;"), std::string::npos) << "counters not reset for the next launch";
  EXPECT_FALSE(k.compiled->ptxas.spills());
  // Short rows, a warp or less each: the fixed stride.
  p = prepare_all(solder::testing::rms_norm_fusion(DType::BF16), {{8192, 256}, {256}});
  ASSERT_LE(p.kernels[0].plan.params.threads_per_row, 32);
  EXPECT_TRUE(p.kernels[0].source.scratch_init.empty());
  EXPECT_EQ(p.kernels[0].source.source.find("tickets"), std::string::npos);
  // One block of 640 threads per SM, no weight: the fixed stride.
  p = prepare_all(solder::testing::softmax_fusion(DType::BF16), {{8192, 20480}});
  ASSERT_EQ(p.kernels[0].plan.params.min_blocks, 1) << p.kernels[0].plan.params.str();
  EXPECT_FALSE(p.kernels[0].plan.params.tickets) << p.kernels[0].plan.params.str();
  EXPECT_TRUE(p.kernels[0].source.scratch_init.empty());
}

// Phase-shifted rows need one phase for every row-varying operand in every row, and the
// weight aligned to the phase step; otherwise the vectors every row start allows.
TEST(CodegenCompile, PhaseShiftNeedsOnePhaseForTheRowOperands) {
  const Fusion rms = solder::testing::rms_norm_fusion(DType::BF16);  // operands: x, w, out
  // x and out two elements past 16-byte alignment, the weight too: steps of two elements.
  auto p = prepare_at(rms, {{512, 4096}, {4096}}, {260});
  EXPECT_EQ(p.kernels[0].plan.params.vec, 8);
  EXPECT_EQ(p.kernels[0].plan.params.col_vec, 2);
  // One element past: steps of one element, the weight read element by element.
  p = prepare_at(rms, {{512, 4096}, {4096}}, {258});
  EXPECT_EQ(p.kernels[0].plan.params.col_vec, 1);
  // x shifted, out aligned: phases differ, so no phased rows; x is read at its own phase
  // (shift: two aligned vectors shifted) beside the output's and weight's vectors of 8.
  p = prepare_at(rms, {{512, 4096}, {4096}}, {258, 256, 256});
  EXPECT_EQ(p.kernels[0].plan.params.vec, 8);
  EXPECT_EQ(p.kernels[0].plan.params.col_vec, 0);
  EXPECT_TRUE(p.kernels[0].plan.params.shift);
  // H = 5140 (a phase step of 4) with the weight one element off: no phase shift, and single
  // elements, as far as the weight allows.
  p = prepare_at(rms, {{512, 5140}, {5140}}, {256, 258, 256});
  EXPECT_EQ(p.kernels[0].plan.params.col_vec, 0);
  EXPECT_EQ(p.kernels[0].plan.params.vec, 1);
  // Aligned rows are never phase-shifted.
  p = prepare_at(rms, {{512, 4096}, {4096}}, {256});
  EXPECT_EQ(p.kernels[0].plan.params.col_vec, 0);
  for (const auto& k : p.kernels) EXPECT_FALSE(k.compiled->ptxas.spills());
}

// Grid reductions combine a block before the one atomic per block.
TEST(CodegenCompile, FullReductionsIssueOneAtomicPerBlock) {
  auto p = prepare_all(solder::testing::fp8_cast(DType::BF16, DType::F8E4M3, true), {{1 << 21}, {}});
  const std::string& src = p.kernels[0].source.source;
  EXPECT_NE(src.find("__shared__ float bred0[THREADS / 32];"), std::string::npos);
  EXPECT_NE(src.find("if (threadIdx.x == 0) atomic_combine("), std::string::npos);
  EXPECT_EQ(src.find("if ((threadIdx.x & 31) == 0) atomic_combine("), std::string::npos);
}

// Flat kernels: a tile wholly in bounds loads all its unrolled vectors before using the first.
TEST(CodegenCompile, FlatTilesLoadEveryVectorAhead) {
  auto p = prepare_all(solder::testing::fp8_cast(DType::BF16, DType::F8E4M3, true), {{1 << 21}, {}});
  ASSERT_GT(p.kernels[0].plan.params.unroll, 1);
  const std::string& src = p.kernels[0].source.source;
  EXPECT_NE(src.find("if (tile0 + THREADS * UNROLL * VEC <= C) {"), std::string::npos);
  EXPECT_NE(src.find("pf0[u] = ld_vec<unsigned, 4>("), std::string::npos);  // bf16 pairs
  EXPECT_NE(src.find("const Vec<unsigned, 4> in0 = pf0[u];"), std::string::npos);
}

// (x - mean) * rstd is one FMA; exp is the hardware approximation only where every result of
// the kernel is stored narrower than f32.
// (x - mean) * rstd rounds as the IR says (a subtraction, then a product), as torch's does: one
// FMA x * rstd - mean * rstd was a rounding of x * rstd away (a row of equal values normalized
// to 1e-5 instead of 0; GpuInnerStaged, H = 1).
TEST(CodegenCompile, NormalizationRoundsAsWrittenAndNarrowSoftmaxUsesFastExp) {
  auto body = [](const Prepared& p) {  // the kernel, past the runtime header
    const std::string& src = p.kernels.at(0).source.source;
    return src.substr(src.find("extern \"C\""));
  };
  const std::string ln = body(prepare_all(solder::testing::w1_layer_norm(), {{4096}, {64, 4096}, {4096}, {4096}, {4096}}));
  EXPECT_EQ(ln.find("fmaf("), std::string::npos);
  EXPECT_NE(ln.find("__fsub_rn("), std::string::npos);
  EXPECT_NE(body(prepare_all(solder::testing::softmax_fusion(DType::BF16), {{64, 4096}})).find("__expf("), std::string::npos);
  const std::string f32 = body(prepare_all(solder::testing::softmax_fusion(DType::F32), {{64, 4096}}));
  EXPECT_EQ(f32.find("__expf("), std::string::npos);
  EXPECT_NE(f32.find("expf("), std::string::npos);
}

// W1's f16/bf16 adds run on pairs (one f16x2/bf16x2 instruction for two elements), and the
// row is held as the pairs they produce.
TEST(CodegenCompile, NarrowAddsRunOnPairs) {
  for (DType t : {DType::F16, DType::BF16}) {
    auto p = prepare_all(solder::testing::w1_layer_norm(t), {{4096}, {64, 4096}, {4096}, {4096}, {4096}});
    const std::string& src = p.kernels.at(0).source.source;
    const std::string body = src.substr(src.find("extern \"C\""));
    EXPECT_NE(body.find(t == DType::F16 ? "f16x2_add(" : "bf16x2_add("), std::string::npos) << dtype_name(t);
    EXPECT_NE(body.find("for (int j2 = 0; j2 < VEC / 2; ++j2)"), std::string::npos);
    EXPECT_NE(body.find("[b][j2] = h"), std::string::npos) << "the held row takes the pairs whole";
    EXPECT_EQ(body.find("f16_add("), std::string::npos);
  }
}

TEST(CodegenCompile, GeneratedSourceUsesVectorAccess) {
  auto p = prepare_all(solder::testing::gelu_bias(DType::BF16), {{8192, 8192}, {8192}});
  const std::string& src = p.kernels[0].source.source;
  EXPECT_NE(src.find("ld_vec<unsigned, 4>"), std::string::npos);  // 8 bf16, as 4 pairs
  EXPECT_NE(src.find("st_vec<u16, 8>"), std::string::npos);
  EXPECT_EQ(p.kernels[0].compiled->ptxas.stack_bytes, 0);
}

// Rows of 1024 threads stream their weights through the shared-memory ring: each weight is
// copied by cp.async (t0, t2, t3, t4 are operand slots 0, 2, 3, 4), never loaded from global
// memory into registers, and reads wait on copy groups; the launch reserves the row's prefetch
// plus the ring's slots (a 16-byte vector per thread each).
TEST(CodegenCompile, LongRowWeightsStreamThroughTheRing) {
  // W1 f32 20480 (f16/bf16 65536, with more waits a row, take clusters of 512-thread blocks).
  for (DType t : {DType::F32}) {
    const int64_t h = 20480;
    auto p = prepare_all(solder::testing::w1_layer_norm(t), {{h}, {8192, h}, {h}, {h}, {h}});
    ASSERT_EQ(p.kernels.size(), 1u);
    const auto& k = p.kernels[0];
    const KernelParams& q = k.plan.params;
    ASSERT_GE(q.weight_ring, 4) << q.str();
    EXPECT_EQ(q.dyn_smem, h * 4 + q.weight_ring * 1024 * 16) << q.str();
    const std::string& src = k.source.source;
    for (int w : {0, 2, 3, 4}) {
      const std::string ptr = "P" + std::to_string(w);
      EXPECT_NE(src.find(", " + ptr + " + (wb < BATCH - 1 || wc < C ? wc : 0));"), std::string::npos) << ptr;
      EXPECT_EQ(src.find("(const unsigned*)(" + ptr + " +"), std::string::npos) << ptr << " loaded from global memory";
    }
    EXPECT_NE(src.find("cp_async_wait<"), std::string::npos);
    EXPECT_FALSE(k.compiled->ptxas.spills()) << q.str();
  }
  // Not where blocks share an SM (their weights hit L1): W1 f32 at H=16384 takes 512 threads.
  auto p = prepare_all(solder::testing::w1_layer_norm(DType::F32), {{16384}, {8192, 16384}, {16384}, {16384}, {16384}});
  EXPECT_EQ(p.kernels[0].plan.params.weight_ring, 0) << p.kernels[0].plan.params.str();
}

// Softmax holds its f32 exponentials where they fit (one exp per element) and recomputes them
// from the held input where only that lets the row be held (bf16 H=65536: two exps per element).
namespace {
// Occurrences of `what` in generated source `s`.
size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}
}  // namespace

TEST(CodegenCompile, SoftmaxRecomputesExponentialsOnlyWhereHoldingThemCannotFit) {
  for (auto [h, recompute] : {std::pair{int64_t{4096}, false}, {int64_t{65536}, true}}) {
    auto p = prepare_all(solder::testing::softmax_fusion(DType::BF16), {{8192, h}});
    ASSERT_EQ(p.kernels.size(), 1u);
    const auto& k = p.kernels[0];
    EXPECT_GT(k.plan.params.batch, 0) << "H=" << h << " " << k.plan.params.str();
    EXPECT_EQ(k.plan.params.recompute, recompute) << "H=" << h;
    const std::string body = k.source.source.substr(k.source.source.find("extern \"C\" __global__"));
    EXPECT_EQ(count(body, "__expf("), recompute ? 2u : 1u) << "H=" << h;
    EXPECT_EQ(body.find("    float m") != std::string::npos, !recompute) << "H=" << h;
    EXPECT_FALSE(k.compiled->ptxas.spills()) << "H=" << h;
  }
}

// Looped rows read the row again in every pass: var_mean then takes one (Welford per thread,
// Chan's merge across threads), so W1 reads its row twice, not three times; held rows keep
// the exact two-pass statistics.
TEST(CodegenCompile, LoopedLayerNormTakesItsStatisticsInOnePass) {
  for (auto [h, looped] : {std::pair{int64_t{4096}, false}, {int64_t{1} << 20, true}}) {
    auto p = prepare_all(solder::testing::w1_layer_norm(DType::F32), {{h}, {256, h}, {h}, {h}, {h}});  // no split
    ASSERT_EQ(p.kernels.size(), 1u);
    const auto& k = p.kernels[0];
    EXPECT_EQ(k.plan.params.batch == 0, looped) << "H=" << h << " " << k.plan.params.str();
    const std::string body = k.source.source.substr(k.source.source.find("extern \"C\" __global__"));
    EXPECT_EQ(count(body, "welford_add("), looped ? 1u : 0u) << "H=" << h;
    if (looped) {  // the statistics pass, then the output pass walking back
      EXPECT_EQ(count(body, "for (i64 col0 = "), 1u);
      EXPECT_EQ(count(body, "for (i64 cb = "), 1u);
    }
    EXPECT_FALSE(k.compiled->ptxas.spills()) << "H=" << h;
  }
}

// Rows no block holds, on Hopper: split over a cluster, each block holding its share in
// registers, where the looped row read it every pass. Reductions combine the blocks' totals
// pushed into every block's shared memory, one wait on the block's own mbarrier each (cluster
// barriers only after set-up and before exit); var_mean takes one, not two: each block's exact
// two-pass statistics, merged as Welford partials.
TEST(CodegenCompile, ClusterRowsCombineAcrossBlocks) {
  struct Case {
    Fusion f;
    int64_t h;
    unsigned waits;
    int blocks;
  };
  // f32 softmax (two waits per row) holds 8 vectors per thread in clusters of 4, the next row in
  // shared memory; the others 4 per thread in clusters of 8, the prefetch in registers (bf16
  // softmax too: with its division under narrow results, 8 vectors spilled at 64 registers).
  for (const Case& c : {Case{solder::testing::w1_layer_norm(DType::F32), 65536, 1, 8},
                        {solder::testing::w1_layer_norm(DType::F16), 131072, 1, 8},
                        {solder::testing::softmax_fusion(DType::F32), 65536, 2, 4},
                        {solder::testing::softmax_fusion(DType::BF16), 131072, 2, 8},
                        {solder::testing::rms_norm_fusion(DType::BF16), 131072, 1, 8}}) {
    const int64_t h = c.h;
    std::vector<std::vector<int64_t>> shapes;
    for (int v : c.f.inputs()) shapes.push_back(c.f.value(v).shape.size() == 2 ? std::vector<int64_t>{8192, h} : std::vector<int64_t>{h});
    auto p = prepare_all(c.f, shapes);
    ASSERT_EQ(p.kernels.size(), 1u);
    const auto& k = p.kernels[0];
    EXPECT_EQ(k.plan.params.cluster, c.blocks) << c.f.name() << " H=" << h << " " << k.plan.params.str();
    EXPECT_EQ(k.plan.params.prefetch_smem, c.blocks == 4) << c.f.name() << " H=" << h;
    EXPECT_GT(k.plan.params.batch, 0) << c.f.name() << " H=" << h;
    const std::string body = k.source.source.substr(k.source.source.find("extern \"C\" __global__"));
    EXPECT_EQ(count(body, "mbar_wait("), c.waits) << c.f.name() << " H=" << h;
    EXPECT_EQ(count(body, "cluster_sync();"), 2u) << c.f.name() << " H=" << h;
    EXPECT_EQ(count(body, "welford_add("), 0u) << c.f.name() << " H=" << h;  // exact two passes per block
    EXPECT_FALSE(k.compiled->ptxas.spills()) << c.f.name() << " H=" << h;
  }
}

// A reduction over dims apart in memory reads its input as vectors where each lies in one
// unit-stride run (C a multiple of the vector, aligned: general/seg), else one element per
// thread; never VEC elements per thread read one at a time. Runs of a known size under 32
// elements stay one kernel (longer ones split in two: passes/split_gapped_reductions.cpp).
TEST(CodegenCompile, ReductionsOverDimsApartLoadVectorsInRuns) {
  auto apart = [](int64_t c) {
    Fusion f("apart");
    Tensor x = f.input("x", DType::F16, {Dim::sym("A"), Dim::sym("B"), Dim(c)});
    f.output(sum(cast(x, DType::F32), {0, 2}));
    return f;
  };
  auto runs = prepare_all(apart(16), {{2, 1000, 16}});
  ASSERT_EQ(runs.kernels.size(), 1u);
  EXPECT_TRUE(runs.kernels[0].plan.operands[0].segments);
  EXPECT_EQ(runs.kernels[0].plan.params.vec, 8);
  EXPECT_NE(runs.kernels[0].source.source.find("ld_vec<unsigned, 4>((const unsigned*)(P0 + goff(p, 0, rowc, colc)))"),
            std::string::npos);
  auto odd = prepare_all(apart(15), {{2, 1000, 15}});
  ASSERT_EQ(odd.kernels.size(), 1u);
  EXPECT_FALSE(odd.kernels[0].plan.operands[0].segments);
  EXPECT_EQ(odd.kernels[0].plan.params.vec, 1);
  auto misaligned = prepare_all(apart(16), {{2, 1000, 16}}, 2);
  EXPECT_FALSE(misaligned.kernels[0].plan.operands[0].segments);
}

// where(m, x, -inf) over 16-bit x selects bits: x's as loaded or the constant's, with no
// widening and no rounding back; the constant's bits are exact (normal, subnormal, inf).
TEST(CodegenCompile, WhereOverSixteenBitValuesSelectsBits) {
  EXPECT_EQ(bits_literal(DType::F16, 1.0), "0x3c00");
  EXPECT_EQ(bits_literal(DType::F16, -INFINITY), "0xfc00");
  EXPECT_EQ(bits_literal(DType::F16, 65504.0), "0x7bff");
  EXPECT_EQ(bits_literal(DType::F16, 0x1p-24), "0x0001");
  EXPECT_EQ(bits_literal(DType::F16, -0.1), "0xae66");
  EXPECT_EQ(bits_literal(DType::BF16, 1.0), "0x3f80");
  EXPECT_EQ(bits_literal(DType::BF16, -INFINITY), "0xff80");
  for (auto [t, inf] : {std::pair{DType::BF16, "0xff80"}, std::pair{DType::F16, "0xfc00"}}) {
    auto p = prepare_all(solder::testing::sliced_norm(t, "softmax_mask", 768, 0, 0), {{4096, 768}, {768}});
    ASSERT_EQ(p.kernels.size(), 1u);
    const std::string& src = p.kernels[0].source.source;
    EXPECT_NE(src.find(std::string(" : (u16)") + inf + ";"), std::string::npos) << src;
    EXPECT_FALSE(p.kernels[0].compiled->ptxas.spills());
  }
}

// f16/bf16 pairs in the pointwise vector path (a loop over pairs ahead of the element loop): a
// where's condition is emitted for both elements of the pair only from inputs at hand there.
// Here y (one row, H odd) is read one element at a time inside the element loop, so the where
// stays per element; the negation, the products and the sums run in pairs and the kernel compiles.
TEST(CodegenCompile, PairsReadOnlyInputsAtHand) {
  for (DType t : {DType::F16, DType::BF16}) {
    Fusion f("pairs");
    Dim B = Dim::sym("B"), H = Dim::sym("H");
    Tensor x = f.input("x", t, {B, H});
    Tensor y = f.input("y", t, {Dim(1), H});
    Tensor c = f.input("c", t, {B, Dim(1)});
    for (Tensor r : {neg(x), abs(x) + 0.5, x - c, x * y, where(gt(x, y), x, c), where(gt(x, c), neg(x), x * 3.0)})
      f.output(r);
    for (int64_t h : {133, 1024}) {
      auto p = prepare_all(f, {{45, h}, {1, h}, {45, 1}});
      ASSERT_EQ(p.kernels.size(), 1u);
      const std::string& src = p.kernels[0].source.source;
      EXPECT_NE(src.find("for (int j2 = 0; j2 < VEC / 2; ++j2)"), std::string::npos) << src;
      EXPECT_FALSE(p.kernels[0].compiled->ptxas.spills());
    }
  }
}

// A where in pairs whose enclosing expression then falls back to elements (y, one row of odd
// K, is read element by element): the pair loop's code for the condition is dropped with it,
// and a later where in pairs on the same condition emits it again (seed 51 #030 failed to
// compile: the condition's names were kept without their code).
TEST(CodegenCompile, PairedWhereConditionsSurviveAFallBack) {
  Fusion f("paired_where");
  Dim B = Dim::sym("B"), M = Dim::sym("M"), K = Dim::sym("K");
  Tensor x = f.input("x", DType::BF16, {B, M, K});
  Tensor m = f.input("m", DType::Bool, {B, Dim(1), Dim(1)});
  Tensor y = f.input("y", DType::BF16, {Dim(1), Dim(1), K});
  Tensor z = f.input("z", DType::BF16, {M, K});
  Tensor n = f.input("n", DType::Bool, {Dim(1), Dim(1), K});
  Tensor zero = constant(f, 0.0, DType::BF16);
  f.output(clamp(where(n, sigmoid(where(m, x, zero) * y * z), zero), -1.5, 2.0));
  auto p = prepare_all(f, {{16, 1000, 333}, {16, 1, 1}, {1, 1, 333}, {1000, 333}, {1, 1, 333}});
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_FALSE(p.kernels[0].compiled->ptxas.spills());
}

// The unary ops added after the first table (log1p, expm1 and the whole-number ops) compile in
// every float dtype and over integers (whose values the whole-number ops give back).
TEST(CodegenCompile, LateUnaryOpsCompile) {
  for (DType t : {DType::F32, DType::F16, DType::BF16, DType::F64}) {
    Fusion f("late_unary");
    Dim B = Dim::sym("B"), H = Dim::sym("H");
    Tensor x = f.input("x", t, {B, H});
    f.output(log1p(abs(x)) + expm1(x) + floor(x) + ceil(x) + trunc(x) + round(x));
    auto p = prepare_all(f, {{45, 133}});
    ASSERT_EQ(p.kernels.size(), 1u);
    EXPECT_FALSE(p.kernels[0].compiled->ptxas.spills()) << dtype_name(t);
    for (const char* fn : {"log1p", "expm1", "floor", "ceil", "trunc", "rint"})
      EXPECT_NE(p.kernels[0].source.source.find(fn), std::string::npos) << fn << " in the " << dtype_name(t) << " kernel";
  }
  Fusion g("late_unary_i32");
  Tensor i = g.input("i", DType::I32, {Dim::sym("N")});
  g.output(floor(i) + round(i));
  auto p = prepare_all(g, {{1001}});
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].source.source.find("floorf("), std::string::npos) << "an integer's floor is itself";
}

// An f32 division of two f16 values whose only readers round to f16 takes div_f16 (the
// hardware reciprocal and one exact-remainder correction: rounded to f16 it is the correctly
// rounded quotient's rounding for every pair, bench/experiments/f16_div_check.cu); other f32
// quotients of a kernel whose results are all f16/bf16/fp8 take div_narrow (the reciprocal's
// product, an approximation below those dtypes' rounding); a kernel with an f32 result keeps
// the IEEE division for them (a / b, or div_checked with a / b where it sets dslow).
TEST(CodegenCompile, HalfQuotientsTakeTheShortDivision) {
  // How many of the kernel's divisions (each appears once per code path) take div_f16,
  // div_narrow and the IEEE division (div_checked is one).
  auto divisions = [](DType t, double k, bool keep_f32) {
    Fusion f("quotient");
    Dim B = Dim::sym("B"), H = Dim::sym("H");
    Tensor x = f.input("x", t, {B, H});
    Tensor y = f.input("y", t, {B, H});
    Tensor q = cast(x, DType::F32) / cast(y, DType::F32);
    f.output(cast(q, t));
    f.output(cast(cast(x, DType::F32) / k, t));
    if (keep_f32) f.output(q);
    auto p = prepare_all(f, {{64, 1024}, {64, 1024}});
    EXPECT_FALSE(p.kernels.at(0).compiled->ptxas.spills());
    const std::string& src = p.kernels.at(0).source.source;
    const std::string kernel = src.substr(src.find("extern \"C\""));
    auto count = [&](const std::regex& re) {
      return std::distance(std::sregex_iterator(kernel.begin(), kernel.end(), re), std::sregex_iterator());
    };
    const auto f16 = count(std::regex(R"(= div_f16\()")), narrow = count(std::regex(R"(= div_narrow\()")),
               ieee = count(std::regex(R"(= (v\d+ / |div_checked\())"));
    EXPECT_GT(f16 + narrow + ieee, 0) << kernel;
    const double all = static_cast<double>(f16 + narrow + ieee);
    return std::array<double, 3>{f16 / all, narrow / all, ieee / all};
  };
  using Shares = std::array<double, 3>;  // div_f16, div_narrow, IEEE
  EXPECT_EQ(divisions(DType::F16, 3.0, false), (Shares{1.0, 0.0, 0.0}));   // both quotients
  EXPECT_EQ(divisions(DType::F16, 0.1, false), (Shares{0.5, 0.5, 0.0}));   // 0.1 is no f16 value
  EXPECT_EQ(divisions(DType::F16, 3.0, true), (Shares{0.5, 0.0, 0.5}));    // x / y is an f32 output too
  EXPECT_EQ(divisions(DType::BF16, 3.0, false), (Shares{0.0, 1.0, 0.0}));  // bf16: tiny divisors overflow div_f16's reciprocal
}
