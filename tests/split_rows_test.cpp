// Few long rows split over several blocks (inner scheduler, plan_split): which plans the model
// picks on the H100 profile (few long rows: split over a cluster or the grid; many rows or
// short rows: unchanged), the plans printing, parsing and validating, their launch geometry
// and scratch, and every split kernel compiling for sm_90a without spills (f32/f16/bf16, odd
// sizes, several outputs, fused epilogues). The GPU tier: tests/gpu/split_rows_test.cpp.
#include <gtest/gtest.h>

#include "support/split_rows_programs.h"

#include "pipeline/compile_kernel.h"
#include "pipeline/pipeline.h"
#include "runtime/kernel_cache.h"
#include "programs/run_inputs.h"
#include "runtime/device_info.h"
#include "schedule/launch_grid.h"
#include "schedule/scheduler.h"
#include "solder/error.h"
#include "solder/executor.h"

using namespace solder;
using namespace solder::testing;

namespace {

// The first kernel segment's candidates on the H100 profile, inputs contiguous.
std::vector<KernelPlan> plans(const Fusion& f, const Bindings& sizes) {
  SegmentedFusion sf = lower(f);
  const Bindings b = bind_shapes(sf.fusion, resolve_input_shapes(f, {}, sizes));
  int si = 0;
  while (sf.segments.at(si).kind != SegmentKind::Kernel) ++si;
  const LaunchFacts facts = contiguous_facts(sf, si, b);
  const KernelShape ks = analyze_kernel(sf.fusion, sf.segments.at(si));
  const DeviceInfo dev = h100_profile();
  const ScheduleContext cx{sf.fusion, sf.segments.at(si), si, ks, facts, dev};
  return choose_scheduler(cx).scheduler->candidates(cx);
}

// The first kernel segment prepared as the executor would (inputs contiguous): its plan and source.
PreparedKernel prepared(const Fusion& f, const Bindings& sizes) {
  SegmentedFusion sf = lower(f);
  const Bindings b = bind_shapes(sf.fusion, resolve_input_shapes(f, {}, sizes));
  const LaunchFacts facts = contiguous_facts(sf, 0, b);
  const KernelShape ks = analyze_kernel(sf.fusion, sf.segments.at(0));
  return prepare_kernel(sf, 0, ks, facts, h100_profile(), KernelCache::global());
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// The plan that runs (the first that compiles without spills), as the launch records print it.
std::vector<LaunchRecord> compiled(const Fusion& f, const Bindings& sizes) {
  Executor ex(f);
  return ex.compile_for(resolve_input_shapes(f, {}, sizes));
}

}  // namespace

TEST(SplitRows, FewLongRowsSplitOverTheGrid) {
  // Two rows of a million f32 elements: 66 blocks each fill the 132 SMs once.
  const auto p = plans(split_group_norm(DType::F32), {{"N", 2}, {"G", 1000}, {"H", 1024}});
  ASSERT_FALSE(p.empty());
  const KernelParams& k = p.front().params;
  EXPECT_EQ(k.row_split, 66) << k.str();
  EXPECT_EQ(k.cluster, 1);
  EXPECT_GT(k.batch, 0);
  EXPECT_FALSE(k.prefetch);
  EXPECT_NE(p.front().why.find("each split over 66 blocks"), std::string::npos) << p.front().why;
  // The old plans follow (spill retries; the split's smaller shares first).
  EXPECT_EQ(p.back().params.row_split, 1);
  EXPECT_EQ(p.back().params.batch, 0);
}

TEST(SplitRows, ALoopedFallbackAfterASpilledClusterIsSpreadToo) {
  // 32 rows of 333,000 bf16 elements: the first plan is already a cluster of 8 per row (the
  // split model leaves it), and it spills. The retries must not fall to one block per row (32
  // blocks on 132 SMs): the looped row's own split comes before it.
  const auto p = plans(split_group_norm(DType::BF16), {{"N", 32}, {"G", 1000}, {"H", 333}});
  ASSERT_GE(p.size(), 2u);
  EXPECT_GT(p.front().params.cluster, 1) << p.front().params.str();
  size_t looped = 0;
  while (looped < p.size() && p[looped].params.batch > 0) ++looped;
  ASSERT_LT(looped, p.size());
  bool spread = false;
  for (size_t i = 1; i < looped; ++i) spread |= p[i].params.cluster * p[i].params.row_split > 1;
  EXPECT_TRUE(spread) << "no spread plan between the spilled cluster and the looped row";
}

TEST(SplitRows, FewLongPlainReductionsStreamTheirShares) {
  // 64 rows of 409,700 bf16 elements reduced to their variance, nothing else stored (seed 4
  // #045): holding a share saves no bytes, so each row is split over blocks of 512 threads that
  // stream their shares (looped), the register cap keeping 2048 threads per SM (min_blocks=4),
  // the grid resident at once (at most 4 blocks per SM) and every SM with two blocks or more.
  // Was a cluster of 8 blocks of 1024 threads holding 13 vectors each, one block per SM.
  const auto p = plans(split_var12(DType::BF16), {{"B", 64}, {"M", 100}, {"K", 4097}});
  ASSERT_GE(p.size(), 2u);
  const KernelParams& k = p.front().params;
  EXPECT_EQ(k.batch, 0) << k.str();
  EXPECT_EQ(k.cluster, 1);
  EXPECT_GT(k.row_split, 1);
  EXPECT_EQ(k.threads_per_row, 512);
  EXPECT_EQ(k.min_blocks, 4);
  EXPECT_EQ(k.vec, 4);
  EXPECT_EQ(k.col_vec, 0);
  EXPECT_GE(64 * k.row_split, 2 * 132);
  EXPECT_LE(64 * k.row_split, 4 * 132);
  EXPECT_NE(p.front().why.find("nothing held"), std::string::npos) << p.front().why;
  EXPECT_TRUE(p.front().problems().empty());
  EXPECT_EQ(parse_params(k.str()), k);
  // The retry after spills under the 32-register cap: the same split, 1024 threads resident.
  EXPECT_EQ(p[1].params.row_split, k.row_split);
  EXPECT_EQ(p[1].params.min_blocks, 2);
}

// Seed 9 #038 and #128: plain reductions over dims [1, 2] of an input stored [K, B, M] (the
// sweep's "perm" layout: General, element by element). Its bytes count in the split model (they
// counted 0, and #128 ran on 32 blocks, one per row); both stream over the grid without spills
// (#038, whose other input is contiguous, now through the transpose tiles).
TEST(SplitRows, PlainReductionsOfPermutedInputsStreamOverTheGrid) {
  {
    Fusion f("fewrows_mean_mul_perm");
    Tensor xs = f.input("xs", DType::F32, {Dim::sym("K"), Dim::sym("B"), Dim::sym("M")});
    Tensor y = f.input("y", DType::F32, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
    f.output(sqrt(abs(mean(permute(xs, {1, 2, 0}) * y, {1, 2}))));
    const auto r = compiled(f, {{"B", 32}, {"M", 1000}, {"K", 512}});
    ASSERT_FALSE(r.empty());
    // x permuted against y: the transpose tiles (a tile per kept index) split over the grid.
    const LaunchRecord& k = r[0].category == "view" ? r.at(1) : r[0];
    EXPECT_EQ(k.category, "transpose");
    EXPECT_EQ(k.spill_bytes, 0) << k.params;
    EXPECT_GE(k.grid_x * k.grid_y, 2u * 132) << k.params;
  }
  {
    Fusion f("fewrows_amin_abs_perm");
    Tensor xs = f.input("xs", DType::F32, {Dim::sym("K"), Dim::sym("B"), Dim::sym("M")});
    f.output(min(abs(permute(xs, {1, 2, 0})), {1, 2}));
    for (const Bindings& b : std::vector<Bindings>{{{"B", 32}, {"M", 128}, {"K", 4097}}, {{"B", 7}, {"M", 33}, {"K", 5001}}}) {
      const auto r = compiled(f, b);
      ASSERT_FALSE(r.empty());
      const LaunchRecord& k = r[0].category == "view" ? r.at(1) : r[0];
      EXPECT_EQ(k.category, "inner-reduction");
      EXPECT_NE(k.params.find("looped row_split="), std::string::npos) << k.params;
      EXPECT_EQ(k.spill_bytes, 0) << k.params;
      EXPECT_GT(k.grid_x, static_cast<unsigned>(b.at("B"))) << k.params;
    }
  }
}

// Seed 10 #133: var_mean over [0, 2] of x * y, f32 [128, 128, 512] (rows of 64K elements in
// segments of 512). The streamed split and the held cluster of 4 per row move the same bytes
// per SM; the streamed shares take the tie (the cluster read its share in one shot at a block
// per SM, wave after wave).
TEST(SplitRows, PlainReductionsStreamWhereAClusterMovesAsMuch) {
  Fusion f("var_mean_02");
  Tensor x = f.input("x", DType::F32, {Dim::sym("A"), Dim::sym("B"), Dim::sym("C")});
  Tensor y = f.input("y", DType::F32, {Dim::sym("A"), Dim::sym("B"), Dim::sym("C")});
  VarMean vm = var_mean(x * y, {1, 2});
  f.output(vm.var);
  f.output(vm.mean);
  const auto r = compiled(f, {{"A", 128}, {"B", 128}, {"C", 512}});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_NE(r[0].params.find("looped row_split="), std::string::npos) << r[0].params;
  EXPECT_EQ(r[0].params.find("cluster"), std::string::npos) << r[0].params;
  EXPECT_EQ(r[0].spill_bytes, 0) << r[0].params;
}

TEST(SplitRows, LayerNormOfSixteenRowsOfAMillion) {
  const auto p = plans(split_row_program(DType::F32, "layer_norm"), {{"B", 16}, {"H", 1 << 20}});
  const KernelParams& k = p.front().params;
  EXPECT_GT(k.row_split, 8) << k.str();
  EXPECT_EQ(k.resident, 0);
  // Several split candidates, each holding fewer vectors per thread than the one before.
  int splits = 0, batch = 1 << 20;
  for (const KernelPlan& pl : p)
    if (pl.params.row_split > 1 || pl.params.cluster > 1) {
      if (pl.params.prefetch) break;  // the old cluster plans
      EXPECT_LT(pl.params.batch, batch);
      batch = pl.params.batch;
      ++splits;
    }
  EXPECT_GE(splits, 2);
}

TEST(SplitRows, RowsNoSplitHoldsStreamTheirShares) {
  // Two f32 rows of 2^23 elements (with weight and bias, 96 MB read per row): no block's share
  // fits its registers at any split, so each block streams its share once per pass (looped).
  const auto p = plans(split_row_program(DType::F32, "layer_norm"), {{"B", 2}, {"H", 1 << 23}});
  const KernelParams& k = p.front().params;
  EXPECT_GT(k.row_split, 1) << k.str();
  EXPECT_EQ(k.batch, 0);
  EXPECT_EQ(k.threads_per_row, k.threads);
  EXPECT_NE(p.front().why.find("streaming its share"), std::string::npos) << p.front().why;
  EXPECT_TRUE(p.front().problems().empty());
  EXPECT_EQ(parse_params(k.str()), k);
}

TEST(SplitRows, ManyRowsOrShortRowsAreUnchanged) {
  // Rows fill the SMs: no split and no note.
  auto p = plans(split_row_program(DType::F16, "layer_norm"), {{"B", 8192}, {"H", 4096}});
  EXPECT_EQ(p.front().params.row_split, 1);
  EXPECT_TRUE(p.front().why.empty());
  p = plans(split_row_program(DType::F32, "layer_norm"), {{"B", 132}, {"H", 1 << 20}});
  EXPECT_EQ(p.front().params.row_split, 1);
  // Few short rows: the exchanges would cost more than the split saves.
  p = plans(split_row_program(DType::F32, "softmax"), {{"B", 16}, {"H", 1024}});
  EXPECT_EQ(p.front().params.row_split, 1);
  EXPECT_EQ(p.front().params.cluster, 1);
  EXPECT_NE(p.front().why.find("not split"), std::string::npos) << p.front().why;
  // Rows of tens of KB: a split would save a fifth, but less than the fixed costs the model
  // leaves out (seed 4 #083, rms norm f32 16 x 2048; #091, 64 x 5140).
  for (const Bindings& b : std::vector<Bindings>{{{"B", 16}, {"H", 2048}}, {{"B", 64}, {"H", 5140}}}) {
    p = plans(split_row_program(DType::F32, "rms_norm"), b);
    EXPECT_EQ(p.front().params.row_split, 1) << p.front().params.str();
    EXPECT_EQ(p.front().params.cluster, 1) << p.front().params.str();
  }
}

TEST(SplitRows, PlansPrintParseAndValidate) {
  const auto p = plans(split_group_norm(DType::F32), {{"N", 2}, {"G", 1000}, {"H", 1024}});
  const KernelParams& k = p.front().params;
  EXPECT_NE(k.str().find("row_split=66"), std::string::npos) << k.str();
  EXPECT_EQ(parse_params(k.str()), k);
  EXPECT_TRUE(p.front().problems().empty());
  KernelPlan bad = p.front();
  bad.params.prefetch = true;
  EXPECT_FALSE(bad.problems().empty());
  bad = p.front();
  bad.params.cluster = 2;
  EXPECT_FALSE(bad.problems().empty());
  bad = p.front();
  bad.params.resident = 1;
  EXPECT_FALSE(bad.problems().empty());
  EXPECT_THROW(parse_params("row_split=x"), Error);
}

TEST(SplitRows, GridAndScratch) {
  Fusion f = split_group_norm(DType::F32);
  const auto p = plans(f, {{"N", 2}, {"G", 1000}, {"H", 1024}});
  const KernelPlan& plan = p.front();
  SegmentedFusion sf = lower(f);
  const Bindings b = bind_shapes(sf.fusion, resolve_input_shapes(f, {}, {{"N", 2}, {"G", 1000}, {"H", 1024}}));
  const LaunchFacts facts = contiguous_facts(sf, 0, b);
  const Grid g = launch_grid(plan, facts, h100_profile(), 2);
  EXPECT_EQ(g.x, 2u * 66u);
  EXPECT_EQ(g.cluster, 1u);
  const GridScratch s = grid_scratch(plan, facts, g, 16);
  EXPECT_EQ(s.counters, 4);  // next ticket, blocks finished, two rows
  EXPECT_EQ(s.bytes, 16 + 132 * 16);
  // A plan whose batches cannot cover the row is refused, not launched.
  KernelPlan short_plan = plan;
  short_plan.params.batch = 1;
  EXPECT_THROW(launch_grid(short_plan, facts, h100_profile(), 2), Error);
  // Nor one whose row has more blocks than the device holds at once (they wait for each other).
  KernelPlan wide = plan;
  wide.params.row_split = 300;
  wide.params.batch = 1;
  EXPECT_NO_THROW(launch_grid(wide, facts, h100_profile(), 3));
  EXPECT_THROW(launch_grid(wide, facts, h100_profile(), 2), Error);
}

TEST(SplitRows, SplitKernelsCompileWithoutSpills) {
  struct Case {
    Fusion f;
    Bindings sizes;
  };
  std::vector<Case> cases;
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    cases.push_back({split_group_norm(t), {{"N", 3}, {"G", 1000}, {"H", 1025}}});
    for (const char* kind : {"layer_norm", "rms_norm", "softmax", "var_mean", "var0", "sum_max_min"})
      for (const Bindings& b : std::vector<Bindings>{{{"B", 1}, {"H", 1000 * 1024 + 1}},
                                                     {{"B", 2}, {"H", 1000 * 1024 + 1}},
                                                     {{"B", 3}, {"H", 409700}}})
        cases.push_back({split_row_program(t, kind), b});
    cases.push_back({split_var12(t), {{"B", 64}, {"M", 100}, {"K", 4097}}});
    cases.push_back({split_var12(t), {{"B", 5}, {"M", 1}, {"K", 1000 * 1024 + 1}}});
    cases.push_back({split_group_norm(t), {{"N", 2}, {"G", 1000}, {"H", 1024}}});
    cases.push_back({split_group_norm(t), {{"N", 3}, {"G", 7}, {"H", 100003}}});
    cases.push_back({split_group_norm(t), {{"N", 1}, {"G", 1}, {"H", 1000 * 1024 + 1}}});
  }
  cases.push_back({split_row_program(DType::F32, "layer_norm"), {{"B", 16}, {"H", 1 << 20}}});
  cases.push_back({split_row_program(DType::BF16, "softmax"), {{"B", 1}, {"H", 4097 * 128}}});
  // Looped shares (rows no split holds): every kind, odd lengths.
  for (const char* kind : {"layer_norm", "rms_norm", "softmax", "var_mean", "sum_max_min"}) {
    cases.push_back({split_row_program(DType::F32, kind), {{"B", 2}, {"H", (1 << 23) + 1}}});
    cases.push_back({split_row_program(DType::BF16, kind), {{"B", 1}, {"H", 20000001}}});
  }
  for (const Case& c : cases) {
    std::string what = c.f.name();
    for (const auto& [k, v] : c.sizes) what += " " + k + "=" + std::to_string(v);
    const auto recs = compiled(c.f, c.sizes);
    ASSERT_FALSE(recs.empty()) << what;
    bool split = false;
    for (const LaunchRecord& r : recs) {
      EXPECT_EQ(r.spill_bytes, 0) << what << ": " << r.params;
      split |= r.params.find("row_split=") != std::string::npos || r.params.find("cluster=") != std::string::npos;
    }
    EXPECT_TRUE(split) << what << ": " << recs.front().params;
  }
}

// The generated code: a ticket per block, one exchange per reduction (var_mean's statistics
// merged in one; softmax two), rank 0 storing kept-level outputs, the counters reset by the
// last blocks, the partials' size per block; streamed shares walk the block's vectors of RT.
TEST(SplitRows, GeneratedCode) {
  PreparedKernel k = prepared(split_row_program(DType::F32, "layer_norm"), {{"B", 2}, {"H", 1000 * 1024}});
  ASSERT_GT(k.plan.params.row_split, 1) << k.plan.params.str();
  std::string body = k.source.source.substr(k.source.source.find("extern \"C\" __global__"));
  EXPECT_EQ(count(body, "atomicAdd(gctr, 1u)"), 1u);
  EXPECT_EQ(count(body, "grid_arrive_wait("), 1u) << "var_mean: one exchange";
  EXPECT_NE(body.find("gctr[0] = 0u;"), std::string::npos) << "tickets not reset";
  EXPECT_NE(body.find("*gcount = 0u;"), std::string::npos) << "row counter not reset";
  EXPECT_EQ(k.source.scratch_per_cell, 16);
  EXPECT_TRUE(k.source.scratch_init.empty());
  k = prepared(split_row_program(DType::BF16, "softmax"), {{"B", 2}, {"H", 1000 * 1024}});
  body = k.source.source.substr(k.source.source.find("extern \"C\" __global__"));
  EXPECT_EQ(count(body, "grid_arrive_wait("), 2u) << "softmax: max, then the sum";
  EXPECT_EQ(k.source.scratch_per_cell, 32);
  k = prepared(split_row_program(DType::F32, "sum_max_min"), {{"B", 3}, {"H", 1000 * 1024}});
  body = k.source.source.substr(k.source.source.find("extern \"C\" __global__"));
  EXPECT_EQ(count(body, "grid_arrive_wait("), 3u);
  EXPECT_EQ(count(body, "crank == 0u)"), 3u) << "kept-level outputs stored by rank 0 only";
  k = prepared(split_row_program(DType::F32, "layer_norm"), {{"B", 2}, {"H", 1 << 23}});
  ASSERT_EQ(k.plan.params.batch, 0) << k.plan.params.str();
  body = k.source.source.substr(k.source.source.find("extern \"C\" __global__"));
  EXPECT_EQ(count(body, "welford_add("), 1u);
  EXPECT_EQ(count(body, "for (i64 col0 = (i64)rt * VEC; col0 < C; col0 += (i64)RT * VEC)"), 1u);
  EXPECT_EQ(count(body, "for (i64 cb = (C - 1) / (RT * VEC) * (RT * VEC)"), 1u);
}

// Plans pinned by hand (`--plan row_split=S`): the scheduler's first plan reshaped (the batch
// that covers the row, no prefetch, tickets or resident weights), compiling without spills.
TEST(SplitRows, PinnedPlansCompile) {
  for (const SplitPin& c : split_row_pins()) {
    Fusion f = split_row_program(c.t, c.kind);
    ExecutorOptions options;
    options.plan = c.plan;
    Executor ex(f, options);
    const auto recs = ex.compile_for(resolve_input_shapes(f, {}, c.sizes));
    ASSERT_EQ(recs.size(), 1u) << c.kind;
    const KernelParams p = parse_params(recs[0].params);
    EXPECT_GT(p.row_split, 1) << c.kind << " " << c.plan << ": " << recs[0].params;
    EXPECT_FALSE(p.prefetch || p.tickets || p.resident) << recs[0].params;
    EXPECT_EQ(recs[0].spill_bytes, 0) << c.kind << " " << c.plan << ": " << recs[0].params;
  }
}
