// Shift plans (KernelParams::shift): pointwise kernels whose inputs start at phases the
// output's vectors do not share keep the output's vectors, reading each Full input at its own
// phase (one aligned vector where its row is aligned, else the two around it, shifted; element by
// element at a row's or a pad's edges). Which plan the scheduler picks (the access-cost model),
// what launch_grid refuses, and every kernel compiling for sm_90a without spills at odd sizes,
// size-1 dims, padded rows and misaligned inputs. Values: tests/gpu/shift_loads_test.cpp and the
// CPU kernel simulator (bench/experiments/cpu_kernel_sim, `shift_` cases).
#include <gtest/gtest.h>

#include "support/shift_programs.h"
#include "support/first_plan.h"

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

LaunchRecord compiled(const Fusion& f, const Bindings& sizes) { return compiled_launch(f, sizes, "pointwise"); }

bool has_shift(const LaunchRecord& r) { return (r.params + " ").find(" shift ") != std::string::npos; }

}  // namespace

// Seed 7 #123: RoPE over a head dim of 4098 (halves of 2049). The cat's pieces read x one half
// off (phases 1 and 7 of 8), and the windows' bound 2049 divides no vector: every plan before
// took one element per thread. The shift plan keeps x, cos, sin and the output in vectors of 8.
TEST(ShiftLoads, RopeOverOddHalvesKeepsTheOutputsVectors) {
  const LaunchRecord r = compiled(rope_halves(DType::F16, 4098), {{"B", 16}, {"M", 1000}});
  EXPECT_TRUE(has_shift(r)) << r.params;
  EXPECT_EQ(r.vec, 8) << r.params;
  EXPECT_EQ(r.params.find("one_row"), std::string::npos) << r.params;
  EXPECT_EQ(r.spill_bytes, 0);
  // Halves of 2048: every piece aligned, the plan as before (no shift).
  const LaunchRecord even = compiled(rope_halves(DType::F16, 4096), {{"B", 16}, {"M", 1000}});
  EXPECT_FALSE(has_shift(even)) << even.params;
  EXPECT_EQ(even.vec, 8) << even.params;
  // A head dim of 6 (innermost dim under a vector of 8): a lane's window index would wrap twice.
  const LaunchRecord tiny = compiled(rope_halves(DType::F16, 6), {{"B", 16}, {"M", 1000}});
  EXPECT_TRUE(!has_shift(tiny) || tiny.vec <= 6) << tiny.params;
}

// Seed 7 #141 and seed 6 #131: the halves of a view one element into rows of an odd stride
// (phases differ row to row, so no phase-shifted rows): the output stays in vectors of 8.
TEST(ShiftLoads, HalvesOfAViewAtOddStrides) {
  for (DType t : {DType::BF16, DType::F16}) {
    const LaunchRecord r = compiled(gated_halves(t, 1024, 1, true, true), {{"B", 2048}, {"W", 2051}});
    EXPECT_TRUE(has_shift(r)) << r.params;
    EXPECT_EQ(r.vec, 8) << r.params;
    const LaunchRecord wide = compiled(gated_halves(t, 6144, 1, true, false), {{"B", 64}, {"W", 12291}});
    EXPECT_TRUE(has_shift(wide)) << wide.params;
    // Halves of an aligned tensor: no shift.
    const LaunchRecord plain = compiled(gated_halves(t, 1024, 0, false, false), {{"B", 2048}, {"W", 2048}});
    EXPECT_FALSE(has_shift(plain)) << plain.params;
    EXPECT_EQ(plain.vec, 8) << plain.params;
  }
  // f32: vectors of 4 cut the accesses less (3 -> 1.75 per element), still enough (seed 11 #019:
  // 78 -> 57 us).
  const LaunchRecord f32 = compiled(gated_halves(DType::F32, 1024, 1, false, false), {{"B", 2048}, {"W", 2051}});
  EXPECT_TRUE(has_shift(f32)) << f32.params;
  EXPECT_EQ(f32.vec, 4) << f32.params;
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
  // Rope's columns [M, K]: its pinned shift plan of vectors of 8 at a head dim of 6.
  const Scheduled r = schedule(rope_halves(DType::F16, 6), {{"B", 4}, {"M", 1000}});
  KernelPlan pinned = r.plan;
  pinned.params = parse_params("vec=8,unroll=1,one_row=0,col_vec=0,shift=1", pinned.params);
  ASSERT_EQ(r.facts.dims.size(), 3u);
  EXPECT_THROW(launch_grid(pinned, r.facts, h100_profile(), 8, 0), Error) << pinned.key();
}

TEST(ShiftLoads, PlansPrintParseAndValidate) {
  const Scheduled c = schedule(padded_product(DType::BF16), {{"B", 64}, {"H", 4096}}, {{0, {3, 0}}, {1, {1, 1}}});
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
// every phase), views at every offset, padded and misaligned rows, size-1 dims.
TEST(ShiftLoads, CompileWithoutSpills) {
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    const std::string tn(dtype_name(t));
    std::vector<std::pair<std::string, LaunchRecord>> records;
    for (int64_t k : {4098, 130, 18, 34})
      records.emplace_back(tn + " rope K=" + std::to_string(k), compiled(rope_halves(t, k), {{"B", 3}, {"M", 8}}));
    records.emplace_back(tn + " rope, one row", compiled(rope_halves(t, 4098), {{"B", 1}, {"M", 1}}));
    for (int64_t off : {1, 2, 3, 5})
      records.emplace_back(tn + " gated halves off " + std::to_string(off),
                           compiled(gated_halves(t, 336, off, off != 3, off == 5), {{"B", 9}, {"W", 336 * 2 + off + 3}}));
    for (const auto& [what, r] : records) {
      EXPECT_EQ(r.spill_bytes, 0) << what << ": " << r.params;
      if (t != DType::F32 && what.find("one row") == std::string::npos) EXPECT_TRUE(has_shift(r)) << what << ": " << r.params;
    }
    for (const auto& [what, layouts] : std::vector<std::pair<std::string, std::map<int, InputLayout>>>{
             {"padded", {{0, {3, 0}}, {1, {1, 1}}}}, {"misaligned", {{0, {0, 1}}, {1, {0, 3}}}}, {"padded, odd", {{0, {1, 0}}}}})
      for (const Bindings& b : std::vector<Bindings>{{{"B", 9}, {"H", 1024}}, {{"B", 1}, {"H", 1000}}, {{"B", 5}, {"H", 8}}}) {
        SCOPED_TRACE(tn + " padded product " + what + " H=" + std::to_string(b.at("H")));
        const Scheduled c = schedule(padded_product(t), b, layouts, true);
        const PreparedKernel& pk = c.prepared;
        EXPECT_FALSE(pk.spills) << pk.plan.params.str();
        EXPECT_EQ(pk.compiled->ptxas.spill_store_bytes, 0) << pk.plan.params.str();
        EXPECT_TRUE(pk.rejected.empty()) << pk.rejected.front();
      }
  }
}
