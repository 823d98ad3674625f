// The outer (column) reduction scheduler: which scheduler takes which access pattern on the
// H100 profile (and why the others could not), its plans' parts, and every kernel of its
// template compiling for sm_90a without spills for f32/f16/bf16 at odd sizes and in the grid
// form. The GPU tier (tests/gpu/outer_reduction_test.cpp) runs them against the reference.
#include <gtest/gtest.h>

#include "programs/run_inputs.h"
#include "ops/workloads.h"
#include "pipeline/compile_kernel.h"
#include "pipeline/pipeline.h"
#include "runtime/device_info.h"
#include "schedule/launch_grid.h"
#include "schedule/scheduler.h"
#include "solder/error.h"
#include "solder/executor.h"

using namespace solder;

namespace {

std::vector<std::vector<int64_t>> contiguous_strides(const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<std::vector<int64_t>> out;
  for (const auto& sh : shapes) {
    std::vector<int64_t> st(sh.size());
    int64_t acc = 1;
    for (int d = static_cast<int>(sh.size()) - 1; d >= 0; --d) {
      st[d] = acc;
      acc *= sh[d];
    }
    out.push_back(st);
  }
  return out;
}

// The scheduler choice for kernel segment 0 of `f` at `sizes`; `input_strides` (per fusion
// input, empty: contiguous) gives views such as transposes. Also the candidates.
struct Scheduled {
  std::string scheduler;
  std::vector<std::string> passed_over;
  std::vector<KernelPlan> plans;
  LaunchFacts facts;
};
Scheduled choice_for(const Fusion& f, const Bindings& sizes, const std::vector<std::vector<int64_t>>& input_strides = {}) {
  SegmentedFusion sf = lower(f);
  const Bindings b = bind_shapes(sf.fusion, resolve_input_shapes(f, {}, sizes));
  int si = 0;
  while (sf.segments.at(si).kind != SegmentKind::Kernel) ++si;
  const Segment& s = sf.segments.at(si);
  KernelShape ks = analyze_kernel(sf.fusion, s);
  std::vector<std::vector<int64_t>> shapes;
  for (int v : ks.operands) shapes.push_back(eval_shape(sf.fusion.value(v).shape, b));
  std::vector<std::vector<int64_t>> strides = contiguous_strides(shapes);
  for (size_t i = 0; i < input_strides.size(); ++i)
    if (!input_strides[i].empty())
      for (size_t k = 0; k < ks.operands.size(); ++k)
        if (ks.operands[k] == sf.fusion.inputs()[i]) strides[k] = input_strides[i];
  Scheduled c;
  c.facts = kernel_facts(sf, si, ks, shapes, strides, std::vector<uint64_t>(ks.operands.size(), kAlignClass));
  const DeviceInfo dev = h100_profile();
  const ScheduleContext cx{sf.fusion, s, si, ks, c.facts, dev};
  const SchedulerChoice sc = choose_scheduler(cx);
  c.scheduler = sc.scheduler->name();
  c.passed_over = sc.passed_over;
  c.plans = sc.scheduler->candidates(cx);
  return c;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

Fusion reduce_program(DType t, std::vector<int64_t> shape_syms_dims, Op op, std::vector<int64_t> axes) {
  Fusion f("outer_probe");
  Shape shape;
  const char* names[] = {"A", "B", "H", "W"};
  for (size_t i = 0; i < shape_syms_dims.size(); ++i)
    shape.push_back(shape_syms_dims[i] > 0 ? Dim(shape_syms_dims[i]) : Dim::sym(names[i]));
  Tensor x = f.input("x", t, shape);
  Tensor xf = t == DType::F32 ? x : cast(x, DType::F32);
  switch (op) {
    case Op::Sum: f.output(sum(xf, axes)); break;
    case Op::Mean: f.output(cast(mean(xf, axes, true), t)); break;  // keepdim: the cast joins the kernel
    case Op::Max: f.output(max(x, axes)); break;
    default: {
      VarMean vm = var_mean(xf, axes);
      f.output(vm.var);
      f.output(vm.mean);
    }
  }
  return f;
}

}  // namespace

TEST(OuterScheduler, TakesReductionsOverNonInnermostDims) {
  // Column sum, var_mean over dim 0, a mean over the middle axis, batch-norm statistics over
  // [N, 28, 28, C] (channels last).
  for (const auto& [name, sizes] : std::vector<std::pair<std::string, Bindings>>{
           {"outer_colsum_bf16", {{"B", 16384}, {"H", 3072}}},
           {"outer_var_mean_bf16", {{"B", 100352}, {"H", 512}}},
           {"outer_mean_mid_f16", {{"B", 8192}, {"H", 1024}}},
           {"outer_bn_stats_f16", {{"B", 32}, {"H", 512}}}}) {
    const Scheduled c = choice_for(make_workload(name), sizes);
    EXPECT_EQ(c.scheduler, "outer") << name << "\n" << joined(c.passed_over);
    ASSERT_FALSE(c.plans.empty());
    const KernelPlan& p = c.plans.front();
    EXPECT_EQ(p.shape.category, KernelCategory::Outer) << name;
    EXPECT_EQ(p.params.vec * (name.find("bf16") != std::string::npos || name.find("f16") != std::string::npos ? 2 : 4), 16)
        << name << ": 16-byte loads along the kept axis";
    EXPECT_EQ(p.operands[0].access, Access::Full) << name;
    EXPECT_EQ(p.params.threads, 256);
    // Half a warp of vectors per row in the grid form: 256-byte segments, and TY = 16 rows so
    // the tile's last block merges the splits in half the rounds.
    EXPECT_EQ(p.params.threads / p.params.rows_per_block, 16) << name << ": half a warp's vectors per row";
    // Few kept tiles: the rows split over the grid.
    EXPECT_TRUE(p.params.grid_split) << name;
    // The last candidate is the one that always compiles: a single element, a single row.
    EXPECT_EQ(c.plans.back().params.vec, 1);
    EXPECT_EQ(c.plans.back().params.unroll, 1);
  }
}

TEST(OuterScheduler, TransposedViewOfARowReductionIsAnOuterOne) {
  // sum over dim 1 of x[H, B] whose memory is [B, H] (a transposed view): the reduced dim is
  // not the memory-innermost, so the outer template reads it in coalesced vectors.
  Fusion f("sum_rows_of_transposed");
  Tensor x = f.input("x", DType::F32, {Dim::sym("H"), Dim::sym("B")});
  f.output(sum(x, {1}));
  const Scheduled c = choice_for(f, {{"B", 4096}, {"H", 1024}}, {{1, 1024}});
  EXPECT_EQ(c.scheduler, "outer") << joined(c.passed_over);
  EXPECT_EQ(c.plans.front().params.vec, 4);
  // The same program on a contiguous input is a row reduction.
  const Scheduled rows = choice_for(f, {{"B", 4096}, {"H", 1024}});
  EXPECT_EQ(rows.scheduler, "inner");
  EXPECT_NE(joined(rows.passed_over).find("outer: no input has a kept dim as its memory-innermost"), std::string::npos)
      << joined(rows.passed_over);
}

TEST(OuterScheduler, LeavesRowReductionsNormsAndPointwiseToTheOthers) {
  for (const char* w : {"w1_layer_norm_fused", "w5_softmax_bf16", "w5_rms_norm_bf16"}) {
    const Scheduled c = choice_for(make_workload(w), {{"B", 8192}, {"H", 4096}});
    EXPECT_EQ(c.scheduler, "inner") << w;
    EXPECT_NE(joined(c.passed_over).find("outer: "), std::string::npos) << w;
  }
  EXPECT_EQ(choice_for(make_workload("w5_gelu_bias_bf16"), {{"B", 8192}, {"H", 4096}}).scheduler, "pointwise");
  EXPECT_EQ(choice_for(make_workload("w2_fp8_bf16_e4m3_sat"), {{"N", 1 << 20}}).scheduler, "full_reduction");

  // Softmax over dim 0: element outputs, the outer persistent form (outer_norm_test.cpp).
  Fusion sm("softmax_dim0");
  Tensor x = sm.input("x", DType::F32, {Dim::sym("B"), Dim::sym("H")});
  sm.output(softmax(x, 0));
  const Scheduled c = choice_for(sm, {{"B", 8192}, {"H", 4096}});
  EXPECT_EQ(c.scheduler, "outer_norm");
  EXPECT_NE(joined(c.passed_over).find("element outputs (outer_norm)"), std::string::npos) << joined(c.passed_over);

  // Batch-norm statistics of an NCHW activation: the kept channel lies between reduced dims.
  Fusion bn("bn_nchw");
  Tensor a = bn.input("x", DType::F32, {Dim::sym("B"), Dim::sym("H"), Dim(28 * 28)});
  bn.output(sum(a, {0, 2}));
  EXPECT_EQ(choice_for(bn, {{"B", 32}, {"H", 512}}).scheduler, "inner");
}

TEST(OuterScheduler, VectorWidthFollowsAlignmentAndStrides) {
  const Fusion f = make_workload("outer_colsum_bf16");
  // The first aligned plan's vector, and the first plan's (phase-shifted where that is wider).
  auto aligned_vec = [](const Scheduled& c) {
    for (const KernelPlan& p : c.plans)
      if (p.params.col_vec == 0) return p.params.vec;
    return 0;
  };
  // H = 3070: rows are not 16-byte multiples; 4 bytes are (2 elements). Phase-shifted kept
  // columns come first: 16-byte loads of the two aligned vectors around each thread's columns.
  const Scheduled c3070 = choice_for(f, {{"B", 4096}, {"H", 3070}});
  EXPECT_EQ(aligned_vec(c3070), 2);
  EXPECT_EQ(c3070.plans.front().params.vec, 8);
  EXPECT_EQ(c3070.plans.front().params.col_vec, 1);
  const Scheduled c3071 = choice_for(f, {{"B", 4096}, {"H", 3071}});
  EXPECT_EQ(aligned_vec(c3071), 1);
  EXPECT_EQ(c3071.plans.front().params.str().find("phased col_vec=1") != std::string::npos, true) << c3071.plans.front().params.str();
  // Aligned rows stay aligned.
  EXPECT_EQ(choice_for(f, {{"B", 4096}, {"H", 3072}}).plans.front().params.col_vec, 0);
  // A run narrower than one vector: no phased plan (H = 7).
  for (const KernelPlan& p : choice_for(f, {{"B", 4096}, {"H", 7}}).plans) EXPECT_EQ(p.params.col_vec, 0);
  // Many kept tiles and few rows: the block form.
  EXPECT_FALSE(choice_for(f, {{"B", 64}, {"H", 1 << 22}}).plans.front().params.grid_split);
  // The mean over the middle axis: aligned vectors never straddle the outer kept index
  // (H % vec). 8-byte aligned vectors stay aligned (the phase shifts cost more than they save:
  // bf16 16384 x 3068 on the H100, aligned vec 4 55.1 us, phased 64.0).
  const Scheduled mid = choice_for(make_workload("outer_mean_mid_f16"), {{"B", 512}, {"H", 1028}});
  EXPECT_EQ(aligned_vec(mid), 4);
  EXPECT_EQ(mid.plans.front().params.vec, 4);
  EXPECT_EQ(mid.plans.front().params.col_vec, 0);
}

// amax over the middle axis of a bf16 [64, 100, 4097] (seed 6 #059): K = 4097 is odd, so the
// aligned plan reads one element per load; the phased plan's tiles of 32 x 8 columns lie inside
// one of the 64 outer kept indices: 17 tiles each (the 17th holds one column).
TEST(OuterScheduler, PhaseShiftedKeptColumnsForOddRuns) {
  Fusion f("outer_amax_mid");
  Tensor x = f.input("x", DType::BF16, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
  f.output(cast(mul(cast(max(x, {1}, true), DType::F32), constant(f, 0.5, DType::F32)), DType::BF16));
  const Scheduled c = choice_for(f, {{"B", 64}, {"M", 100}, {"K", 4097}});
  EXPECT_EQ(c.scheduler, "outer");
  const KernelPlan& p = c.plans.front();
  EXPECT_EQ(p.params.vec, 8);
  EXPECT_EQ(p.params.col_vec, 1);
  EXPECT_EQ(p.params.rows_per_block, 8);  // a warp of 32 vectors per row
  EXPECT_TRUE(p.problems().empty()) << p.params.str();
  EXPECT_EQ(parse_params(p.params.str()), p.params);
  EXPECT_EQ(outer_inner_kept(p, c.facts), 4097);
  const Grid g = launch_grid(p, c.facts, h100_profile(), 4);
  EXPECT_EQ(g.x, 64u * 17u);
  EXPECT_EQ(g.y, 1u);
  // A phased plan in another category, or with held rows, is a problem.
  KernelPlan bad = p;
  bad.params.batch = 4;
  bad.params.unroll = 1;
  EXPECT_FALSE(bad.problems().empty());
  bad = p;
  bad.params.vec = 1;
  EXPECT_FALSE(bad.problems().empty());
  // The kernel: two aligned 16-byte loads per row and the shift; no spills.
  Executor ex(f);
  std::vector<KernelSourceInfo> sources;
  const auto records =
      ex.compile_for(resolve_input_shapes(f, {}, {{"B", 64}, {"M", 100}, {"K", 4097}}), &sources);
  ASSERT_EQ(sources.size(), 1u);
  const std::string& src = sources[0].source;
  EXPECT_NE(src.find("in0[u] = ld_vec<u16, VEC>(a);"), std::string::npos) << src;
  EXPECT_NE(src.find("ih0[u] = ld_vec<u16, VEC>(a + VEC);"), std::string::npos);
  EXPECT_NE(src.find("phase_shift(in0[u], ih0[u], ip0[u])"), std::string::npos);
  EXPECT_EQ(records[0].spill_bytes, 0) << sources[0].ptxas_log;
}

// Few reduced rows (a var_mean over a batch of 4, seed 7 #083): no more threads along the rows
// than UNROLL-row steps fill, the rest along the kept columns (up to all 256), so no thread
// idles and no block merges rows through shared memory for nothing.
TEST(OuterScheduler, FewReducedRowsPutTheThreadsAlongTheColumns) {
  Fusion f("few_rows");
  Tensor x = f.input("x", DType::BF16, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
  Tensor xf = cast(x, DType::F32);
  VarMean vm = var_mean(xf * xf, {0}, 1, true);
  f.output(vm.var);
  f.output(vm.mean);
  const Scheduled four = choice_for(f, {{"B", 4}, {"M", 1000}, {"K", 4097}});
  EXPECT_EQ(four.scheduler, "outer");
  EXPECT_EQ(four.plans.front().params.rows_per_block, 1) << four.plans.front().params.str();
  EXPECT_EQ(four.plans.front().params.threads, 256);
  const Scheduled nine = choice_for(f, {{"B", 9}, {"M", 1000}, {"K", 4096}});
  EXPECT_EQ(nine.plans.front().params.rows_per_block, 4) << nine.plans.front().params.str();  // 3 steps of 4
  const Scheduled many = choice_for(f, {{"B", 4096}, {"M", 10}, {"K", 4096}});
  EXPECT_EQ(many.plans.front().params.threads / many.plans.front().params.rows_per_block, 16)
      << many.plans.front().params.str();  // tall: the grid form's half warp per row, as before
  for (const Scheduled* c : {&four, &nine, &many})
    for (const KernelPlan& p : c->plans) EXPECT_TRUE(p.problems().empty()) << p.params.str();
}

// Few reduced rows and few kept tiles (seed 14 #159, a min over dim 0 of f16 100 x 12288: 48
// tiles of 32 vectors for 132 SMs, too few rows to split): narrower tiles until every SM has
// one, at least 128 bytes of a row per step and no thread idle along the rows.
TEST(OuterScheduler, FewKeptTilesNarrowUntilTheSmsFill) {
  Fusion f("few_tiles");
  Tensor x = f.input("x", DType::F16, {Dim::sym("B"), Dim::sym("H")});
  f.output(min(cast(x, DType::F32) * cast(x, DType::F32), {0}, true));
  const Scheduled c = choice_for(f, {{"B", 100}, {"H", 12288}});
  EXPECT_EQ(c.scheduler, "outer");
  const KernelPlan& p = c.plans.front();
  EXPECT_EQ(p.params.vec, 8);
  EXPECT_FALSE(p.params.grid_split) << p.params.str();
  EXPECT_EQ(p.params.threads / p.params.rows_per_block, 8) << p.params.str();  // 8 lanes: 128 bytes
  EXPECT_GE(launch_grid(p, c.facts, h100_profile(), 4).x, 132u) << p.params.str();
  // A batch of 2 rows: one thread row fills them, so the block shrinks with its tiles (to a
  // warp: 16 -> 128 blocks), each lane still reading 16 bytes of a row.
  const Scheduled two = choice_for(f, {{"B", 2}, {"H", 32768}});
  EXPECT_EQ(two.plans.front().params.rows_per_block, 1) << two.plans.front().params.str();
  EXPECT_EQ(two.plans.front().params.threads, 32) << two.plans.front().params.str();
  EXPECT_GE(launch_grid(two.plans.front(), two.facts, h100_profile(), 4).x, 128u);
  for (const Scheduled* s : {&c, &two})
    for (const KernelPlan& q : s->plans) EXPECT_TRUE(q.problems().empty()) << q.params.str();
  // Enough tiles already (H = 65536: 256 tiles of 32 lanes): a warp per row as before.
  const Scheduled wide = choice_for(f, {{"B", 100}, {"H", 65536}});
  EXPECT_EQ(wide.plans.front().params.threads / wide.plans.front().params.rows_per_block, 32) << wide.plans.front().params.str();
}

// Twice the blocks resident (a 32-register cap) first only where each thread's loop is short
// and the grid is more than a wave (seed 49 #021, var over the middle axis of f32 64 x 100 x
// 4097: 3 steps of 4 rows a thread, 2112 blocks); long loops (1000 rows) and one-wave grids
// keep the 64-register cap.
TEST(OuterScheduler, ShortLoopsOverManyBlocksKeepTwiceTheBlocks) {
  const Fusion f = reduce_program(DType::F32, {0, 0, 0}, Op::VarMean, {1});
  auto first = [&](int64_t a, int64_t b, int64_t h) {
    const Scheduled c = choice_for(f, {{"A", a}, {"B", b}, {"H", h}});
    EXPECT_EQ(c.scheduler, "outer");
    for (const KernelPlan& p : c.plans) EXPECT_TRUE(p.problems().empty()) << p.params.str();
    return c.plans.front().params;
  };
  EXPECT_EQ(first(64, 100, 4097).min_blocks, 8) << first(64, 100, 4097).str();
  EXPECT_EQ(first(16, 1000, 4097).min_blocks, 4) << first(16, 1000, 4097).str();  // long loops
  EXPECT_EQ(first(32, 256, 4097).min_blocks, 4) << first(32, 256, 4097).str();  // 8 steps
  EXPECT_EQ(first(8, 100, 64).min_blocks, 4) << first(8, 100, 64).str();  // under a wave
}

TEST(OuterScheduler, PlansPrintParseAndValidate) {
  const Scheduled c = choice_for(make_workload("outer_var_mean_bf16"), {{"B", 100352}, {"H", 512}});
  for (const KernelPlan& p : c.plans) {
    EXPECT_TRUE(p.problems().empty()) << p.params.str();
    EXPECT_EQ(parse_params(p.params.str()), p.params) << p.params.str();
  }
  EXPECT_NE(c.plans.front().params.str().find("grid_split"), std::string::npos);
  KernelPlan bad = c.plans.front();
  bad.params.rows_per_block = 3;  // 256 threads do not split into rows of 3
  EXPECT_FALSE(bad.problems().empty());
  bad = c.plans.front();
  bad.shape.category = KernelCategory::Pointwise;  // grid_split is an outer part
  EXPECT_FALSE(bad.problems().empty());
  bad.shape.category = KernelCategory::Inner;
  EXPECT_FALSE(bad.problems().empty());
}

TEST(OuterScheduler, GridFormSplitsTallInputsIntoWholeWaves) {
  const Scheduled c = choice_for(make_workload("outer_var_mean_bf16"), {{"B", 100352}, {"H", 512}});
  const KernelPlan& p = c.plans.front();
  const DeviceInfo dev = h100_profile();
  const Grid g = launch_grid(p, c.facts, dev, 4);
  EXPECT_EQ(g.x, 4u);  // 512 columns / (16 threads x 8)
  EXPECT_EQ(int64_t{g.x} * g.y, int64_t{dev.sm_count} * 4);  // one wave of 4 blocks per SM
  // The column sum: 24 tiles; 32 splits at most (8 steps of 4 rows per thread): one wave.
  const Scheduled cs = choice_for(make_workload("outer_colsum_bf16"), {{"B", 16384}, {"H", 3072}});
  const Grid gs = launch_grid(cs.plans.front(), cs.facts, dev, 4);
  EXPECT_EQ(gs.x, 24u);
  EXPECT_EQ(gs.y, 22u);  // 528 resident / 24
  // Rows enough for two waves: two.
  const Scheduled tall = choice_for(make_workload("outer_colsum_bf16"), {{"B", 1 << 20}, {"H", 3072}});
  const Grid gt = launch_grid(tall.plans.front(), tall.facts, dev, 4);
  EXPECT_EQ(int64_t{gt.x} * gt.y, 2 * 528 / 24 * 24);
  EXPECT_GT(grid_scratch(p, c.facts, g, 8).bytes, int64_t{g.y} * 512 * 8 - 1);
  // The block form needs no scratch.
  KernelPlan block = p;
  block.params.grid_split = false;
  const Grid gb = launch_grid(block, c.facts, dev, 8);
  EXPECT_EQ(gb.y, 1u);
  EXPECT_EQ(grid_scratch(block, c.facts, gb, 8).bytes, 0);
}

// Every kernel of the template: ptxas fits it without spills (f32/f16/bf16; sum, mean, max,
// var_mean; odd sizes, single-column and grid-form sizes; middle and leading axes).
TEST(OuterKernels, CompileWithoutSpills) {
  struct Case {
    std::vector<int64_t> dims;  // 0: a symbol
    std::vector<int64_t> axes;
    Bindings sizes;
  };
  const std::vector<Case> cases = {
      {{0, 0}, {0}, {{"A", 63}, {"B", 89}}},
      {{0, 0}, {0}, {{"A", 100352}, {"B", 512}}},
      {{0, 0}, {0}, {{"A", 7}, {"B", 3}}},
      {{0, 0, 0}, {1}, {{"A", 5}, {"B", 301}, {"H", 36}}},
      {{0, 0, 0}, {0, 1}, {{"A", 5}, {"B", 301}, {"H", 1030}}},
      // Phase-shifted kept columns: odd runs, in the block and the grid form.
      {{0, 0, 0}, {1}, {{"A", 64}, {"B", 100}, {"H", 4097}}},
      {{0, 0}, {0}, {{"A", 100352}, {"B", 513}}},
  };
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (Op op : {Op::Sum, Op::Mean, Op::Max, Op::VarMean})
      for (const Case& cs : cases) {
        Fusion f = reduce_program(t, cs.dims, op, cs.axes);
        const std::string what = std::string(dtype_name(t)) + " " + op_name(op) + " " + std::to_string(cs.sizes.at("A"));
        Executor ex(f);
        const auto records = ex.compile_for(resolve_input_shapes(f, {}, cs.sizes));
        ASSERT_EQ(records.size(), 1u) << what;
        EXPECT_EQ(records[0].category, "outer-reduction") << what;
        EXPECT_EQ(records[0].spill_bytes, 0) << what << ": " << records[0].params;
        EXPECT_GT(records[0].registers, 0) << what;
      }
  for (const char* w : {"outer_colsum_bf16", "outer_var_mean_bf16", "outer_mean_mid_f16", "outer_bn_stats_f16"})
    for (const Bindings& b : std::vector<Bindings>{{{"B", 2048}, {"H", 3072}}, {{"B", 37}, {"H", 1030}}, {{"B", 3}, {"H", 7}}}) {
      Fusion f = make_workload(w);
      Executor ex(f);
      for (const auto& r : ex.compile_for(resolve_input_shapes(f, {}, b))) {
        EXPECT_EQ(r.category, "outer-reduction") << w;
        EXPECT_EQ(r.spill_bytes, 0) << w << ": " << r.params;
      }
    }
}

// What matters in the emitted code (grep checks): 16-byte loads of the column input along the
// kept axis, the grid form's last-block finish with its counter reset, no spills.
TEST(OuterKernels, SixteenByteColumnLoadsAndASelfResettingGridForm) {
  Fusion f = make_workload("outer_var_mean_bf16");
  Executor ex(f);
  std::vector<KernelSourceInfo> sources;
  const auto records = ex.compile_for(resolve_input_shapes(f, {}, {{"B", 100352}, {"H", 512}}), &sources);
  ASSERT_EQ(sources.size(), 1u);
  const std::string& src = sources[0].source;
  EXPECT_NE(src.find("constexpr int VEC = 8"), std::string::npos);
  EXPECT_NE(src.find("ld_vec<u16, VEC>(P0 + (r + (i64)u * TY) * rs0 + kb0)"), std::string::npos) << "16-byte row loads";
  EXPECT_NE(src.find("atomicAdd((unsigned*)p.scratch + blockIdx.x, 1u) == gridDim.y - 1"), std::string::npos);
  EXPECT_NE(src.find("((unsigned*)p.scratch)[blockIdx.x] = 0u"), std::string::npos) << "the counter resets itself";
  EXPECT_NE(src.find("welford_merge"), std::string::npos);
  EXPECT_EQ(records[0].spill_bytes, 0) << sources[0].ptxas_log;
}

// A mean over dim 0 of x [A, B, C] laid out [A, C, B] (seed 13 #134, f16 [128, 100, 4097]): the
// kept dims walk x's memory order (C, B), so the outer scheduler reads B as vectors; the output
// [B, C] (declared layout) ends the inner kept run at B, so the plan checks every operand's
// strides (kept_run). Laid out [C, A, B] (seed 13 #122's rotation) x's run is B alone: no
// kept_run. A pinned plan without kept_run is refused where the launch needs it.
TEST(OuterScheduler, KeptDimsInTheInputsMemoryOrder) {
  Fusion f("kept_order");
  Tensor x = f.input("x", DType::F16, {Dim::sym("A"), Dim::sym("B"), Dim::sym("C")});
  f.output(cast(mean(cast(x, DType::F32), {0}), DType::F16));
  const std::vector<int64_t> shape = {128, 100, 4097};
  Executor ex(f);
  const std::string acb = ex.explain({shape}, {{100 * 4097, 1, 100}});
  EXPECT_NE(acb.find("scheduler: outer"), std::string::npos) << acb;
  EXPECT_NE(acb.find("x(in,full)"), std::string::npos) << acb;
  EXPECT_NE(acb.find(" kept_run"), std::string::npos) << acb;
  const std::string cab = ex.explain({shape}, {{100, 1, 128 * 100}});
  EXPECT_NE(cab.find("scheduler: outer"), std::string::npos) << cab;
  EXPECT_EQ(cab.find(" kept_run"), std::string::npos) << cab;
  // Contiguous: the row reduction's declared order, a column sum of [A, B * C].
  const std::string contig = ex.explain({shape});
  EXPECT_NE(contig.find("scheduler: outer"), std::string::npos) << contig;
  EXPECT_EQ(contig.find(" kept_run"), std::string::npos) << contig;
  ExecutorOptions pinned;
  pinned.plan = "kept_run=0";
  Executor bad(f, pinned);
  try {
    const std::string text = bad.explain({shape}, {{100 * 4097, 1, 100}});
    EXPECT_NE(text.find("needs kept_run"), std::string::npos) << text;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("needs kept_run"), std::string::npos) << e.what();
  }
}
