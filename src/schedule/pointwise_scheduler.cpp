// Pointwise kernels: every output element computed independently over the segment's domain,
// through the flat template (codegen/kernel_flat.cpp): a grid-stride loop over row chunks,
// 16-byte vectors where the operands allow.
#include "schedule/flat_plans.h"
#include "schedule/registry.h"

namespace solder {

namespace {
class PointwiseScheduler final : public Scheduler {
 public:
  const char* name() const override { return "pointwise"; }
  std::optional<std::string> cannot_schedule(const ScheduleContext& cx) const override {
    if (cx.segment.category != KernelCategory::Pointwise) return "the segment reduces";
    return std::nullopt;
  }
  std::vector<KernelPlan> candidates(const ScheduleContext& cx) const override { return flat_candidates(cx); }
};
}  // namespace

const Scheduler& pointwise_scheduler() {
  static const PointwiseScheduler s;
  return s;
}

}  // namespace solder
