// The transpose scheduler: which scheduler takes which access pattern on the H100 profile (and
// why the other could not), its plans' parts (tile dims, vector widths from alignment and
// strides), its tiles' bank-conflict-free shared-memory layout, kernels writing permuted outputs
// straight into the output buffer (executor), and every kernel of its template compiling for
// sm_90a without spills for f32/f16/bf16 at odd sizes and size-1 dims. The GPU tier
// (tests/gpu/transpose_test.cpp) runs them against the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "exec/copy_fusion.h"
#include "ops/workloads.h"
#include "pipeline/compile_kernel.h"
#include "pipeline/pipeline.h"
#include "programs/run_inputs.h"
#include "runtime/device_info.h"
#include "runtime/kernel_cache.h"
#include "schedule/launch_grid.h"
#include "schedule/scheduler.h"
#include "schedule/transpose_view.h"
#include "solder/error.h"
#include "solder/executor.h"
#include "support/full_reduction_programs.h"

using namespace solder;
using solder::testing::full_reduction_of;

namespace {

// Strides of `shape` laid out in `order` (logical dims, outermost first; empty: row-major).
std::vector<int64_t> strides_in(const std::vector<int64_t>& shape, std::vector<int> order = {}) {
  if (order.empty())
    for (int d = 0; d < static_cast<int>(shape.size()); ++d) order.push_back(d);
  std::vector<int64_t> st(shape.size(), 0);
  int64_t acc = 1;
  for (int i = static_cast<int>(order.size()) - 1; i >= 0; --i) {
    st[order[i]] = acc;
    acc *= shape[order[i]];
  }
  return st;
}

struct Layouts {
  std::map<int, std::vector<int>> in, out;  // fusion input / output index -> memory order
  std::map<int, int> misaligned;            // fusion input index -> element offset
};

struct Scheduled {
  std::string scheduler;
  std::vector<std::string> passed_over;
  std::vector<KernelPlan> plans;
  LaunchFacts facts;
  std::string why_not_transpose;  // transpose_view's reason where it declines
  PreparedKernel prepared;        // with `compile`: what the compile driver takes
};

// The scheduler choice for the (first) kernel segment of `f` at `sizes`, each operand laid out
// as `layouts` says (contiguous otherwise); `raw`: no passes (as the copy executor).
Scheduled choice_for(const Fusion& f0, const Bindings& sizes, const Layouts& layouts = {}, bool raw = false,
                     bool compile = false, bool output_order = false) {
  SegmentedFusion sf = raw ? segment_fusion(f0) : lower(f0);
  const Fusion& f = sf.fusion;
  const Bindings b = bind_shapes(f, resolve_input_shapes(f0, {}, sizes));
  int si = 0;
  while (sf.segments.at(si).kind != SegmentKind::Kernel) ++si;
  const Segment& s = sf.segments.at(si);
  KernelShape ks = analyze_kernel(f, s);
  std::vector<std::vector<int64_t>> shapes, strides;
  std::vector<uint64_t> addresses;
  for (int v : ks.operands) {
    shapes.push_back(eval_shape(f.value(v).shape, b));
    std::vector<int> order;
    uint64_t address = kAlignClass;
    for (size_t i = 0; i < f.inputs().size(); ++i)
      if (f.inputs()[i] == v) {
        if (layouts.in.count(static_cast<int>(i))) order = layouts.in.at(static_cast<int>(i));
        if (layouts.misaligned.count(static_cast<int>(i)))
          address = static_cast<uint64_t>(layouts.misaligned.at(static_cast<int>(i)) * dtype_size(f.value(v).dtype));
      }
    for (size_t i = 0; i < f.outputs().size(); ++i)
      if (f.outputs()[i] == v && layouts.out.count(static_cast<int>(i))) order = layouts.out.at(static_cast<int>(i));
    strides.push_back(strides_in(shapes.back(), order));
    addresses.push_back(address);
  }
  if (output_order) {  // a pointwise kernel walking its first output's memory order (the executor: where inputs agree)
    const size_t out = static_cast<size_t>(ks.num_inputs);
    ks = analyze_kernel(f, s, memory_order(shapes[out], strides[out]));
  }
  Scheduled c;
  c.facts = kernel_facts(sf, si, ks, shapes, strides, addresses);
  const DeviceInfo dev = h100_profile();
  const ScheduleContext cx{f, s, si, ks, c.facts, dev};
  const SchedulerChoice sc = choose_scheduler(cx);
  c.scheduler = sc.scheduler->name();
  c.passed_over = sc.passed_over;
  c.plans = sc.scheduler->candidates(cx);
  transpose_view(cx, &c.why_not_transpose);
  if (compile) c.prepared = prepare_kernel(sf, si, ks, c.facts, dev, KernelCache::global());
  return c;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

Fusion binary(DType t, const std::vector<std::string>& x_dims, const std::vector<std::string>& y_dims) {
  Fusion f("binary");
  Shape sx, sy;
  for (const auto& d : x_dims) sx.push_back(Dim::sym(d));
  for (const auto& d : y_dims) sy.push_back(Dim::sym(d));
  Tensor x = f.input("x", t, sx);
  Tensor y = f.input("y", t, sy);
  f.output(x + y);
  return f;
}

// The copy executor's fusion (a same-dtype cast, no passes) of a rank-r tensor.
Scheduled copy_choice(DType t, const Bindings& sizes, std::vector<int> in_order, std::vector<int> out_order = {}) {
  Layouts l;
  l.in[0] = std::move(in_order);
  if (!out_order.empty()) l.out[0] = std::move(out_order);
  return choice_for(make_copy_fusion(t, sizes.size()), sizes, l, true);
}

Access access_of(const Scheduled& c, size_t operand) { return c.plans.front().operands.at(operand).access; }

}  // namespace

TEST(TransposeScheduler, TakesOperandsThatDisagreeOnTheirFastestDim) {
  // x stored transposed + y contiguous: x is unit-stride along dim 0, y and the output along 1.
  const Scheduled c = choice_for(binary(DType::BF16, {"B", "H"}, {"B", "H"}), {{"B", 8192}, {"H", 8192}},
                                 Layouts{{{0, {1, 0}}}, {}, {}});
  EXPECT_EQ(c.scheduler, "transpose") << joined(c.passed_over);
  ASSERT_EQ(c.passed_over.size(), 1u);
  EXPECT_NE(c.passed_over[0].find("pointwise: x is unit-stride along kernel dim 0, y along dim 1"), std::string::npos)
      << c.passed_over[0];
  EXPECT_NE(c.passed_over[0].find("element by element (transpose)"), std::string::npos) << c.passed_over[0];
  const KernelPlan& p = c.plans.front();
  EXPECT_EQ(p.shape.category, KernelCategory::Transpose);
  EXPECT_EQ(p.name.rfind("solder_transpose_", 0), 0u) << p.name;
  EXPECT_EQ(p.shape.tile, (TileDims{0, 1, 1, 2}));
  EXPECT_EQ(access_of(c, 0), Access::Staged);  // x
  EXPECT_EQ(access_of(c, 1), Access::Full);    // y
  EXPECT_EQ(access_of(c, 2), Access::Full);    // the output
  // 16-byte vectors on both sides; 64 x 64 tiles (a staged row of 32 slots of bf16 pairs).
  EXPECT_EQ(p.params.vec, 8);
  EXPECT_EQ(p.params.tile_vec, 8);
  EXPECT_EQ(p.params.tile_rows, 64);
  EXPECT_EQ(p.params.tile_cols, 64);
  EXPECT_EQ(p.params.threads, 256);
  EXPECT_TRUE(p.params.index32);  // every offset fits 31 bits
  EXPECT_EQ(p.params.min_blocks, 6);
  EXPECT_EQ(transpose_tiles(p, c.facts), 128 * 128);
  EXPECT_EQ(launch_grid(p, c.facts, h100_profile(), 4).x, 128u * 128u);
  // The last candidate always compiles: single elements, 32-row tiles, no register cap.
  const KernelParams& last = c.plans.back().params;
  EXPECT_EQ(last.vec, 1);
  EXPECT_EQ(last.tile_vec, 1);
  EXPECT_EQ(last.tile_rows, 32);
  EXPECT_EQ(last.min_blocks, 1);

  // The same program on contiguous inputs is plain pointwise; transpose says why not.
  const Scheduled flat = choice_for(binary(DType::BF16, {"B", "H"}, {"B", "H"}), {{"B", 8192}, {"H", 8192}});
  EXPECT_EQ(flat.scheduler, "pointwise");
  EXPECT_NE(flat.why_not_transpose.find("no two operands are unit-stride along different dims"), std::string::npos)
      << flat.why_not_transpose;
}

TEST(TransposeScheduler, TheWorkloads) {
  // transpose_add_bf16: the permuted view is the staged operand (its view's strides).
  Fusion add = make_workload("transpose_add_bf16");
  Executor ex(add);
  const auto records = ex.compile_for(resolve_input_shapes(add, {}, {{"B", 8192}, {"H", 8192}}));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].category, "transpose");
  EXPECT_EQ(parse_params(records[0].params).vec, 8);
  EXPECT_EQ(parse_params(records[0].params).tile_vec, 8);
  // Reductions over transposed views stay the outer and inner schedulers' (a norm of a
  // transposed view over rows of 1024 goes to inner, which stages them); plain pointwise the
  // flat one.
  for (const auto& [w, category] : std::vector<std::pair<std::string, std::string>>{
           {"outer_colsum_bf16", "outer-reduction"},
           {"outer_layer_norm_T_f16", "inner-reduction"},
           {"reduce_mean12_T_bf16", "inner-reduction"},
           {"w5_gelu_bias_bf16", "pointwise"}}) {
    Fusion f = make_workload(w);
    Executor e(f);
    const Bindings b = {{"B", 512}, {"H", 1024}, {"K", 64}, {"M", 128}};
    for (const LaunchRecord& r : e.compile_for(resolve_input_shapes(f, {}, b))) EXPECT_EQ(r.category, category) << w;
  }
}

TEST(TransposeScheduler, BroadcastsAreNotTransposes) {
  // y[B, 1] is unit-stride along dim 0 but does not vary along dim 1: a row operand, no tile.
  Fusion f("col_bcast");
  Tensor x = f.input("x", DType::F32, {Dim::sym("B"), Dim::sym("H")});
  Tensor y = f.input("y", DType::F32, {Dim::sym("B"), Dim(1)});
  f.output(x + y);
  EXPECT_EQ(choice_for(f, {{"B", 4096}, {"H", 4096}}).scheduler, "pointwise");
  // A transposed x beside a bias [H] and a column [B, 1]: the bias is Col, the column Row.
  Fusion g("bcast_T");
  Tensor gx = g.input("x", DType::F16, {Dim::sym("B"), Dim::sym("H")});
  Tensor gb = g.input("b", DType::F16, {Dim::sym("H")});
  Tensor gc = g.input("c", DType::F16, {Dim::sym("B"), Dim(1)});
  g.output(gx + gb + gc);
  const Scheduled c = choice_for(g, {{"B", 1000}, {"H", 2048}}, Layouts{{{0, {1, 0}}}, {}, {}});
  ASSERT_EQ(c.scheduler, "transpose") << joined(c.passed_over);
  std::set<Access> seen;
  for (const OperandPlan& o : c.plans.front().operands) seen.insert(o.access);
  EXPECT_TRUE(seen.count(Access::Staged) && seen.count(Access::Col) && seen.count(Access::Row) && seen.count(Access::Full))
      << c.plans.front().describe(lower(g).fusion);
}

TEST(TransposeScheduler, OperandsInTheOutputsLayoutArePointwise) {
  // x.t() + y.t() into an output in their layout (eager's, as the Python call gives it): the
  // kernel walks the output's memory order, so every operand is read at unit stride, no tile staged.
  const Layouts all_t{{{0, {1, 0}}, {1, {1, 0}}}, {{0, {1, 0}}}, {}};
  const Scheduled c = choice_for(binary(DType::BF16, {"B", "H"}, {"B", "H"}), {{"B", 4096}, {"H", 4097}}, all_t, false,
                                 true, true);
  EXPECT_EQ(c.scheduler, "pointwise");
  for (int k = 0; k < 3; ++k)  // one flat run of memory: unit stride along the walked order
    EXPECT_TRUE(access_of(c, k) == Access::Col || access_of(c, k) == Access::Full) << k;
  EXPECT_EQ(c.plans.front().shape.dim_order, (std::vector<int>{1, 0}));
  EXPECT_EQ(c.prepared.compiled->ptxas.spill_store_bytes, 0);
  // One input in the other layout: a transpose kernel still, whichever order it walks.
  const Layouts one_t{{{0, {1, 0}}}, {{0, {1, 0}}}, {}};
  EXPECT_EQ(choice_for(binary(DType::F32, {"B", "H"}, {"B", "H"}), {{"B", 1000}, {"H", 8192}}, one_t, false, false, true)
                .scheduler,
            "transpose");
}

TEST(TransposeScheduler, TransposedOutputsAreStaged) {
  // Contiguous inputs, the output written through a transpose: the inputs (more bytes) read
  // directly along the columns, the output staged and stored along its rows.
  const Scheduled c = choice_for(binary(DType::BF16, {"B", "H"}, {"B", "H"}), {{"B", 16384}, {"H", 4096}},
                                 Layouts{{}, {{0, {1, 0}}}, {}});
  ASSERT_EQ(c.scheduler, "transpose");
  EXPECT_EQ(access_of(c, 0), Access::Full);
  EXPECT_EQ(access_of(c, 1), Access::Full);
  EXPECT_EQ(access_of(c, 2), Access::Staged);
  EXPECT_EQ(c.plans.front().shape.tile, (TileDims{0, 1, 1, 2}));
  // Two transposed inputs against one contiguous output: the columns follow the inputs.
  const Scheduled two = choice_for(binary(DType::F32, {"B", "H"}, {"B", "H"}), {{"B", 1024}, {"H", 2048}},
                                   Layouts{{{0, {1, 0}}, {1, {1, 0}}}, {}, {}});
  ASSERT_EQ(two.scheduler, "transpose");
  EXPECT_EQ(access_of(two, 0), Access::Full);
  EXPECT_EQ(access_of(two, 2), Access::Staged);
  EXPECT_EQ(two.plans.front().shape.tile, (TileDims{1, 2, 0, 1}));
  EXPECT_EQ(two.plans.front().params.tile_cols, 64);  // f32: 64 x 64 tiles (256-byte segments), 512 threads
  EXPECT_EQ(two.plans.front().params.threads, 512);
}

TEST(TransposeScheduler, PermutesOfHigherRankTileTheirRuns) {
  // NCHW -> NHWC (the copy executor's kernel for a permuted view into a contiguous buffer):
  // domain [B, H, W, C]; the input walks H, W as one run (the tile's rows), the output C.
  const Scheduled nhwc = copy_choice(DType::F16, {{"d0", 32}, {"d1", 28}, {"d2", 28}, {"d3", 512}}, {0, 3, 1, 2});
  ASSERT_EQ(nhwc.scheduler, "transpose") << joined(nhwc.passed_over);
  const KernelPlan& p = nhwc.plans.front();
  EXPECT_EQ(p.shape.tile, (TileDims{1, 3, 3, 4}));
  EXPECT_EQ(p.params.vec, 8);
  EXPECT_EQ(p.params.tile_vec, 8);
  EXPECT_EQ(transpose_tiles(p, nhwc.facts), 32 * 13 * 8);  // 784 rows in 13 tiles, 512 columns in 8
  // NHWC -> NCHW: the runs swap.
  const Scheduled nchw = copy_choice(DType::F16, {{"d0", 32}, {"d1", 512}, {"d2", 28}, {"d3", 28}}, {0, 2, 3, 1});
  ASSERT_EQ(nchw.scheduler, "transpose");
  EXPECT_EQ(nchw.plans.front().shape.tile, (TileDims{1, 2, 2, 4}));
  // [A, B, C] -> [C, B, A]: the middle dim is the batch.
  const Scheduled rev = copy_choice(DType::F32, {{"d0", 300}, {"d1", 5}, {"d2", 200}}, {2, 1, 0});
  ASSERT_EQ(rev.scheduler, "transpose");
  EXPECT_EQ(rev.plans.front().shape.tile, (TileDims{0, 1, 2, 3}));
  // 300/64 -> 5, 200/64 -> 4: 100 tiles of 64 rows, under two an SM, so 32 rows (300/32 -> 10).
  EXPECT_EQ(rev.plans.front().params.tile_rows, 32);
  EXPECT_EQ(transpose_tiles(rev.plans.front(), rev.facts), 10 * 5 * 4);
  // Size-1 dims anywhere change nothing.
  const Scheduled ones = copy_choice(DType::BF16, {{"d0", 1}, {"d1", 700}, {"d2", 1}, {"d3", 900}}, {0, 3, 2, 1});
  ASSERT_EQ(ones.scheduler, "transpose");
  EXPECT_EQ(ones.plans.front().params.vec, 4);  // rows of 900 elements: 8-byte aligned
}

TEST(TransposeScheduler, ShortTileDimsStayPointwise) {
  // An [N, 3] <-> [3, N] transpose leaves 3 of a tile's 32 rows: the flat template reads it
  // through the cache.
  const Scheduled c = copy_choice(DType::F32, {{"d0", 100000}, {"d1", 3}}, {1, 0});
  EXPECT_EQ(c.scheduler, "pointwise");
  EXPECT_NE(c.why_not_transpose.find("too short to tile"), std::string::npos) << c.why_not_transpose;
}

TEST(TransposeScheduler, VectorWidthsFollowAlignmentAndStrides) {
  const Fusion f = binary(DType::BF16, {"B", "H"}, {"B", "H"});
  const Layouts xt{{{0, {1, 0}}}, {}, {}};
  // H odd: y's rows are not vectors (vec 1); B odd: x's columns are not (tile_vec 1).
  Scheduled c = choice_for(f, {{"B", 1000}, {"H", 1031}}, xt);
  EXPECT_EQ(c.plans.front().params.vec, 1);
  EXPECT_EQ(c.plans.front().params.tile_vec, 8);
  c = choice_for(f, {{"B", 1001}, {"H", 1032}}, xt);
  EXPECT_EQ(c.plans.front().params.vec, 8);
  EXPECT_EQ(c.plans.front().params.tile_vec, 1);
  c = choice_for(f, {{"B", 1002}, {"H", 1028}}, xt);
  EXPECT_EQ(c.plans.front().params.vec, 4);
  EXPECT_EQ(c.plans.front().params.tile_vec, 2);
  // x one element past an aligned address: its vectors along the rows go, y's stay.
  Layouts mis = xt;
  mis.misaligned[0] = 1;
  c = choice_for(f, {{"B", 1024}, {"H", 1024}}, mis);
  EXPECT_EQ(c.plans.front().params.vec, 8);
  EXPECT_EQ(c.plans.front().params.tile_vec, 1);
  // f32 staged: 64-column tiles, 4-element vectors.
  c = choice_for(binary(DType::F32, {"B", "H"}, {"B", "H"}), {{"B", 1024}, {"H", 1024}}, xt);
  EXPECT_EQ(c.plans.front().params.tile_cols, 64);
  EXPECT_EQ(c.plans.front().params.tile_vec, 4);
  EXPECT_EQ(c.plans.front().params.vec, 4);
}

TEST(TransposeScheduler, ThirtyTwoBitIndicesWhereEveryOffsetFits) {
  const Fusion f = binary(DType::F16, {"B", "H"}, {"B", "H"});
  const Layouts xt{{{0, {1, 0}}}, {}, {}};
  const Scheduled small = choice_for(f, {{"B", 16384}, {"H", 65536}}, xt);  // 2^30 elements
  EXPECT_TRUE(small.plans.front().params.index32);
  EXPECT_TRUE(fits_index32(small.facts));
  const Scheduled big = choice_for(f, {{"B", 65536}, {"H", 32769}}, xt);
  const KernelPlan& p = big.plans.front();
  EXPECT_FALSE(p.params.index32);
  EXPECT_EQ(p.params.min_blocks, 4);  // 64-bit math: the 1024-thread cap first
  KernelPlan pinned = p;
  pinned.params.index32 = true;  // a user's pin the sizes do not allow: refused at launch
  EXPECT_THROW(launch_grid(pinned, big.facts, h100_profile(), 4), Error);
  EXPECT_GT(launch_grid(p, big.facts, h100_profile(), 4).x, 0u);
}

// Where the 40-register cap spills a 64-row tile, a 32-row tile at 1024 resident threads comes
// next where its blocks are smaller (f32: 512 threads for 64 x 64, 256 for 32 x 64), else after
// the 64-row tile at 1024 (16-bit: 256 threads either way), before the 512-thread cap.
TEST(TransposeScheduler, HalfTilesFollowTheFirstCap) {
  auto order = [](DType t) {
    const Scheduled c = choice_for(binary(t, {"B", "H"}, {"B", "H"}), {{"B", 4096}, {"H", 4096}}, Layouts{{{0, {1, 0}}}, {}, {}});
    std::vector<std::pair<int, int>> rows_resident;
    for (const KernelPlan& p : c.plans) rows_resident.push_back({p.params.tile_rows, p.params.threads * p.params.min_blocks});
    rows_resident.resize(std::min<size_t>(rows_resident.size(), 4));
    return rows_resident;
  };
  using V = std::vector<std::pair<int, int>>;
  EXPECT_EQ(order(DType::F32), (V{{64, 1536}, {32, 1024}, {64, 1024}, {64, 512}}));
  EXPECT_EQ(order(DType::F16), (V{{64, 1536}, {64, 1024}, {32, 1024}, {64, 512}}));
}

TEST(TransposeScheduler, PlansPrintParseAndValidate) {
  const Scheduled c = choice_for(binary(DType::F16, {"B", "H"}, {"B", "H"}), {{"B", 777}, {"H", 1030}},
                                 Layouts{{{0, {1, 0}}}, {}, {}});
  ASSERT_GE(c.plans.size(), 3u);
  for (const KernelPlan& p : c.plans) {
    EXPECT_TRUE(p.problems().empty()) << p.params.str() << ": " << joined(p.problems());
    EXPECT_EQ(parse_params(p.params.str()), p.params) << p.params.str();
  }
  // 13 x 17 tiles of 64 rows are under two an SM: 32 rows.
  EXPECT_NE(c.plans.front().params.str().find("tile_rows=32 tile_cols=64 tile_vec="), std::string::npos);
  EXPECT_NE(c.plans.front().key().find("|tile=0-1,1-2"), std::string::npos) << c.plans.front().key();
  KernelPlan bad = c.plans.front();
  bad.params.tile_rows = 48;
  EXPECT_FALSE(bad.problems().empty());
  bad = c.plans.front();
  bad.params.unroll = 2;
  EXPECT_FALSE(bad.problems().empty());
  bad = c.plans.front();
  bad.shape.tile = {0, 2, 1, 2};  // overlapping runs
  EXPECT_FALSE(bad.problems().empty());
  bad = c.plans.front();
  bad.shape.category = KernelCategory::Pointwise;  // tile parts and index32 are a transpose plan's
  EXPECT_FALSE(bad.problems().empty());
  EXPECT_THROW(parse_params("tile_rows=x"), Error);
}

// The shared-memory layout (kernel_transpose.cpp): slot (row, s) of a staged tile at
// row * RW + (s ^ (row & 31)) with RW a multiple of 32. Phase 1 (3): lane `it` of a warp is row
// vector tr and slot column tc (stage_item), storing (loading) slot j of its vector, row
// tr * TV + j; phase 2: item it is tile row it / (TC / VEC), slots ch * (VEC / E) + s. Every
// warp access touches 32 distinct banks.
TEST(TransposeKernels, SharedMemoryAccessesAreBankConflictFree) {
  // The kernel's swizzle (kernel_transpose.cpp, slot()): key row & 31 for rows of 32 slots, else
  // (row ^ group * F) & 31 with F = max(1, W / G).
  auto bank = [](int row, int s, int RW, int W) {
    const int G = RW / 32, F = std::max(1, W / G);
    const int key = G == 1 ? row & 31 : (row ^ (s >> 5) * F) & 31;
    return (row * RW + (s ^ key)) % 32;
  };
  for (int E : {1, 2, 4})
    for (int G : {1, 2, 4}) {
      const int TC = 32 * E * G, RW = TC / E;
      for (int TR : {32, 64, 128})
        for (int VEC = E; VEC <= 16; VEC *= 2) {
          const int W = VEC / E;
          for (int TV = 1; TV <= 16 / (4 / E); TV *= 2) {
            const int items = TR / TV * RW;
            for (int warp = 0; warp < items / 32; ++warp)
              for (int j = 0; j < TV; ++j) {
                std::set<int> banks;
                for (int lane = 0; lane < 32; ++lane) {
                  const int it = warp * 32 + lane, wp = it >> 5, l = it & 31;
                  const int tr = l / TV + (32 / TV) * (wp % (TR / 32)), tc = l % TV + TV * (wp / (TR / 32));
                  banks.insert(bank(tr * TV + j, tc, RW, W));
                }
                ASSERT_EQ(banks.size(), 32u) << "phase 1: E=" << E << " TC=" << TC << " TR=" << TR << " TV=" << TV
                                             << " VEC=" << VEC << " warp " << warp;
              }
          }
          for (int warp = 0; warp < TR * (TC / VEC) / 32; ++warp)
            for (int s = 0; s < W; ++s) {
              std::set<int> banks;
              for (int lane = 0; lane < 32; ++lane) {
                const int it = warp * 32 + lane, row = it / (TC / VEC), ch = it % (TC / VEC);
                banks.insert(bank(row, ch * W + s, RW, W));
              }
              ASSERT_EQ(banks.size(), 32u) << "phase 2: E=" << E << " TC=" << TC << " TR=" << TR << " VEC=" << VEC;
            }
        }
    }
}

// Every kernel of the template: ptxas fits it without spills (f32/f16/bf16; odd sizes, size-1
// dims, transposed inputs and outputs, 3-d and 4-d permutes, misaligned inputs).
TEST(TransposeKernels, CompileWithoutSpills) {
  struct Case {
    std::string what;
    Fusion f;
    Bindings sizes;
    Layouts layouts;
    bool raw = false;
  };
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    const std::string tn(dtype_name(t));
    std::vector<Case> cases;
    for (const Bindings& b : std::vector<Bindings>{{{"B", 8192}, {"H", 8192}}, {{"B", 37}, {"H", 1030}},
                                                   {{"B", 1001}, {"H", 67}}, {{"B", 2047}, {"H", 2049}}}) {
      cases.push_back({tn + " x.t() + y", binary(t, {"B", "H"}, {"B", "H"}), b, Layouts{{{0, {1, 0}}}, {}, {}}});
      cases.push_back({tn + " (x + y).t()", binary(t, {"B", "H"}, {"B", "H"}), b, Layouts{{}, {{0, {1, 0}}}, {}}});
      cases.push_back({tn + " misaligned x.t() + y", binary(t, {"B", "H"}, {"B", "H"}), b, Layouts{{{0, {1, 0}}}, {}, {{0, 1}}}});
      cases.push_back({tn + " x.t() + bias", binary(t, {"B", "H"}, {"H"}), b, Layouts{{{0, {1, 0}}}, {}, {}}});
    }
    cases.push_back({tn + " 3-d copy", make_copy_fusion(t, 3), {{"d0", 129}, {"d1", 3}, {"d2", 67}}, Layouts{{{0, {2, 1, 0}}}, {}, {}}, true});
    cases.push_back({tn + " size-1 copy", make_copy_fusion(t, 3), {{"d0", 1}, {"d1", 33}, {"d2", 1000}}, Layouts{{{0, {0, 2, 1}}}, {}, {}}, true});
    cases.push_back({tn + " nchw->nhwc", make_copy_fusion(t, 4), {{"d0", 32}, {"d1", 28}, {"d2", 28}, {"d3", 512}}, Layouts{{{0, {0, 3, 1, 2}}}, {}, {}}, true});
    for (Case& cs : cases) {
      SCOPED_TRACE(cs.what);
      const Scheduled c = choice_for(cs.f, cs.sizes, cs.layouts, cs.raw, true);
      ASSERT_EQ(c.scheduler, "transpose") << joined(c.passed_over) << c.why_not_transpose;
      const PreparedKernel& pk = c.prepared;  // the first plan ptxas fits without spills
      EXPECT_EQ(pk.scheduler, "transpose");
      EXPECT_FALSE(pk.spills) << pk.plan.params.str();
      EXPECT_EQ(pk.compiled->ptxas.spill_store_bytes, 0) << pk.plan.params.str();
      EXPECT_GT(pk.compiled->ptxas.registers, 0);
      EXPECT_LE(pk.compiled->ptxas.smem_bytes, 48 * 1024);
    }
  }
}

// What matters in the emitted code: 16-byte vectors along both operands' fast dims, the
// swizzled tile, one barrier between staging and use, no spills.
TEST(TransposeKernels, SixteenByteVectorsOnBothSides) {
  Fusion f = make_workload("transpose_add_bf16");
  Executor ex(f);
  std::vector<KernelSourceInfo> sources;
  const auto records = ex.compile_for(resolve_input_shapes(f, {}, {{"B", 8192}, {"H", 8192}}), &sources);
  ASSERT_EQ(sources.size(), 1u);
  const std::string& src = sources[0].source;
  EXPECT_NE(src.find("constexpr int THREADS = 256, TR = 64, TC = 64, VEC = 8, TV = 8;"), std::string::npos);
  EXPECT_NE(src.find("typedef int IX;"), std::string::npos) << "32-bit index math";
  EXPECT_NE(src.find("= ld_vec<u16, TV>(P1 + bo1 + r + (C0 + tc * 2 + 0) * sc1)"), std::string::npos) << "staged loads";
  EXPECT_NE(src.find("ld_vec<unsigned, VEC / 2>((const unsigned*)(P0 + bo0 + r * sr0 + c0))"), std::string::npos)
      << "direct loads";
  EXPECT_NE(src.find("st_vec<u16, VEC>(P2 + bo2 + r * sr2 + c0, out2)"), std::string::npos) << "direct stores";
  EXPECT_NE(src.find("S1[(tr * TV + j) * 32 + ((tc) ^ ((tr * TV + j) & 31))] = s;"), std::string::npos) << "swizzle";
  EXPECT_NE(src.find("__syncthreads();"), std::string::npos);
  EXPECT_EQ(records[0].spill_bytes, 0) << sources[0].ptxas_log;
}

// Views as program outputs: metadata unless the caller wants the output in memory of its own
// (contiguous_outputs, or buffers it passes): then a permute of a kernel's result is written by
// that kernel through the view's strides (one launch), a view of an input is copied by the copy
// executor's transpose kernel.
TEST(TransposeExecutor, PermutedOutputsAreWrittenByTheirKernel) {
  Fusion f = make_workload("transpose_tanh_out_bf16");
  const auto shapes = resolve_input_shapes(f, {}, {{"B", 16384}, {"H", 4096}});
  Executor plain(f);
  const auto flat = plain.compile_for(shapes);
  ASSERT_EQ(flat.size(), 1u);
  EXPECT_EQ(flat[0].category, "pointwise");
  EXPECT_NE(plain.explain(shapes).find("view: permute (no launch)"), std::string::npos);
  Executor contiguous(f, ExecutorOptions{"", true});
  const auto placed = contiguous.compile_for(shapes);
  ASSERT_EQ(placed.size(), 1u);
  EXPECT_EQ(placed[0].category, "transpose");
  const std::string text = contiguous.explain(shapes);
  EXPECT_NE(text.find("view: permute written in place by its kernel"), std::string::npos) << text;
  EXPECT_NE(text.find("scheduler: transpose (not pointwise: "), std::string::npos) << text;
  EXPECT_NE(text.find("(out,staged)"), std::string::npos) << text;

  // A view of an input: the copy's kernel, described under the copy and compiled.
  for (const char* w : {"transpose_copy_f16", "transpose_nchw_nhwc_f16"}) {
    Fusion g = make_workload(w);
    const auto gs = resolve_input_shapes(g, {}, {{"B", 32}, {"H", 512}});
    Executor ge(g, ExecutorOptions{"", true});
    const std::string gt = ge.explain(gs);
    EXPECT_NE(gt.find("copy: permute into a contiguous output"), std::string::npos) << gt;
    EXPECT_NE(gt.find("    segment 0 kernel solder_transpose_cast_0 (transpose)"), std::string::npos) << gt;
    std::vector<KernelSourceInfo> sources;
    ge.compile_for(gs, &sources);
    ASSERT_EQ(sources.size(), 1u) << w;
    EXPECT_EQ(sources[0].name, "solder_transpose_cast_0");
    EXPECT_EQ(sources[0].spill_bytes, 0);
    Executor view(g);
    EXPECT_NE(view.explain(gs).find("view: permute (no launch)"), std::string::npos) << w;
  }

  // A kernel result that is itself an output too keeps its buffer: its permute is copied.
  Fusion both("both");
  Tensor x = both.input("x", DType::F32, {Dim::sym("B"), Dim::sym("H")});
  Tensor y = exp(x);
  both.output(y);
  both.output(permute(y, {1, 0}));
  Executor be(both, ExecutorOptions{"", true});
  const std::string bt = be.explain({{300, 200}});
  EXPECT_NE(bt.find("copy: permute into a contiguous output"), std::string::npos) << bt;
  EXPECT_EQ(bt.find("written in place"), std::string::npos) << bt;
}

// Full reductions (every dim reduced) of inputs that disagree on their fastest dim take the
// transpose template's reducing tiles: seed 11 #129, var_mean over every dim of x * y with x
// permuted, read y element by element across its layout in the flat template.
namespace {

const Bindings k129 = {{"B", 32}, {"M", 64}, {"K", 4097}};

}  // namespace

TEST(TransposeScheduler, FullReductionsOfDisagreeingInputsAreStaged) {
  const Scheduled c = choice_for(full_reduction_of(DType::BF16, "var_mean"), k129, Layouts{{{0, {0, 2, 1}}}, {}, {}});
  ASSERT_EQ(c.scheduler, "transpose") << joined(c.passed_over) << c.why_not_transpose;
  ASSERT_EQ(c.passed_over.size(), 1u);
  EXPECT_EQ(c.passed_over[0], "pointwise: the segment reduces");
  const KernelPlan& p = c.plans.front();
  EXPECT_EQ(p.shape.category, KernelCategory::Transpose);
  EXPECT_TRUE(transpose_reduces(p));
  EXPECT_EQ(p.name.rfind("solder_red_", 0), 0u) << p.name << ": a reduction's name (bench category)";
  // explain's why: which operands disagree, and what the tiles do instead.
  EXPECT_NE(p.why.find("y is unit-stride along kernel dim 1, x along dim 2"), std::string::npos) << p.why;
  EXPECT_NE(p.why.find("staged tiles fold into the reduction's accumulators"), std::string::npos) << p.why;
  // Kernel dims in x's memory order [B, K, M]: columns along M (x, unit-stride), rows along K
  // (y, staged), B the batch; the scalar results need no tile.
  EXPECT_EQ(access_of(c, 0), Access::Full) << p.key();
  EXPECT_EQ(access_of(c, 1), Access::Staged) << p.key();
  EXPECT_EQ(access_of(c, 2), Access::Scalar);
  EXPECT_EQ(access_of(c, 3), Access::Scalar);
  EXPECT_EQ(p.params.vec, 8);
  EXPECT_EQ(p.params.tile_vec, 1) << "y's column stride (4097) is odd";
  EXPECT_TRUE(p.problems().empty());
  // At most one resident wave, the tiles shared out evenly; blocks loop over their tiles.
  const int64_t tiles = transpose_tiles(p, c.facts);
  EXPECT_EQ(tiles, 32 * 65);
  const Grid g = launch_grid(p, c.facts, h100_profile(), 4);
  const int64_t resident = int64_t{h100_profile().sm_count} * 4, each = (tiles + resident - 1) / resident;
  EXPECT_LE(int64_t{g.x}, resident);
  EXPECT_EQ(int64_t{g.x}, (tiles + each - 1) / each) << "2080 tiles, 4 each";
  EXPECT_EQ(g.y, 1u);
  // A pointwise transpose's grid is still a block per tile.
  const Scheduled pw = choice_for(binary(DType::BF16, {"B", "H"}, {"B", "H"}), {{"B", 8192}, {"H", 8192}},
                                  Layouts{{{0, {1, 0}}}, {}, {}});
  EXPECT_FALSE(transpose_reduces(pw.plans.front()));
  // sum, amax and an epilogue alike.
  for (const std::string kind : {"sum", "amax", "post"})
    EXPECT_EQ(choice_for(full_reduction_of(DType::F16, kind), k129, Layouts{{{0, {0, 2, 1}}}, {}, {}}).scheduler, "transpose") << kind;
}

TEST(TransposeScheduler, FullReductionsThatDoNotPayStayFlat) {
  struct Case {
    std::string what;
    std::string kind;
    Bindings sizes;
    Layouts layouts;
    std::string why;  // transpose_view's reason
  };
  const std::vector<Case> cases{
      {"contiguous", "var_mean", k129, {}, "no two operands are unit-stride along different dims"},
      {"both permuted alike", "var_mean", k129, Layouts{{{0, {0, 2, 1}}, {1, {0, 2, 1}}}, {}, {}},
       "no two operands are unit-stride along different dims"},
      {"one input, permuted", "one_input", k129, Layouts{{{0, {2, 1, 0}}}, {}, {}},
       "no two operands are unit-stride along different dims"},
      {"a short tile dim", "sum", {{"B", 3}, {"M", 5}, {"K", 33}}, Layouts{{{0, {0, 2, 1}}}, {}, {}}, "too short to tile"},
  };
  for (const Case& cs : cases) {
    SCOPED_TRACE(cs.what);
    const Scheduled c = choice_for(full_reduction_of(DType::BF16, cs.kind), cs.sizes, cs.layouts);
    EXPECT_EQ(c.scheduler, "full_reduction");
    EXPECT_NE(c.why_not_transpose.find(cs.why), std::string::npos) << c.why_not_transpose;
    EXPECT_NE(joined(c.passed_over).find("transpose: "), std::string::npos) << joined(c.passed_over);
  }
  // Inner reductions whose disagreeing inputs are fast along a kept and a reduced dim take tiles
  // that reduce their columns (PartialReductionsAcrossTileColumns), not the full reduction's.
  Fusion g("inner");
  Tensor x = g.input("x", DType::F32, {Dim::sym("B"), Dim::sym("H")});
  Tensor y = g.input("y", DType::F32, {Dim::sym("B"), Dim::sym("H")});
  g.output(sum(x * y, {1}));
  const Scheduled inner = choice_for(g, {{"B", 512}, {"H", 512}}, Layouts{{{0, {1, 0}}}, {}, {}});
  ASSERT_EQ(inner.scheduler, "transpose");
  EXPECT_TRUE(tile_reduces_cols(inner.plans.front().shape.tile));
}

// Every reducing kernel compiles for sm_90a without spills (f32/f16/bf16; sum, amax, var_mean,
// an epilogue; odd sizes, a size-1 batch, misaligned inputs), its shared memory within 48 KB.
TEST(TransposeKernels, FullReductionsCompileWithoutSpills) {
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (const std::string kind : {"sum", "amax", "var_mean", "post"})
      for (const auto& [sizes, layouts] : std::vector<std::pair<Bindings, Layouts>>{
               {k129, Layouts{{{0, {0, 2, 1}}}, {}, {}}},
               {{{"B", 2}, {"M", 64}, {"K", 65}}, Layouts{{{0, {0, 2, 1}}}, {}, {{0, 1}, {1, 3}}}},
               {{{"B", 1}, {"M", 40}, {"K", 70}}, Layouts{{{0, {2, 1, 0}}}, {}, {}}}}) {
        SCOPED_TRACE(std::string(dtype_name(t)) + " " + kind + " B=" + std::to_string(sizes.at("B")));
        const Scheduled c = choice_for(full_reduction_of(t, kind), sizes, layouts, false, true);
        ASSERT_EQ(c.scheduler, "transpose") << joined(c.passed_over) << c.why_not_transpose;
        const PreparedKernel& pk = c.prepared;
        EXPECT_TRUE(transpose_reduces(pk.plan));
        EXPECT_FALSE(pk.spills) << pk.plan.params.str();
        EXPECT_EQ(pk.compiled->ptxas.spill_store_bytes, 0) << pk.plan.params.str();
        EXPECT_LE(pk.compiled->ptxas.smem_bytes, 48 * 1024);
        EXPECT_FALSE(pk.source.scratch_init.empty()) << "the grid combine's partials and counter";
        EXPECT_NE(pk.source.source.find("last_block"), std::string::npos);
      }
}

// The GPU tier's programs (tests/gpu/transpose_test.cpp, FullReductionsOfDisagreeingInputs): x a
// permuted view in the program, planned as a run plans it (the view's strides): the reducing
// tiles where both tile dims reach 16, the flat template where one is shorter.
TEST(TransposeScheduler, FullReductionsOfPermutedViewsAsARunPlansThem) {
  for (const std::string kind : {"sum", "var_mean"})
    for (const auto& [sizes, category] : std::vector<std::pair<Bindings, std::string>>{
             {{{"B", 3}, {"M", 17}, {"K", 33}}, "transpose"},
             {{{"B", 32}, {"M", 64}, {"K", 4097}}, "transpose"},
             {{{"B", 1}, {"M", 40}, {"K", 70}}, "transpose"},
             {{{"B", 3}, {"M", 5}, {"K", 33}}, "full-reduction"}}) {
      Fusion f("full_red_perm_" + kind);
      Tensor xs = f.input("x", DType::BF16, {Dim::sym("B"), Dim::sym("K"), Dim::sym("M")});
      Tensor y = f.input("y", DType::BF16, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
      Tensor p = cast(permute(xs, {0, 2, 1}), DType::F32) * cast(y, DType::F32);
      if (kind == "sum") f.output(sum(p, {0, 1, 2}));
      else f.output(var_mean(p, {0, 1, 2}, 1, false).var);
      const auto records = Executor(f).compile_for(resolve_input_shapes(f, {}, sizes));
      ASSERT_EQ(records.size(), 1u);
      EXPECT_EQ(records[0].category, category) << kind << " M=" << sizes.at("M") << " " << records[0].params;
      EXPECT_EQ(records[0].spill_bytes, 0);
    }
}

// Partial reductions whose two inputs disagree along the kept dims (seed 14 #136: sqrt of the
// sum over dim 0 of x * y, x permuted to [K, B, M], y contiguous): tiles of the kept dims
// [M, K] loop over B, each element folding into its own accumulators. Where the tile would not
// be the answer: an input and an output that disagree (the outer scheduler stores outputs at any
// kept stride), a norm (element outputs). var_mean takes shifted sums per element.
TEST(TransposeScheduler, PartialReductionsOfDisagreeingInputsLoopInsideTiles) {
  auto program = [](DType t, const std::string& kind) {
    Fusion f("part_red_" + kind);
    Tensor x = f.input("x", t, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
    Tensor y = f.input("y", t, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
    Tensor p = cast(x, DType::F32) * cast(y, DType::F32);
    if (kind == "sum_sqrt") f.output(sqrt(abs(sum(p, {0}, true))));
    if (kind == "amax") f.output(amax(x * y, {0}));
    if (kind == "var_mean") {
      VarMean vm = var_mean(p, {0}, 1, false);
      f.output(vm.var);
      f.output(vm.mean);
    }
    if (kind == "norm") f.output(p - mean(p, {0}, true));
    return f;
  };
  const Bindings k136{{"B", 128}, {"M", 512}, {"K", 1024}};
  const Layouts x_kbm{{{0, {2, 0, 1}}}, {}, {}};
  for (DType t : {DType::F32, DType::BF16}) {
    const Scheduled c = choice_for(program(t, "sum_sqrt"), k136, x_kbm, false, true);
    ASSERT_EQ(c.scheduler, "transpose") << joined(c.passed_over) << c.why_not_transpose;
    const KernelPlan& p = c.plans.front();
    EXPECT_GE(p.shape.tile.reduced_lo, 0) << p.key();
    EXPECT_FALSE(transpose_reduces(p));
    EXPECT_NE(p.why.find("each tile loops over the reduced dims (128 elements)"), std::string::npos) << p.why;
    // The kept tiles only (512 x 1024), of 32 rows (64 x 64 would leave 128 tiles for 132 SMs);
    // B looped in each.
    const int64_t tiles = transpose_tiles(p, c.facts);
    EXPECT_EQ(tiles, (512 / p.params.tile_rows) * (1024 / p.params.tile_cols)) << p.params.str();
    EXPECT_EQ(p.params.tile_rows, 32) << p.params.str();
    EXPECT_EQ(launch_grid(p, c.facts, h100_profile(), 4).x, static_cast<unsigned>(tiles));
    ASSERT_TRUE(c.prepared.compiled);
    EXPECT_FALSE(c.prepared.compiled->ptxas.spills()) << c.prepared.plan.key();
    // The split form only where the grid splits: f32 tiles of 32 x 32 (512 tiles for 792
    // resident blocks) do not; bf16 tiles of 32 x 64 (256) do.
    EXPECT_EQ(p.params.grid_split, t == DType::BF16) << p.params.str();
    EXPECT_EQ(p.params.grid_split, launch_grid(p, c.facts, h100_profile(), 6).y > 1) << p.params.str();
    EXPECT_NE(c.prepared.source.source.find(p.params.grid_split ? "for (IX rb = blockIdx.y; rb < NRB; rb += gridDim.y)"
                                                                : "for (IX rb = 0; rb < NRB; ++rb)"),
              std::string::npos);
  }
  // Kept tiles under a wave of resident blocks split B over gridDim.y (shares of 16 indices, or
  // of 8 up to two blocks an SM: seed 26 #059, 512 x 512 kept, 256 tiles for 528 resident
  // blocks: 2 splits), each leaving a cell per tile element and accumulator plane (8 bytes)
  // after a counter per tile.
  {
    const Scheduled c = choice_for(program(DType::F32, "var_mean"), {{"B", 128}, {"M", 512}, {"K", 512}}, x_kbm, false, true);
    ASSERT_EQ(c.scheduler, "transpose") << joined(c.passed_over) << c.why_not_transpose;
    const KernelPlan& p = c.plans.front();
    EXPECT_TRUE(p.params.grid_split) << p.params.str();
    EXPECT_NE(c.prepared.source.source.find("for (IX rb = blockIdx.y; rb < NRB; rb += gridDim.y)"), std::string::npos);
    EXPECT_NE(c.prepared.source.source.find("if (rb == (IX)blockIdx.y) acc0k[u][j]"), std::string::npos);
    const Grid g = launch_grid(p, c.facts, h100_profile(), 4);
    EXPECT_EQ(g.x, 256u) << p.params.str();
    EXPECT_EQ(g.y, 2u) << p.params.str();
    const GridScratch gs = grid_scratch(p, c.facts, g, c.prepared.source.scratch_per_cell);
    EXPECT_EQ(c.prepared.source.scratch_per_cell, 3 * 8) << "Welford: count, mean and M2 planes";
    EXPECT_EQ(gs.counters, 256);
    EXPECT_EQ(gs.bytes, 256 * 4 + 2 * 256 * int64_t{p.params.tile_rows} * p.params.tile_cols * 24);
    // 8 reduced indices: one share of 8, so one split.
    const Scheduled few = choice_for(program(DType::F32, "var_mean"), {{"B", 8}, {"M", 512}, {"K", 512}}, x_kbm);
    EXPECT_EQ(launch_grid(few.plans.front(), few.facts, h100_profile(), 4).y, 1u);
  }
  EXPECT_EQ(choice_for(program(DType::F16, "amax"), k136, x_kbm).scheduler, "transpose");
  // var_mean (seed 16 #007's form): per element Σd, Σd² and the shift, every kernel without
  // spills; values: the CPU kernel simulator's tred_var_mean_ and tred_std_ cases.
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    const Scheduled c = choice_for(program(t, "var_mean"), k136, x_kbm, false, true);
    ASSERT_EQ(c.scheduler, "transpose") << joined(c.passed_over) << c.why_not_transpose;
    ASSERT_TRUE(c.prepared.compiled);
    EXPECT_FALSE(c.prepared.compiled->ptxas.spills()) << c.prepared.plan.key();
    const KernelPlan& p = c.plans.front();
    EXPECT_NE(c.prepared.source.source.find(p.params.grid_split ? "if (rb == (IX)blockIdx.y) acc0k[u][j]" : "if (rb == 0) acc0k[u][j]"),
              std::string::npos);
  }
  // Many kept tiles: 64 x 64, several items per thread, their accumulators in registers (no
  // stack frame: every item loop unrolled).
  const Scheduled big = choice_for(program(DType::F32, "sum_sqrt"), {{"B", 8}, {"M", 4096}, {"K", 4096}}, x_kbm, false, true);
  ASSERT_EQ(big.scheduler, "transpose");
  EXPECT_EQ(big.plans.front().params.tile_rows, 64);
  ASSERT_TRUE(big.prepared.compiled);
  EXPECT_NE(big.prepared.compiled->log.find(" 0 bytes stack frame"), std::string::npos) << big.prepared.compiled->log;
  struct Case {
    std::string kind;
    Layouts layouts;
    std::string why;
  };
  const std::vector<Case> declined{  // (an input read after the reduction: its own kernel here)
      {"norm", x_kbm, "an output varies along the reduced dims"},
      {"sum_sqrt", Layouts{{}, {{0, {2, 1, 0}}}, {}}, "no two operands are unit-stride along different dims"},
  };
  for (const Case& cs : declined) {
    SCOPED_TRACE(cs.kind);
    const Scheduled c = choice_for(program(DType::BF16, cs.kind), k136, cs.layouts);
    EXPECT_NE(c.scheduler, "transpose");
    EXPECT_NE(c.why_not_transpose.find(cs.why), std::string::npos) << c.why_not_transpose;
  }
  // Few kept elements and few reduced (seed 11 #010: 17 x 1024 kept, 8 reduced: 32 of the
  // smallest tiles, one split each, for 132 SMs; measured 2.4x slower than the inner
  // template's element reads, which reach every SM).
  const Scheduled few = choice_for(program(DType::F32, "sum_sqrt"), {{"B", 8}, {"M", 17}, {"K", 1024}}, x_kbm);
  EXPECT_NE(few.scheduler, "transpose");
  EXPECT_NE(few.why_not_transpose.find("make fewer tiles and splits than SMs"), std::string::npos) << few.why_not_transpose;
  // Few kept tiles whose reduced indices split (seed 38 #132: amin over dim 0 of x * y, f16
  // 32 x 512 x 512: 128 tiles of 32 x 64, 32 reduced indices in 3 splits for 132 SMs; the inner
  // template read both inputs element by element, 2.3x slower).
  const Scheduled split = choice_for(program(DType::F16, "amax"), {{"B", 32}, {"M", 512}, {"K", 512}}, x_kbm, false, true);
  ASSERT_EQ(split.scheduler, "transpose") << split.why_not_transpose;
  const KernelPlan& sp = split.plans.front();
  EXPECT_TRUE(sp.params.grid_split) << sp.params.str();
  const Grid sg = launch_grid(sp, split.facts, h100_profile(), 4);
  EXPECT_EQ(sg.x, 128u) << sp.params.str();
  EXPECT_EQ(sg.y, 3u) << sp.params.str();
  ASSERT_TRUE(split.prepared.compiled);
  EXPECT_FALSE(split.prepared.compiled->ptxas.spills()) << sp.key();
}

// Partial reductions where x is fast along a kept dim and y along a reduced one (seed 16 #128:
// the var over dim 1 of x * y with x transposed; seed 19 #159: var_mean over two dims of a
// permuted x times a contiguous y): tiles of [kept rows x reduced columns] (tile_reduces_cols),
// x staged, y read as vectors along the columns; the few kept tiles split their column chunks
// over gridDim.y (scratch: a counter per tile, 8-byte cells per plane, tile row and split).
// Before, inner or outer read one of them element by element.
TEST(TransposeScheduler, PartialReductionsAcrossTileColumns) {
  auto program = [](DType t, const std::string& kind, const std::vector<int64_t>& dims) {
    Fusion f("cross_red_" + kind);
    Tensor x = f.input("x", t, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
    Tensor y = f.input("y", t, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
    Tensor p = cast(x, DType::F32) * cast(y, DType::F32);
    if (kind == "sum") f.output(sum(p, dims, true));
    if (kind == "var_mean") {
      VarMean vm = var_mean(p, dims, 1, false);
      f.output(vm.var);
      f.output(vm.mean);
    }
    return f;
  };
  const Layouts x_mkb{{{0, {1, 2, 0}}}, {}, {}};  // x stored [M, K, B]: fast along B
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (const std::string kind : {"sum", "var_mean"}) {
      SCOPED_TRACE(std::string(dtype_name(t)) + " " + kind);
      // #159's sizes: 333 kept elements (11 tiles of 32 rows), 64000 reduced: split.
      const Scheduled c = choice_for(program(t, kind, {0, 1}), {{"B", 64}, {"M", 1000}, {"K", 333}},
                                     Layouts{{{0, {2, 0, 1}}}, {}, {}}, false, true);
      ASSERT_EQ(c.scheduler, "transpose") << joined(c.passed_over) << c.why_not_transpose;
      const KernelPlan& p = c.plans.front();
      EXPECT_TRUE(tile_reduces_cols(p.shape.tile)) << p.key();
      EXPECT_NE(p.why.find("each tile row folds its reduced columns"), std::string::npos) << p.why;
      EXPECT_EQ(transpose_tiles(p, c.facts), (333 + p.params.tile_rows - 1) / p.params.tile_rows);
      EXPECT_LE(p.params.tile_cols / p.params.vec, 32) << p.params.str();
      const Grid g = launch_grid(p, c.facts, h100_profile(), 2);
      EXPECT_GT(g.y, 1u) << "few kept tiles split their chunks";
      EXPECT_GT(grid_scratch(p, c.facts, g, 8).bytes, 0);
      ASSERT_TRUE(c.prepared.compiled);
      EXPECT_FALSE(c.prepared.compiled->ptxas.spills()) << c.prepared.plan.key();
      // The first plan compiled is one that fits (no register cap its items' state overruns).
      EXPECT_TRUE(c.prepared.rejected.empty()) << joined(c.prepared.rejected);
      EXPECT_NE(c.prepared.source.source.find("for (IX w = blockIdx.y; w < UNITS; w += gridDim.y)"), std::string::npos);
      // #128's form (one reduced dim, x transposed), odd sizes: many kept tiles need no split.
      const Scheduled d = choice_for(program(t, kind, {2}), {{"B", 2050}, {"M", 1}, {"K", 8193}}, x_mkb, false, true);
      ASSERT_EQ(d.scheduler, "transpose") << joined(d.passed_over) << d.why_not_transpose;
      EXPECT_TRUE(tile_reduces_cols(d.plans.front().shape.tile));
      ASSERT_TRUE(d.prepared.compiled);
      EXPECT_FALSE(d.prepared.compiled->ptxas.spills()) << d.prepared.plan.key();
      EXPECT_TRUE(d.prepared.rejected.empty()) << joined(d.prepared.rejected);
    }
  // A tile dim under 16 (8 kept elements): left to the inner template.
  const Scheduled few = choice_for(program(DType::F32, "sum", {1, 2}), {{"B", 8}, {"M", 100}, {"K", 1000}}, x_mkb);
  EXPECT_NE(few.scheduler, "transpose");
  EXPECT_NE(few.why_not_transpose.find("too short to tile"), std::string::npos) << few.why_not_transpose;
  // Two inputs fast along different reduced dims (seed 22 #062: a var over [1, 2] of x * y, x
  // stored [K, B, M]): a tile per kept index, both tile dims reduced, 128 kept indices split.
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (const std::string kind : {"sum", "var_mean"}) {
      SCOPED_TRACE(std::string(dtype_name(t)) + " " + kind + " (both reduced)");
      const Scheduled c = choice_for(program(t, kind, {1, 2}), {{"B", 128}, {"M", 256}, {"K", 769}},
                                     Layouts{{{0, {2, 0, 1}}}, {}, {}}, false, true);
      ASSERT_EQ(c.scheduler, "transpose") << joined(c.passed_over) << c.why_not_transpose;
      const KernelPlan& p = c.plans.front();
      EXPECT_TRUE(tile_reduces_all(p.shape.tile)) << p.key();
      EXPECT_FALSE(transpose_reduces(p));
      EXPECT_EQ(transpose_tiles(p, c.facts), 128);
      EXPECT_GT(launch_grid(p, c.facts, h100_profile(), 4).y, 1u);
      ASSERT_TRUE(c.prepared.compiled);
      EXPECT_FALSE(c.prepared.compiled->ptxas.spills()) << c.prepared.plan.key();
    }
  // 16-bit columns whose vectors a misaligned y narrows to one element: a tile row's 64 columns
  // take 64 lanes, two warps, combined through shared memory.
  for (const std::string kind : {"sum", "var_mean"}) {
    const Scheduled mis = choice_for(program(DType::BF16, kind, {1, 2}), {{"B", 64}, {"M", 10}, {"K", 1000}},
                                     Layouts{{{0, {1, 2, 0}}}, {}, {{1, 1}}}, false, true);
    ASSERT_EQ(mis.scheduler, "transpose") << mis.why_not_transpose;
    EXPECT_EQ(mis.plans.front().params.tile_cols / mis.plans.front().params.vec, 64) << mis.plans.front().params.str();
    ASSERT_TRUE(mis.prepared.compiled);
    EXPECT_FALSE(mis.prepared.compiled->ptxas.spills()) << mis.prepared.plan.key();
    EXPECT_NE(mis.prepared.source.source.find("each warp's half of its rows"), std::string::npos);
  }
}

// A transposed bool mask's staged bytes are packed into their slots by byte permutes. Written
// element by element, ptxas held each byte in a register of its own: here every cap at 16-byte
// vectors spilled (112 bytes at 128 registers) and the plan fell to vec=4 over 32-row tiles;
// seed 48 #019 ran uncapped at 114 registers for the same reason.
TEST(TransposeKernels, StagedBytesPackByPermutes) {
  Fusion f("masked_t");
  const Dim B = Dim::sym("B"), M = Dim::sym("M"), K = Dim::sym("K");
  Tensor x = f.input("x", DType::BF16, {B, M, K});
  Tensor y0 = f.input("y0", DType::BF16, {B, M, Dim(1)});
  Tensor y1 = f.input("y1", DType::BF16, {B, Dim(1), K});
  Tensor mt = f.input("mt", DType::Bool, {K, M});
  Tensor v = maximum(x, y0) * y1;
  f.output(where(permute(mt, {1, 0}), v, constant(f, 0, DType::BF16)) * 1.0);
  f.output(v * 1.0);
  const std::string text = Executor(f).explain(resolve_input_shapes(f, {}, {{"B", 64}, {"M", 256}, {"K", 768}}));
  EXPECT_NE(text.find("(in,staged)"), std::string::npos) << text;
  EXPECT_NE(text.find("params: vec=8 threads=256 unroll=1 min_blocks="), std::string::npos) << text;
  EXPECT_NE(text.find(" tile_vec=16 "), std::string::npos) << text;
  EXPECT_NE(text.find(", 0 bytes spill stores"), std::string::npos) << text;
}
