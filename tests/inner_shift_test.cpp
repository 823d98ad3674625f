// Inner shift plans (KernelParams::shift on inner held rows): norms of a column slice x =
// xw[:, :H] of rows of an odd stride (every row at another phase) keep the output's and the
// weights' vectors, reading each Full input at its own phase (two aligned vectors shifted; one
// where the row is aligned; element by element at the first and last rows' ends). Which plan
// the scheduler picks (seed 9 #144, seed 10 #067 and where not), what validate and launch_grid
// refuse, and every kernel compiling for sm_90a without spills at odd sizes. Values:
// tests/gpu/inner_shift_test.cpp and the CPU kernel simulator (`innershift_` cases).
#include <gtest/gtest.h>

#include "support/first_plan.h"
#include "support/inner_shift_programs.h"

#include "schedule/launch_grid.h"
#include "solder/error.h"
#include "solder/executor.h"

using namespace solder;
using namespace solder::testing;

namespace {

LaunchRecord compiled(const Fusion& f, const Bindings& sizes) { return compiled_launch(f, sizes, "inner-reduction"); }

bool has_shift(const std::string& params) { return (params + " ").find(" shift ") != std::string::npos; }

}  // namespace

// Seed 9 #144: rms norm of a bf16 slice 1000 x 12288 of rows of 12289 (before: vec=1, 1024
// threads a row). Seed 10 #067: rms norm with a weight of an f32 slice 2048 x 16384.
TEST(InnerShift, SweepSlicesKeepSixteenByteVectors) {
  const LaunchRecord a = compiled(sliced_norm(DType::BF16, "rms", 12288, 0, 12289), {{"B", 1000}});
  EXPECT_TRUE(has_shift(a.params)) << a.params;
  EXPECT_EQ(a.vec, 8) << a.params;
  EXPECT_EQ(a.spill_bytes, 0) << a.params;
  const LaunchRecord b = compiled(sliced_norm(DType::F32, "rms_w", 16384, 0, 16385), {{"B", 2048}});
  EXPECT_TRUE(has_shift(b.params)) << b.params;
  EXPECT_EQ(b.vec, 4) << b.params;
  EXPECT_EQ(b.spill_bytes, 0) << b.params;
  // The sweep's own layout: x = xw[:, 1:1 + H] of rows of H + 3.
  const LaunchRecord c = compiled(sliced_norm(DType::BF16, "rms", 12288, 1, 12291), {{"B", 1000}});
  EXPECT_TRUE(has_shift(c.params)) << c.params;
  EXPECT_EQ(c.vec, 8) << c.params;
}

// Where not: aligned rows (as before), rows every one at the same phase (phased rows where
// they apply), outputs whose rows are not whole vectors (H odd: nothing to keep). x [B, H] an
// input laid out as the slice would be (rows padded by `pad`, `offset` elements in).
TEST(InnerShift, ThePlanTakenByPhases) {
  const Fusion f = sliced_norm(DType::BF16, "rms", 4096, 0, 0);
  const Scheduled aligned = schedule(f, {{"B", 64}});
  EXPECT_EQ(aligned.scheduler, "inner");
  EXPECT_FALSE(aligned.plan.params.shift) << aligned.plan.key();
  EXPECT_EQ(aligned.plan.params.vec, 8);
  const Scheduled odd = schedule(f, {{"B", 64}}, {{0, {1, 0}}});
  EXPECT_TRUE(odd.plan.params.shift) << odd.plan.key();
  EXPECT_EQ(odd.plan.params.vec, 8);
  EXPECT_GT(odd.plan.params.batch, 0);
  EXPECT_EQ(odd.plan.params.col_vec, 0);
  const Scheduled sweep = schedule(f, {{"B", 64}}, {{0, {3, 1}}});
  EXPECT_TRUE(sweep.plan.params.shift) << sweep.plan.key();
  // Every row of x at phase 2 (rows of 4104, two elements in) beside an aligned output: phased
  // rows need every operand at one phase, so shift (before: vectors of 2).
  const Scheduled same = schedule(f, {{"B", 64}}, {{0, {8, 2}}});
  EXPECT_TRUE(same.plan.params.shift) << same.plan.key();
  EXPECT_EQ(same.plan.params.vec, 8) << same.plan.key();
  // H odd: the output's rows allow no vectors; nothing to keep.
  const Scheduled h_odd = schedule(sliced_norm(DType::BF16, "rms", 4095, 0, 0), {{"B", 64}}, {{0, {1, 0}}});
  EXPECT_FALSE(h_odd.plan.params.shift) << h_odd.plan.key();
  // H = 4100: vectors of 4 (8 bytes), what the output allows.
  const Scheduled h4 = schedule(sliced_norm(DType::BF16, "rms", 4100, 0, 0), {{"B", 64}}, {{0, {1, 0}}});
  EXPECT_TRUE(h4.plan.params.shift) << h4.plan.key();
  EXPECT_EQ(h4.plan.params.vec, 4) << h4.plan.key();
  // f32 rows (the #067 form) and f16 softmax at odd strides.
  EXPECT_TRUE(schedule(sliced_norm(DType::F32, "rms_w", 16384, 0, 0), {{"B", 2048}}, {{0, {1, 0}}}).plan.params.shift);
  EXPECT_TRUE(schedule(sliced_norm(DType::F16, "softmax", 1000, 0, 0), {{"B", 300}}, {{0, {3, 1}}}).plan.params.shift);
  // A misaligned weight keeps the plan narrow: its vectors are not shifted.
  const Scheduled mis_w = schedule(sliced_norm(DType::BF16, "rms_w", 4096, 0, 0), {{"B", 64}}, {{0, {1, 0}}, {1, {0, 1}}});
  EXPECT_FALSE(mis_w.plan.params.shift && mis_w.plan.params.vec > 1) << mis_w.plan.key();
}

TEST(InnerShift, PlansPrintParseAndValidate) {
  const Scheduled c = schedule(sliced_norm(DType::BF16, "softmax", 2048, 0, 0), {{"B", 64}}, {{0, {1, 0}}});
  ASSERT_TRUE(c.plan.params.shift) << c.plan.key();
  EXPECT_NE(c.plan.params.str().find(" shift"), std::string::npos);
  EXPECT_EQ(parse_params(c.plan.params.str()), c.plan.params);
  EXPECT_TRUE(c.plan.problems().empty());
  KernelPlan bad = c.plan;
  bad.params.batch = 0;  // the looped row
  EXPECT_FALSE(bad.problems().empty());
  bad = c.plan;
  bad.params.col_vec = 2;
  EXPECT_FALSE(bad.problems().empty());
  bad = c.plan;
  bad.params.cluster = 2;
  EXPECT_FALSE(bad.problems().empty());
  bad = c.plan;
  bad.params.vec = 1;
  EXPECT_FALSE(bad.problems().empty());
}

// launch_grid takes a shift plan at any input phase, and refuses one whose weight or output
// rows are not whole vectors, or an unshifted plan of vectors over the slice.
TEST(InnerShift, LaunchRefusesWhatTheFormCannotAddress) {
  const Fusion f = sliced_norm(DType::BF16, "rms_w", 4096, 0, 0);
  const Scheduled c = schedule(f, {{"B", 64}}, {{0, {1, 0}}});
  ASSERT_TRUE(c.plan.params.shift);
  EXPECT_NO_THROW(launch_grid(c.plan, c.facts, h100_profile(), 2, 0));
  const Scheduled other = schedule(f, {{"B", 64}}, {{0, {3, 3}}});
  EXPECT_NO_THROW(launch_grid(c.plan, other.facts, h100_profile(), 2, 0)) << "another phase";
  const Scheduled aligned = schedule(f, {{"B", 64}});
  EXPECT_NO_THROW(launch_grid(c.plan, aligned.facts, h100_profile(), 2, 0)) << "aligned rows";
  KernelPlan unshifted = c.plan;
  unshifted.params.shift = false;
  EXPECT_THROW(launch_grid(unshifted, c.facts, h100_profile(), 2, 0), Error);
  const Scheduled mis_w = schedule(f, {{"B", 64}}, {{0, {1, 0}}, {1, {0, 1}}});
  EXPECT_THROW(launch_grid(c.plan, mis_w.facts, h100_profile(), 2, 0), Error) << "a misaligned weight";
  // x misaligned within an element can't happen with typed tensors; rows overlapping (a row
  // stride under the row length) is refused: the pair's neighbour-row rule needs rows apart.
  Scheduled overlap = c;
  overlap.facts.operands[0].ld = 8;
  EXPECT_THROW(launch_grid(c.plan, overlap.facts, h100_profile(), 2, 0), Error);
}

// A phased plan (col_vec) needs every row-varying operand at one phase: launch_grid refuses it
// where x's rows are padded and the output's are not (seed 44 #033 pinned so read misaligned
// vectors on the device before).
TEST(InnerShift, LaunchRefusesPhasedRowsAtOtherPhases) {
  const Fusion f = sliced_norm(DType::BF16, "rms_w", 4097, 0, 0);
  const Scheduled c = schedule(f, {{"B", 64}});
  ASSERT_GT(c.plan.params.col_vec, 0) << c.plan.key();
  EXPECT_NO_THROW(launch_grid(c.plan, c.facts, h100_profile(), 2, 0));
  const Scheduled padded = schedule(f, {{"B", 64}}, {{0, {1, 0}}});
  try {
    launch_grid(c.plan, padded.facts, h100_profile(), 2, 0);
    ADD_FAILURE() << "a phased plan launched over rows at other phases";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("one phase"), std::string::npos) << e.what();
  }
}

// A pinned vec=1 drops shift (the old plan, for the plan grid).
TEST(InnerShift, PinsOfTheOldPlan) {
  const Fusion f = sliced_norm(DType::BF16, "rms", 12288, 0, 12289);
  std::vector<LaunchRecord> r;
  ExecutorOptions o;
  o.plan = "vec=1,threads_per_row=1024,prefetch";
  ASSERT_NO_THROW(r = Executor(f, o).compile_for(resolve_input_shapes(f, {}, {{"B", 1000}})));
  bool found = false;
  for (const LaunchRecord& l : r)
    if (l.category == "inner-reduction") {
      found = true;
      EXPECT_FALSE(has_shift(l.params)) << l.params;
      EXPECT_EQ(l.vec, 1);
    }
  EXPECT_TRUE(found);
}

// Rows of odd length without weights: phased rows at a phase step of one element (16-byte
// vectors after a scalar head; before: vec 1), f32 rows too. The GPU tier runs these sizes for
// values.
TEST(InnerShift, PhasedRowsOfOddLength) {
  for (DType t : {DType::BF16, DType::F16, DType::F32})
    for (const std::string kind : {"rms", "softmax"})
      for (auto [h, rows] : std::vector<std::pair<int64_t, int64_t>>{{4097, 300}, {333, 2049}, {1001, 37}}) {
        const Scheduled s = schedule(sliced_norm(t, kind, h, 0, 0), {{"B", rows}}, {}, true);
        const std::string what = std::string(dtype_name(t)) + " " + kind + " H=" + std::to_string(h) + " rows " + std::to_string(rows);
        ASSERT_TRUE(s.prepared.compiled) << what;
        EXPECT_FALSE(s.prepared.compiled->ptxas.spills()) << what << ": " << s.prepared.plan.key();
        if (rows >= 132) {
          EXPECT_GT(s.prepared.plan.params.col_vec, 0) << what << ": " << s.prepared.plan.key();
          EXPECT_EQ(s.prepared.plan.params.vec, 16 / dtype_size(t)) << what << ": " << s.prepared.plan.key();
        }
      }
  // With a weight: phased rows too, the weight read element by element at each row's phase.
  EXPECT_EQ(schedule(sliced_norm(DType::BF16, "rms_w", 4097, 0, 0), {{"B", 300}}).plan.params.col_vec, 1);
  // Not with a weight narrower than the row's elements (a bool mask): its byte loads at each
  // row's phase measured slower than single elements.
  EXPECT_EQ(schedule(sliced_norm(DType::F16, "softmax_mask", 4097, 0, 0), {{"B", 300}}).plan.params.col_vec, 0);
  // Rows fewer than SMs: phased only where a thread then holds fewer vectors (two vectors of 8
  // against two elements at 64 x 333; two against nine at 100 x 4097).
  EXPECT_EQ(schedule(sliced_norm(DType::F16, "rms_w", 333, 0, 0), {{"B", 64}}).plan.params.col_vec, 0);
  EXPECT_EQ(schedule(sliced_norm(DType::F16, "rms_w", 4097, 0, 0), {{"B", 100}}).plan.params.col_vec, 1);
}

// Every kernel compiles for sm_90a without spills: f32/f16/bf16, rms (with and without a
// weight), layer norms (a weight and bias; a residual beside x), softmax; odd row lengths, the
// slice at several phases, short rows and long ones, one row.
TEST(InnerShift, CompileWithoutSpills) {
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (const std::string kind : {"rms", "rms_w", "ln_w", "ln_res", "softmax"})
      for (auto [h, rows] : std::vector<std::pair<int64_t, int64_t>>{{1000, 37}, {8, 5}, {4104, 300}, {12288, 1000}, {2048, 1}}) {
        const InputLayout l{h % 2 ? 2 : 1, h % 3};
        const Scheduled s = schedule(sliced_norm(t, kind, h, 0, 0), {{"B", rows}}, {{0, l}}, true);
        const std::string what = std::string(dtype_name(t)) + " " + kind + " H=" + std::to_string(h) + " rows " + std::to_string(rows);
        ASSERT_TRUE(s.prepared.compiled) << what;
        EXPECT_FALSE(s.prepared.spills) << what << ": " << s.prepared.plan.key();
        EXPECT_FALSE(s.prepared.compiled->ptxas.spills()) << what << ": " << s.prepared.plan.key();
        // Several rows whose outputs are whole 16-byte vectors: the shift plan (where it fits:
        // f32 layer norms of x + r over 12288 at 1024 threads spill, and hold unshifted).
        if (rows > 1 && h % 8 == 0 && !(t == DType::F32 && kind == "ln_res" && h == 12288))
          EXPECT_TRUE(s.prepared.plan.params.shift) << what << ": " << s.prepared.plan.key();
        if (t == DType::F32 && kind == "ln_res" && h == 12288) EXPECT_GT(s.prepared.plan.params.batch, 0) << s.prepared.plan.key();
      }
}

// The GPU tier's pinned plans (tests/gpu/inner_shift_test.cpp) compile and keep shift (their
// narrow rows at the pins' register caps spill in f32: they check values, not speed).
TEST(InnerShift, TheGpuTiersPinsCompile) {
  for (DType t : {DType::F32, DType::BF16})
    for (const std::string kind : {"rms_w", "ln_res", "softmax"})
      for (const std::string& pin : kInnerShiftPins) {
        const Fusion f = sliced_norm(t, kind, 1000, 1, 1003);
        ExecutorOptions o;
        o.plan = pin;
        std::vector<LaunchRecord> r;
        const std::string what = std::string(dtype_name(t)) + " " + kind + " " + pin;
        ASSERT_NO_THROW(r = Executor(f, o).compile_for(resolve_input_shapes(f, {}, {{"B", 301}}))) << what;
        for (const LaunchRecord& l : r)
          if (l.category == "inner-reduction") {
            EXPECT_TRUE(has_shift(l.params)) << what << ": " << l.params;
          }
      }
}
