#include "schedule/flat_plans.h"

namespace solder {

namespace {
// Single-row problems this large give each thread several vectors per pass (more bytes in
// flight, fewer blocks); perf-notes has the measurements.
constexpr int64_t kUnrollFromElements = int64_t{1} << 20;
constexpr int kUnroll = 4;
// 8 resident blocks of 256 threads fill an SM's 2048 threads.
constexpr int kFlatThreads = 256;
}  // namespace

std::vector<KernelPlan> flat_candidates(const ScheduleContext& cx) {
  KernelPlan plan = base_plan(cx.fusion, cx.segment, cx.segment_index, cx.shape, cx.facts);
  KernelParams& p = plan.params;
  // Pointwise kernels over a single row may end in a masked tail; others need C % vec == 0 so
  // every row starts aligned.
  p.vec = widest_vec(plan, cx.facts, cx.facts.R == 1);
  p.threads = kFlatThreads;
  p.unroll = cx.facts.R == 1 && cx.facts.C >= kUnrollFromElements ? kUnroll : 1;
  const std::optional<Choice> pick = cx.recorded_choice(cx.facts.C, p.vec);
  if (pick && pick->threads) {
    p.threads = pick->threads;
    p.unroll = pick->unroll;
  }
  std::vector<KernelPlan> out{plan};
  // Fallbacks after spills: fewer values in flight per thread.
  while (p.unroll > 1 || p.vec > 1) {
    if (p.unroll > 1) p.unroll = 1;
    else p.vec /= 2;
    out.push_back(plan);
  }
  return out;
}

}  // namespace solder
