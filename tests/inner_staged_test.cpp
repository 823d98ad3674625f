// Inner plans with staged operands (Access::Staged): a norm whose x is transposed in memory while
// its residual and output are rows takes the inner scheduler with x staged through shared
// memory, and a norm whose output is written transposed stages the output; the kernels compile
// for sm_90 without spills at odd sizes; an input whose innermost row dim is strided stays
// General; pinned shapes keep the tiles' shared memory.
#include <gtest/gtest.h>

#include "support/mixed_layout_norms.h"

#include "programs/run_inputs.h"
#include "solder/executor.h"
#include "solder/fusion.h"

using namespace solder;
using solder::testing::norm_of_mixed;

namespace {


struct Compiled {
  std::vector<LaunchRecord> records;
  std::vector<KernelSourceInfo> sources;
};
Compiled compile(const Fusion& f, const Bindings& b, const std::string& plan = "") {
  ExecutorOptions o;
  o.plan = plan;
  Executor ex(f, o);
  Compiled c;
  c.records = ex.compile_for(resolve_input_shapes(f, {}, b), &c.sources);
  return c;
}
bool stages(const Compiled& c) {
  for (const auto& s : c.sources)
    if (s.source.find("// staged tiles:") != std::string::npos) return true;
  return false;
}

}  // namespace

// The sweep's cases (seed 6 #056, #045, #084) and odd sizes: inner, no spills, staged where
// many rows let a block take runs of rows.
TEST(InnerStaged, NormsOfTransposedInputsStageThem) {
  const std::vector<Bindings> sizes = {{{"B", 16384}, {"H", 770}}, {{"B", 16384}, {"H", 3000}}, {{"B", 8192}, {"H", 770}},
                                       {{"B", 37}, {"H", 1030}},   {{"B", 333}, {"H", 4097}},    {{"B", 1000}, {"H", 3}}};
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (const char* kind : {"rms", "rms_plain", "ln", "softmax"})
      for (const Bindings& b : sizes) {
        const Fusion f = norm_of_mixed(t, kind);
        std::string what = f.name() + " " + std::string(dtype_name(t));
        for (const auto& [k, v] : b) what += " " + k + "=" + std::to_string(v);
        const Compiled c = compile(f, b);
        ASSERT_EQ(c.records.size(), 1u) << what;
        EXPECT_EQ(c.records[0].category, "inner-reduction") << what;
        EXPECT_EQ(c.records[0].spill_bytes, 0) << what << ": " << c.records[0].params;
        // Rows of a block (a warp or more each) up to 1024 threads whose runs reach 16 bytes:
        // many rows; few rows spread over the SMs, a block each (B = 37, 333) stay in place.
        if (b.at("B") >= 8192) EXPECT_TRUE(stages(c)) << what << ": " << c.records[0].params;
      }
}

// A transposed input whose rows are not one linear index but whose innermost row dim is
// unit-stride (a batched [N, K, M] stored so that the normalized K is strided: rows [N, M], M at
// unit stride) is staged, each row at its own offset; one whose innermost row dim is strided
// (stored [K, M, N]: M strided) is read element by element.
TEST(InnerStaged, RowsStageWhereTheirInnermostDimIsUnitStride) {
  for (const bool unit : {true, false}) {
    Fusion f("batched_T");
    Tensor x = unit ? permute(f.input("xt", DType::F32, {Dim::sym("N"), Dim::sym("K"), Dim::sym("M")}), {0, 2, 1})
                    : permute(f.input("xt", DType::F32, {Dim::sym("K"), Dim::sym("M"), Dim::sym("N")}), {2, 1, 0});
    Tensor r = f.input("r", DType::F32, {Dim::sym("N"), Dim::sym("M"), Dim::sym("K")});
    f.output(rms_norm(x + r, 1, std::nullopt));
    const Compiled c = compile(f, {{"N", 4}, {"M", 2048}, {"K", 770}});
    ASSERT_EQ(c.records.size(), 1u);
    EXPECT_EQ(c.records[0].spill_bytes, 0);
    EXPECT_EQ(stages(c), unit) << c.records[0].params;
  }
}

// Short rows read in place (seed 9 #114: var_mean over the 64 of [128, 64, 4097], x permuted, y
// contiguous): the resident blocks' sectors of y fit L1, where tiles only add barriers (the
// staged norms above are the long-row side).
TEST(InnerStaged, ShortRowsReadInPlace) {
  for (const int64_t m : {64, 100}) {
    Fusion f("var_mean_perm");
    Tensor x = permute(f.input("xt", DType::BF16, {Dim::sym("K"), Dim::sym("B"), Dim::sym("M")}), {1, 2, 0});
    Tensor y = f.input("y", DType::BF16, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
    VarMean vm = var_mean(cast(x, DType::F32) * cast(y, DType::F32), {1});
    f.output(vm.var);
    f.output(vm.mean);
    const Compiled c = compile(f, {{"B", 128}, {"M", m}, {"K", 4097}});
    ASSERT_EQ(c.records.size(), 1u) << m;
    EXPECT_EQ(c.records[0].spill_bytes, 0) << m;
    EXPECT_FALSE(stages(c)) << m << ": " << c.records[0].params;
  }
}

// Norms whose output is unit-stride along the rows (softmax over dim 0 of a transposed x; seed 9
// #047's softmax over the middle axis of a transposed x) stage the output: rows store into the
// block's tile, which goes out in runs of rows. No spills at odd sizes. (Rows that take a block
// of their own, N = 4097 at vec 1 over 480 threads, are not staged: a gap.)
TEST(InnerStaged, OutputsUnitStrideAlongTheRowsStageThem) {
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (const char* kind : {"softmax", "ln"}) {
      const std::string what = std::string(kind) + " " + std::string(dtype_name(t));
      for (const Bindings& b : {Bindings{{"B", 16384}, {"N", 1000}}, Bindings{{"B", 4099}, {"N", 777}}}) {
        const Compiled c = compile(solder::testing::norm_into_transposed(t, kind, false), b);
        ASSERT_EQ(c.records.size(), 1u) << what;
        EXPECT_EQ(c.records[0].spill_bytes, 0) << what << ": " << c.records[0].params;
        EXPECT_TRUE(stages(c)) << what << ": " << c.records[0].params;
      }
      for (const Bindings& b : {Bindings{{"B", 32}, {"N", 1000}, {"K", 512}}, Bindings{{"B", 3}, {"N", 333}, {"K", 4097}}}) {
        const Compiled c = compile(solder::testing::norm_into_transposed(t, kind, true), b);
        ASSERT_EQ(c.records.size(), 1u) << what;
        EXPECT_EQ(c.records[0].category, "inner-reduction") << what;
        EXPECT_EQ(c.records[0].spill_bytes, 0) << what << ": " << c.records[0].params;
        EXPECT_TRUE(stages(c)) << what << ": " << c.records[0].params;
      }
    }
}

// Pinned shapes of a staged plan (more rows per block, fewer threads per row, no prefetch):
// the tiles' shared memory follows the pinned shape, and the kernels compile without spills.
TEST(InnerStaged, PinnedShapesCompile) {
  for (const char* plan : {"threads_per_row=64,rows_per_block=4", "threads_per_row=64,rows_per_block=16",
                           "threads_per_row=64,rows_per_block=8,prefetch=0", "threads_per_row=64,rows_per_block=8,prefetch=1",
                           "threads_per_row=64,rows_per_block=8,vec=1"}) {
    const Fusion f = norm_of_mixed(DType::F32, "rms");
    const Compiled c = compile(f, {{"B", 1000}, {"H", 770}}, plan);
    ASSERT_EQ(c.records.size(), 1u) << plan;
    EXPECT_EQ(c.records[0].spill_bytes, 0) << plan << ": " << c.records[0].params;
    EXPECT_TRUE(stages(c)) << plan;
  }
}
