// Rows in flight (KernelParams::row_unroll): 2-D pointwise plans whose rows fit one pass of a
// block take row_unroll consecutive rows per block step, each thread issuing its vector loads of
// every one before the first use (one row at a time left one vector per thread in flight: seed
// 11 #053 at 48 % of a copy). Which programs the scheduler gives it (rows of one pass, rows
// enough to keep a few waves of blocks, about 64 bytes of loads in flight per thread), what
// launch_grid gives and refuses, printing and validation, and every kernel compiling for sm_90a
// without spills at the scheduler's plan and pinned ones. Values: tests/gpu/row_unroll_test.cpp
// and the CPU kernel simulator (bench/experiments/cpu_kernel_sim, `rowunroll_` cases).
#include <gtest/gtest.h>

#include "support/first_plan.h"
#include "support/row_unroll_programs.h"
#include "support/shift_programs.h"

#include "schedule/launch_grid.h"
#include "solder/error.h"
#include "solder/executor.h"

using namespace solder;
using namespace solder::testing;

namespace {

// The pointwise kernel's launch record for contiguous inputs of these sizes (optionally pinned).
LaunchRecord compiled(const Fusion& f, const Bindings& sizes, const std::string& plan = "") {
  ExecutorOptions o;
  o.plan = plan;
  const std::vector<LaunchRecord> r = Executor(f, o).compile_for(resolve_input_shapes(f, {}, sizes));
  for (const LaunchRecord& l : r)
    if (l.category == "pointwise") return l;
  ADD_FAILURE() << "no pointwise kernel";
  return {};
}

int rows_of(const std::string& params) {
  const size_t at = params.find("row_unroll=");
  return at == std::string::npos ? 1 : std::stoi(params.substr(at + 11));
}

}  // namespace

// Seed 11 #053's form (f16 rows of 333 with a bool [1, M, K] mask and an [B, M, 1] operand) with
// a [K] weight, which keeps the 2-D plan (#053 itself takes one row of R x C with every operand a
// vector: tests/flat_index_test.cpp), phased vectors of 4 at 96 threads: 12 bytes of vector
// loads per row, so 4 rows (48 bytes) in flight.
// Seed 8 #142: f32 rows of 333, x and a [1, M, K] operand (32 bytes a row): 2 rows.
TEST(RowUnroll, TheSchedulerTakesRowsWhereRowsFitOnePass) {
  const Scheduled a = schedule(where_clamp_silu_add(DType::F16, true), {{"B", 128}, {"M", 1000}, {"K", 333}});
  EXPECT_EQ(a.scheduler, "pointwise");
  EXPECT_EQ(a.plan.params.row_unroll, 4) << a.plan.key();
  EXPECT_EQ(a.plan.params.vec, 4) << a.plan.key();
  EXPECT_EQ(a.plan.params.col_vec, 1) << a.plan.key();
  EXPECT_EQ(a.plan.params.threads, 96) << a.plan.key();
  EXPECT_FALSE(a.plan.why.empty());
  const Scheduled b = schedule(sub_mul_add_bcast(DType::F32), {{"B", 128}, {"M", 512}, {"K", 333}});
  EXPECT_EQ(b.plan.params.row_unroll, 2) << b.plan.key();
  EXPECT_EQ(b.plan.params.col_vec, 1) << b.plan.key();
  // Aligned rows: #053's form at rows of 1024 (vectors of 4 at 256 threads, 12 bytes): 4 rows.
  const Scheduled c = schedule(where_clamp_silu_add(DType::F16), {{"B", 128}, {"M", 1000}, {"K", 1024}});
  EXPECT_EQ(c.plan.params.row_unroll, 4) << c.plan.key();
  EXPECT_EQ(c.plan.params.col_vec, 0) << c.plan.key();
  EXPECT_EQ(c.plan.params.threads, 256) << c.plan.key();
  // A weight's vectors count too: f16 x, y and an [H] weight in vectors of 8 (48 bytes): none.
  const Scheduled w = schedule(mul_add_bias(DType::F16), {{"B", 65536}, {"H", 1024}});
  EXPECT_EQ(w.plan.params.row_unroll, 1) << w.plan.key();
  // bf16 #053: vectors of 4 (the f32 output), 12 bytes: 4 rows.
  const Scheduled d = schedule(where_clamp_silu_add(DType::BF16, true), {{"B", 128}, {"M", 1000}, {"K", 333}});
  EXPECT_EQ(d.plan.params.row_unroll, 4) << d.plan.key();
  // f32 x: 16 + 4 bytes a row: 3 rows.
  const Scheduled e = schedule(where_clamp_silu_add(DType::F32, true), {{"B", 128}, {"M", 1000}, {"K", 333}});
  EXPECT_EQ(e.plan.params.row_unroll, 3) << e.plan.key();
  // One element a thread (odd halves of f16 rows of 4098): 4 bytes a row, so 4 rows, their
  // elements loaded ahead as vectors of one.
  const LaunchRecord h = compiled(silu_of_halves(4098), {{"B", 8192}});
  EXPECT_EQ(h.vec, 1) << h.params;
  EXPECT_EQ(rows_of(h.params), 4) << h.params;
  EXPECT_EQ(h.spill_bytes, 0) << h.params;
}

// Fewer rows take fewer rows in flight (R / row_unroll blocks stay >= 4 waves of resident
// blocks: 4 x 132 x 21 at 96 threads); rows of several passes, one row, plans of other forms and
// other schedulers take none.
TEST(RowUnroll, NotWhereTheRowsOrThePlanDoNotAllow) {
  const Fusion f = where_clamp_silu_add(DType::F16, true);
  // Rows of 333 take blocks narrower than 256 threads: rows in flight down to two waves.
  EXPECT_EQ(schedule(f, {{"B", 32}, {"M", 1000}, {"K", 333}}).plan.params.row_unroll, 4);
  EXPECT_EQ(schedule(f, {{"B", 16}, {"M", 1000}, {"K", 333}}).plan.params.row_unroll, 2);
  EXPECT_EQ(schedule(f, {{"B", 8}, {"M", 1000}, {"K", 333}}).plan.params.row_unroll, 1);
  EXPECT_EQ(schedule(f, {{"B", 3}, {"M", 8}, {"K", 333}}).plan.params.row_unroll, 1);
  // Rows of several passes take rows in flight too (a block per pass), where the passes'
  // blocks still make kRowWaves waves (their blocks, 5 passes of 224 threads, count as wide).
  const Scheduled wide = schedule(f, {{"B", 128}, {"M", 100}, {"K", 4097}});
  EXPECT_EQ(wide.plan.params.row_unroll, 4) << wide.plan.key();
  EXPECT_EQ(wide.plan.params.threads, 224) << wide.plan.key();
  EXPECT_EQ(schedule(f, {{"B", 8}, {"M", 100}, {"K", 4097}}).plan.params.row_unroll, 1);
  // One row.
  EXPECT_EQ(schedule(mul_add_bias(DType::F16), {{"B", 1}, {"H", 1024}}).plan.params.row_unroll, 1);
  // Shift plans (rows padded to an odd stride).
  const Scheduled sh = schedule(padded_product(DType::F16), {{"B", 65536}, {"H", 512}}, {{0, {3, 0}}, {1, {1, 1}}});
  EXPECT_TRUE(sh.plan.params.shift) << sh.plan.key();
  EXPECT_EQ(sh.plan.params.row_unroll, 1) << sh.plan.key();
  // Full reductions and inner reductions.
  {
    Fusion r("full_sum");
    Tensor x = r.input("x", DType::F16, {Dim::sym("B"), Dim::sym("H")});
    r.output(sum(cast(x, DType::F32)));
    EXPECT_EQ(schedule(r, {{"B", 65536}, {"H", 333}}).plan.params.row_unroll, 1);
  }
  {
    Fusion r("row_sum");
    Tensor x = r.input("x", DType::F16, {Dim::sym("B"), Dim::sym("H")});
    r.output(sum(cast(x, DType::F32), {1}));
    EXPECT_EQ(schedule(r, {{"B", 65536}, {"H", 333}}).plan.params.row_unroll, 1);
  }
}

// launch_grid: a block per row_unroll rows (R not a multiple: the last block's rows past R are
// skipped), at most the grid's cap; a block per pass of the row along x.
TEST(RowUnroll, LaunchGridCoversTheRows) {
  const Fusion f = where_clamp_silu_add(DType::F16, true);
  // (M = 8: the mask's rows at x's phase, as at the sweep's sizes, so phased rows fit.)
  const Scheduled s = schedule(f, {{"B", 3}, {"M", 8}, {"K", 333}});
  KernelPlan p = s.plan;  // (24 rows: one row of R x C, taken here as the 2-D plan)
  ASSERT_EQ(p.params.row_unroll, 1);
  p.params.one_row = false;
  const Grid g1 = launch_grid(p, s.facts, h100_profile(), 8, 0);
  EXPECT_EQ(g1.y, 24u);
  for (int n : {2, 3, 4}) {
    p.params.row_unroll = n;
    EXPECT_TRUE(p.problems().empty()) << p.key();
    const Grid g = launch_grid(p, s.facts, h100_profile(), 8, 0);
    EXPECT_EQ(g.x, 1u);
    EXPECT_EQ(g.y, static_cast<unsigned>((24 + n - 1) / n)) << n;
  }
  // The large case: 128000 rows in blocks of 4, capped at 8 waves of resident threads' blocks.
  const Scheduled big = schedule(f, {{"B", 128}, {"M", 1000}, {"K", 333}});
  const Grid gb = launch_grid(big.plan, big.facts, h100_profile(), 8, 0);
  EXPECT_EQ(gb.x, 1u);
  EXPECT_GE(int64_t{gb.y} * big.plan.params.row_unroll, 1);
  EXPECT_LE(gb.y, 32000u);
  // Rows of 4097 in passes of 96 x 4 (and the phase): a block per pass along x.
  const Scheduled wide = schedule(f, {{"B", 3}, {"M", 8}, {"K", 4097}});
  KernelPlan w = wide.plan;
  w.params.row_unroll = 2;
  w.params.threads = 96;
  w.params.one_row = false;
  const Grid gw = launch_grid(w, wide.facts, h100_profile(), 8, 0);
  EXPECT_EQ(gw.x, static_cast<unsigned>((4097 + 3 + 96 * 4 - 1) / (96 * 4))) << w.key();
  EXPECT_EQ(gw.y, 12u);
}

TEST(RowUnroll, PlansPrintParseAndValidate) {
  const Scheduled s = schedule(where_clamp_silu_add(DType::F16, true), {{"B", 128}, {"M", 1000}, {"K", 333}});
  ASSERT_EQ(s.plan.params.row_unroll, 4);
  EXPECT_NE(s.plan.params.str().find(" row_unroll=4"), std::string::npos) << s.plan.params.str();
  EXPECT_NE(s.plan.key().find("row_unroll=4"), std::string::npos);
  EXPECT_EQ(parse_params(s.plan.params.str()), s.plan.params);
  EXPECT_EQ(parse_params("row_unroll=3").row_unroll, 3);
  // Printed only above 1: plans without it print (and key) as before.
  KernelParams one = s.plan.params;
  one.row_unroll = 1;
  EXPECT_EQ(one.str().find("row_unroll"), std::string::npos);
  EXPECT_TRUE(s.plan.problems().empty());
  auto bad = [&](auto edit) {
    KernelPlan b = s.plan;
    edit(b);
    return !b.problems().empty();
  };
  EXPECT_TRUE(bad([](KernelPlan& b) { b.params.unroll = 2; }));
  EXPECT_TRUE(bad([](KernelPlan& b) { b.params.one_row = true; }));
  EXPECT_TRUE(bad([](KernelPlan& b) { b.params.col_vec = 0, b.params.shift = true; }));
  EXPECT_TRUE(bad([](KernelPlan& b) { b.params.row_unroll = 0; }));
  EXPECT_TRUE(bad([](KernelPlan& b) { b.params.row_unroll = 9; }));
  EXPECT_TRUE(bad([](KernelPlan& b) { b.shape.category = KernelCategory::Outer; }));
  EXPECT_NO_THROW(s.plan.validate());
}

// Full reductions over rows (seed 17 #059: amax of a slice of f16 16384 x 4099 at 57 % of a
// copy): phased rows of 4096 are 513 vectors of 8, three passes filled evenly at 192 threads
// (not a third pass of one vector at 256: the blocks are one resident wave), and 4 rows' loads
// in flight; a var_mean and an amax of one input, compiled without spills. Values: the CPU
// kernel simulator's `full_*_slice_` cases.
TEST(RowUnroll, FullReductionsOverSlicedRows) {
  for (DType t : {DType::F16, DType::BF16, DType::F32}) {
    const Fusion f = full_of_slice(t);
    const Scheduled s = schedule(f, {{"B", 16384}, {"H", 4096}}, {{0, InputLayout{3, 1}}}, true);
    SCOPED_TRACE(std::string(dtype_name(t)) + " " + s.plan.params.str());
    EXPECT_EQ(s.scheduler, "full_reduction");
    EXPECT_EQ(s.plan.params.col_vec, 1);
    const int vec = 16 / dtype_size(t);
    const int64_t vectors = (4096 + 2 * (vec - 1)) / vec, passes = (vectors + 255) / 256;
    EXPECT_EQ(s.plan.params.threads, ((vectors + passes - 1) / passes + 31) / 32 * 32);
    EXPECT_EQ(s.plan.params.row_unroll, 4);
    EXPECT_FALSE(s.prepared.spills);
    EXPECT_EQ(s.prepared.plan.params.row_unroll, 4) << s.prepared.plan.params.str();
  }
}

// Every kernel of the form compiles without spills: the scheduler's plans at the sweep's sizes
// (f32/f16/bf16), pinned rows in flight over rows of 333, 65 and 7, phased and aligned, [1, M, K],
// [1, M, 1], [B, M, 1] and [K] operands, size-1 dims.
TEST(RowUnroll, CompileWithoutSpills) {
  for (DType t : {DType::F16, DType::BF16, DType::F32}) {
    const std::string tn(dtype_name(t));
    const LaunchRecord r = compiled(where_clamp_silu_add(t, true), {{"B", 128}, {"M", 1000}, {"K", 333}});
    EXPECT_EQ(r.spill_bytes, 0) << tn << " " << r.params;
    EXPECT_GT(rows_of(r.params), 1) << tn << " " << r.params;
    EXPECT_EQ(r.grid_x, 1u) << r.params;
    const LaunchRecord b = compiled(sub_mul_add_bcast(t), {{"B", 128}, {"M", 512}, {"K", 333}});
    EXPECT_EQ(b.spill_bytes, 0) << tn << " " << b.params;
    if (t == DType::F32) EXPECT_EQ(rows_of(b.params), 2) << b.params;
    for (int n : {2, 3, 4})
      for (int64_t k : {333, 65, 7}) {
        const std::string pin = "row_unroll=" + std::to_string(n) + ",one_row=0";
        // (M * K a multiple of 4: the [1, M, K] operands' rows at x's phase, as at the sweep's
        // sizes, so the phased 2-D plan fits.)
        // (The GPU tier's pinned cases: tests/gpu/row_unroll_test.cpp.)
        for (const Bindings& sz : std::vector<Bindings>{{{"B", 3}, {"M", 8}, {"K", k}}, {{"B", 1}, {"M", 9}, {"K", k}},
                                                        {{"B", 5}, {"M", 8}, {"K", k}}})
          for (const auto& [what, f] : std::vector<std::pair<std::string, Fusion>>{{"where", where_clamp_silu_add(t)},
                                                                                  {"bcast", sub_mul_add_bcast(t)}}) {
            const LaunchRecord p = compiled(f, sz, pin);
            const int64_t rows = sz.at("B") * sz.at("M");
            SCOPED_TRACE(tn + " " + what + " K=" + std::to_string(k) + " rows " + std::to_string(rows) + " " + pin);
            EXPECT_EQ(p.spill_bytes, 0) << p.params;
            EXPECT_EQ(rows_of(p.params), n) << p.params;
            EXPECT_EQ(p.grid_y, static_cast<unsigned>((rows + n - 1) / n)) << p.params;
          }
      }
    // Aligned rows with a weight (vectors).
    if (t != DType::BF16)
      for (int n : {2, 3, 4})
        for (const Bindings& sz : std::vector<Bindings>{{{"B", 7}, {"H", 512}}, {{"B", 10}, {"H", 40}}}) {
          const LaunchRecord al = compiled(mul_add_bias(t), sz, "row_unroll=" + std::to_string(n) + ",one_row=0");
          EXPECT_EQ(al.spill_bytes, 0) << al.params;
          EXPECT_EQ(rows_of(al.params), n) << al.params;
          EXPECT_EQ(al.grid_y, static_cast<unsigned>((sz.at("B") + n - 1) / n)) << al.params;
        }
    const LaunchRecord s1 = compiled(where_clamp_silu_add(t), {{"B", 1}, {"M", 9}, {"K", 65}}, "row_unroll=4,one_row=0");
    EXPECT_EQ(s1.spill_bytes, 0) << s1.params;
  }
}
