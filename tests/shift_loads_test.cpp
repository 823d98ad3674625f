// Shift plans (KernelParams::shift): pointwise kernels whose inputs start at phases the
// output's vectors do not share keep the output's vectors, reading each Full input at its own
// phase (one aligned vector where its row is aligned, else the two around it, shifted; element by
// element at a row's or a pad's edges). Which plan the scheduler picks (the access-cost model),
// what launch_grid refuses, and every kernel compiling for sm_90a without spills at odd sizes,
// size-1 dims, padded rows and misaligned inputs. Values: tests/gpu/shift_loads_test.cpp and the
// CPU kernel simulator (bench/experiments/cpu_kernel_sim, `shift_` cases).
#include <gtest/gtest.h>

#include "support/shift_programs.h"

#include "pipeline/compile_kernel.h"
#include "pipeline/pipeline.h"
#include "programs/run_inputs.h"
#include "runtime/device_info.h"
#include "runtime/kernel_cache.h"
#include "schedule/launch_grid.h"
#include "schedule/scheduler.h"
#include "solder/error.h"
#include "solder/executor.h"

using namespace solder;
using namespace solder::testing;

namespace {

// An input's innermost dim padded by `pad` elements, its first element `offset` past alignment.
struct InputLayout {
  int64_t pad = 0, offset = 0;
};

struct Scheduled {
  KernelPlan plan;  // the first candidate
  LaunchFacts facts;
  PreparedKernel prepared;  // with `compile`
};

Scheduled schedule(const Fusion& f0, const Bindings& sizes, const std::map<int, InputLayout>& layouts = {},
                   bool compile = false) {
  SegmentedFusion sf = lower(f0);
  const Fusion& f = sf.fusion;
  const Bindings b = bind_shapes(f, resolve_input_shapes(f0, {}, sizes));
  int si = 0;
  while (sf.segments.at(si).kind != SegmentKind::Kernel) ++si;
  const Segment& s = sf.segments.at(si);
  KernelShape ks = analyze_kernel(f, s);
  std::vector<std::vector<int64_t>> shapes, strides;
  std::vector<uint64_t> addresses;
  for (int v : ks.operands) {
    // A view's facts come from its input's layout (kernel_facts applies the view's offset).
    shapes.push_back(eval_shape(f.value(v).shape, b));
    InputLayout l;
    for (size_t i = 0; i < f.inputs().size(); ++i)
      if (f.inputs()[i] == v && layouts.count(static_cast<int>(i))) l = layouts.at(static_cast<int>(i));
    const std::vector<int64_t>& sh = shapes.back();
    std::vector<int64_t> st(sh.size(), 1);
    int64_t acc = 1;
    for (int d = static_cast<int>(sh.size()) - 1; d >= 0; --d) {
      st[d] = acc;
      acc *= sh[d] + (d + 1 == static_cast<int>(sh.size()) ? l.pad : 0);
    }
    strides.push_back(st);
    addresses.push_back(kAlignClass + static_cast<uint64_t>(l.offset * dtype_size(f.value(v).dtype)));
  }
  Scheduled c;
  c.facts = kernel_facts(sf, si, ks, shapes, strides, addresses);
  const DeviceInfo dev = h100_profile();
  const ScheduleContext cx{f, s, si, ks, c.facts, dev};
  c.plan = choose_scheduler(cx).scheduler->candidates(cx).front();
  if (compile) c.prepared = prepare_kernel(sf, si, ks, c.facts, dev, KernelCache::global());
  return c;
}

}  // namespace

// Seed 7 #123: RoPE over a head dim of 4098 (halves of 2049). The cat's pieces read x one half
// off (phases 1 and 7 of 8), and the windows' bound 2049 divides no vector: every plan before
// took one element per thread. The shift plan keeps x, cos, sin and the output in vectors of 8.
TEST(ShiftLoads, RopeOverOddHalvesKeepsTheOutputsVectors) {
  const Fusion f = rope_halves(DType::F16, 4098);
  const Scheduled c = schedule(f, {{"B", 16}, {"M", 1000}});
  EXPECT_TRUE(c.plan.params.shift) << c.plan.key();
  EXPECT_EQ(c.plan.params.vec, 8) << c.plan.key();
  EXPECT_EQ(c.plan.params.col_vec, 0);
  EXPECT_FALSE(c.plan.params.one_row);
  EXPECT_TRUE(c.plan.problems().empty());
  EXPECT_NO_THROW(launch_grid(c.plan, c.facts, h100_profile(), 8, 0));
  // Halves of 2048: every piece aligned, the plan as before (no shift).
  const Scheduled even = schedule(rope_halves(DType::F16, 4096), {{"B", 16}, {"M", 1000}});
  EXPECT_FALSE(even.plan.params.shift) << even.plan.key();
  EXPECT_EQ(even.plan.params.vec, 8);
  // A head dim of 6 (innermost dim under a vector): a lane's window index would wrap twice.
  const Scheduled tiny = schedule(rope_halves(DType::F16, 6), {{"B", 16}, {"M", 1000}});
  EXPECT_TRUE(!tiny.plan.params.shift || tiny.plan.params.vec <= 6) << tiny.plan.key();
}

// Seed 7 #141 and seed 6 #131: the halves of a view one element into rows of an odd stride
// (phases differ row to row, so no phase-shifted rows): the output stays in vectors of 8.
TEST(ShiftLoads, HalvesOfAViewAtOddStrides) {
  for (DType t : {DType::BF16, DType::F16}) {
    const Fusion f = gated_halves(t, 1024, 1, true, true);
    const Scheduled c = schedule(f, {{"B", 2048}, {"W", 2051}});
    EXPECT_TRUE(c.plan.params.shift) << c.plan.key();
    EXPECT_EQ(c.plan.params.vec, 8) << c.plan.key();
    // Contiguous halves of an aligned tensor: no shift.
    const Scheduled plain = schedule(gated_halves(t, 1024, 0, true, true), {{"B", 2048}, {"W", 2048}});
    EXPECT_FALSE(plain.plan.params.shift) << plain.plan.key();
  }
}

// Inputs at one phase in every row keep the phase-shifted rows (full width, no shift cost); rows
// padded to an odd stride (phases differ row to row) take the shift plan; aligned rows neither.
TEST(ShiftLoads, ThePlanTakenByPhases) {
  const Fusion f = padded_product(DType::F16);
  const Scheduled same = schedule(f, {{"B", 64}, {"H", 4097}}, {{0, {0, 1}}, {1, {0, 1}}});
  EXPECT_FALSE(same.plan.params.shift) << same.plan.key();
  const Scheduled padded = schedule(f, {{"B", 64}, {"H", 4096}}, {{0, {3, 0}}, {1, {1, 1}}});
  EXPECT_TRUE(padded.plan.params.shift) << padded.plan.key();
  EXPECT_EQ(padded.plan.params.vec, 8);
  const Scheduled aligned = schedule(f, {{"B", 64}, {"H", 4096}});
  EXPECT_FALSE(aligned.plan.params.shift) << aligned.plan.key();
  // The output's rows decide the width: rows of 4098 store vectors of 2 at most, which the
  // model does not take over the plain plan's elements... unless it halves the accesses.
  const Scheduled odd_out = schedule(f, {{"B", 64}, {"H", 4098}}, {{0, {3, 0}}, {1, {1, 1}}});
  if (odd_out.plan.params.shift) EXPECT_EQ(odd_out.plan.params.vec, 2) << odd_out.plan.key();
}

// launch_grid refuses a shift plan whose outputs are misaligned, or whose innermost dim is
// shorter than a vector where columns span several dims; its inputs may be at any phase.
TEST(ShiftLoads, LaunchRefusesWhatTheFormCannotAddress) {
  const Fusion f = padded_product(DType::F16);
  const Scheduled c = schedule(f, {{"B", 64}, {"H", 4096}}, {{0, {3, 0}}, {1, {1, 1}}});
  ASSERT_TRUE(c.plan.params.shift);
  const Scheduled odd = schedule(f, {{"B", 64}, {"H", 4099}}, {{0, {3, 0}}, {1, {1, 1}}});
  EXPECT_THROW(launch_grid(c.plan, odd.facts, h100_profile(), 8, 0), Error) << "output rows of 4099";
  KernelPlan unshifted = c.plan;
  unshifted.params.shift = false;
  EXPECT_THROW(launch_grid(unshifted, c.facts, h100_profile(), 8, 0), Error);
  const Scheduled r = schedule(rope_halves(DType::F16, 4098), {{"B", 4}, {"M", 10}});
  ASSERT_TRUE(r.plan.params.shift);
  const Scheduled r6 = schedule(rope_halves(DType::F16, 6), {{"B", 4}, {"M", 10}});
  EXPECT_THROW(launch_grid(r.plan, r6.facts, h100_profile(), 8, 0), Error);
}

TEST(ShiftLoads, PlansPrintParseAndValidate) {
  const Scheduled c = schedule(rope_halves(DType::BF16, 4098), {{"B", 16}, {"M", 100}});
  ASSERT_TRUE(c.plan.params.shift);
  EXPECT_NE(c.plan.params.str().find(" shift"), std::string::npos);
  EXPECT_EQ(parse_params(c.plan.params.str()), c.plan.params);
  EXPECT_TRUE(parse_params("shift=1").shift);
  KernelPlan bad = c.plan;
  bad.params.unroll = 2;
  EXPECT_FALSE(bad.problems().empty());
  bad = c.plan;
  bad.params.one_row = true;
  EXPECT_FALSE(bad.problems().empty());
  bad = c.plan;
  bad.shape.category = KernelCategory::Full;
  EXPECT_FALSE(bad.problems().empty());
}

// Every kernel of the form compiles without spills: f32/f16/bf16, odd head dims (halves at
// every phase), views at every offset, padded rows, size-1 dims.
TEST(ShiftLoads, CompileWithoutSpills) {
  struct Case {
    std::string what;
    Fusion f;
    Bindings sizes;
    std::map<int, InputLayout> layouts;
  };
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    const std::string tn(dtype_name(t));
    std::vector<Case> cases;
    for (int64_t k : {4098, 130, 18, 34})
      cases.push_back({tn + " rope K=" + std::to_string(k), rope_halves(t, k), {{"B", 3}, {"M", 7}}, {}});
    cases.push_back({tn + " rope, one row", rope_halves(t, 4098), {{"B", 1}, {"M", 1}}, {}});
    for (int64_t off : {1, 3, 5})
      cases.push_back({tn + " gated halves off " + std::to_string(off), gated_halves(t, 333, off, off != 3, off == 5),
                       {{"B", 9}, {"W", 333 * 2 + off + 2}}, {}});
    cases.push_back({tn + " padded product", padded_product(t), {{"B", 9}, {"H", 1024}}, {{0, {3, 0}}, {1, {1, 1}}}});
    cases.push_back({tn + " padded product, one row", padded_product(t), {{"B", 1}, {"H", 1000}}, {{0, {0, 1}}}});
    for (Case& cs : cases) {
      SCOPED_TRACE(cs.what);
      const Scheduled c = schedule(cs.f, cs.sizes, cs.layouts, true);
      const PreparedKernel& pk = c.prepared;
      EXPECT_FALSE(pk.spills) << pk.plan.params.str();
      EXPECT_EQ(pk.compiled->ptxas.spill_store_bytes, 0) << pk.plan.params.str();
      EXPECT_TRUE(pk.rejected.empty()) << pk.rejected.front();
      if (t != DType::F32 && cs.what.find("rope K=4098") != std::string::npos)
        EXPECT_TRUE(pk.plan.params.shift) << pk.plan.params.str();
    }
  }
}
