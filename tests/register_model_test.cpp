// The schedulers' register models against ptxas (issue 27). The inner scheduler's, over a corpus
// of held-row norms:
// Each plan the scheduler picks first (so one the model let through) is compiled twice: at its
// own cap (min_blocks), as a run compiles it, where a spill is the model's miss (the run then
// compiles a retry); and without a cap (min_blocks=1), where ptxas's count is what the plan
// takes when registers are free (an upper bound on what it needs: ptxas spends registers freely
// when nothing caps them). Prints both, the mean and worst error against the uncapped count, and
// fails where the misses or the error grow past today's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "codegen/kernel_codegen.h"
#include "runtime/compiler.h"
#include "schedule/inner_registers.h"
#include "support/first_plan.h"
#include "support/inner_shift_programs.h"
#include "support/lowered_kernel.h"
#include "support/outer_norm_programs.h"

using namespace solder;
using namespace solder::testing;

namespace {

struct Sample {
  std::string what;
  int estimate = 0, ptxas = 0;  // ptxas: registers without a cap
  int capped = 0, spilled = 0;  // at the plan's cap: registers, spill bytes
};

}  // namespace

TEST(RegisterModel, InnerHeldRowsAgainstPtxas) {
  std::vector<Sample> samples;
  const DeviceInfo dev = h100_profile();
  for (DType t : {DType::F32, DType::F16, DType::BF16})
    for (const std::string kind : {"rms", "rms_w", "ln_res", "softmax"})
      for (int64_t h : {768, 1024, 3000, 4096, 8192, 16384}) {
        const Scheduled c = schedule(sliced_norm(t, kind, h, 0, 0), {{"B", 4096}});
        if (c.scheduler != "inner" || c.plan.params.batch <= 0) continue;  // looped or split rows hold nothing
        const Segment& s = c.sf.segments.at(c.segment);
        const ScheduleContext cx{c.sf.fusion, s, c.segment, c.shape, c.facts, dev};
        KernelPlan uncapped = c.plan;
        uncapped.params.min_blocks = 1;
        const KernelSource src = generate_kernel(c.sf.fusion, s, uncapped), at_cap = generate_kernel(c.sf.fusion, s, c.plan);
        const CompiledKernel k = compile_cuda(src.source, src.name, dev.arch()), kc = compile_cuda(at_cap.source, at_cap.name, dev.arch());
        Sample x;
        x.capped = kc.ptxas.registers;
        x.spilled = kc.ptxas.spill_store_bytes + kc.ptxas.spill_load_bytes;
        x.what = std::string(dtype_name(t)) + " " + kind + " H=" + std::to_string(h) + " (" + c.plan.params.str() + ")";
        x.estimate = inner_register_estimate(cx, c.plan.params);
        x.ptxas = k.ptxas.registers;
        ASSERT_GT(x.ptxas, 0) << x.what;
        samples.push_back(x);
      }
  ASSERT_GE(samples.size(), 40u) << "the corpus lost its held-row plans";
  double sum = 0;
  int misses = 0;
  const Sample* worst = &samples.front();
  const Sample* most_under = &samples.front();
  for (const Sample& x : samples) {
    sum += std::abs(x.estimate - x.ptxas);
    if (std::abs(x.estimate - x.ptxas) > std::abs(worst->estimate - worst->ptxas)) worst = &x;
    if (x.ptxas - x.estimate > most_under->ptxas - most_under->estimate) most_under = &x;
    misses += x.spilled > 0;
    std::printf("  %-90s model %3d, ptxas uncapped %3d, at the cap %3d (%d B spilled)\n", x.what.c_str(), x.estimate,
                x.ptxas, x.capped, x.spilled);
  }
  const double mean = sum / static_cast<double>(samples.size());
  std::printf("register model over %zu held-row plans: %d spill at their cap; against ptxas without a cap mean "
              "|error| %.1f, worst %+d (%s)\n",
              samples.size(), misses, mean, worst->estimate - worst->ptxas, worst->what.c_str());
  // Today (2026-11-27, CUDA 13 ptxas): 72 plans; 18 spill at their cap (every layer norm of
  // x + r but the f16/bf16 768 and 3000 ones: the model holds the sum's inputs as one value and
  // prefetches only the widest input; softmax where the quarter's slack over the cap lets 80
  // estimated registers through); mean 15.2; worst -86 (f32 layer norm of x + r over 768).
  // Bounds at those: a change to the model or the kernels that makes it worse fails here.
  EXPECT_LE(misses, 18);
  EXPECT_LE(mean, 16.0);
  EXPECT_GE(most_under->estimate - most_under->ptxas, -96) << most_under->what;
}

// The outer_norm scheduler's register budget (rows held in registers and the statistics under 40
// registers of the 64-register cap, 88 of 128) against ptxas: its first plan for normalizations
// over transposed views and over a middle axis, compiled at its cap, where a spill is the
// budget's miss (the run then compiles a retry, 0.5-1.8 s for these kernels). Fails where the
// misses grow past today's.
TEST(RegisterModel, OuterNormFirstPlansAgainstPtxas) {
  const DeviceInfo dev = h100_profile();
  int plans = 0, misses = 0;
  for (const auto& [f, sizes] : outer_norm_register_corpus()) {
    const Lowered l = lowered(f, sizes);
    const ScheduleContext cx{l.sf.fusion, l.sf.segments.at(l.si), l.si, l.ks, l.facts, dev};
    const SchedulerChoice choice = choose_scheduler(cx);
    if (std::string(choice.scheduler->name()) != "outer_norm") continue;  // f32 rows of 8192: inner, staged
    std::string what = f.name() + " " + std::string(dtype_name(l.sf.fusion.value(l.ks.operands[0]).dtype));
    for (const auto& [k, v] : sizes) what += " " + k + "=" + std::to_string(v);
    const KernelPlan plan = choice.scheduler->candidates(cx).front();
    const KernelSource src = generate_kernel(l.sf.fusion, l.sf.segments.at(l.si), plan);
    const CompiledKernel k = compile_cuda(src.source, src.name, dev.arch());
    const int spilled = k.ptxas.spill_store_bytes + k.ptxas.spill_load_bytes;
    ++plans;
    misses += spilled > 0;
    std::printf("  %-42s (%s): %3d registers, %4d B spilled\n", what.c_str(), plan.params.str().c_str(), k.ptxas.registers, spilled);
  }
  std::printf("outer_norm register budget over %d first plans: %d spill at their cap\n", plans, misses);
  // Today (2026-12-03, CUDA 13 ptxas): 29 plans, 19 spill (8-624 B: every softmax of a
  // transposed view with a bool mask, layer and rms norms of 64 x 16384, every softmax over a
  // middle axis but the f32 one of 100 x 64, ...): the budget leaves out the column inputs (a
  // register per element) and the loads ptxas hoists in each unrolled pass (perf-notes,
  // 2026-12-03 17:53).
  EXPECT_GE(plans, 29);
  EXPECT_LE(misses, 19);
}
