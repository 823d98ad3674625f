// Full reductions (every dim reduced to a scalar, with a scalar epilogue), through the flat
// template: per-warp shuffles, a block combine, one atomic per block, and the last block to
// finish runs the epilogue and resets the scratch (no memset between launches). Those whose
// inputs disagree on their fastest dim are the transpose scheduler's (registered before this
// one: transpose_view.h), which folds staged tiles into the same accumulators and combine.
#include "schedule/flat_plans.h"
#include "schedule/registry.h"

namespace solder {

namespace {
class FullReductionScheduler final : public Scheduler {
 public:
  const char* name() const override { return "full_reduction"; }
  std::optional<std::string> cannot_schedule(const ScheduleContext& cx) const override {
    if (cx.segment.category != KernelCategory::Full) return "not every dim is reduced";
    return std::nullopt;
  }
  std::vector<KernelPlan> candidates(const ScheduleContext& cx) const override { return flat_candidates(cx); }
};
}  // namespace

const Scheduler& full_reduction_scheduler() {
  static const FullReductionScheduler s;
  return s;
}

}  // namespace solder
