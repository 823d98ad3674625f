// Pointwise kernels: every output element computed independently over the segment's domain,
// through the flat template (codegen/kernel_flat.cpp): a grid-stride loop over row chunks,
// 16-byte vectors where the operands allow. Segments whose operands disagree on their fastest
// dim are the transpose scheduler's (transpose_view.h): the flat template would read one of
// them element by element across its fast dim.
#include "schedule/flat_plans.h"
#include "schedule/registry.h"
#include "schedule/transpose_view.h"

namespace solder {

namespace {
class PointwiseScheduler final : public Scheduler {
 public:
  const char* name() const override { return "pointwise"; }
  std::optional<std::string> cannot_schedule(const ScheduleContext& cx) const override {
    if (cx.segment.category != KernelCategory::Pointwise) return "the segment reduces";
    if (const auto v = transpose_view(cx, nullptr))
      return v->why + ": the flat template would read one of them element by element (transpose)";
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
