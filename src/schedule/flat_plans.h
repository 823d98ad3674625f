#pragma once
// What the two flat schedulers (pointwise, full reduction) share: the flat template's plans.
#include <vector>

#include "schedule/scheduler.h"

namespace solder {

// The flat template's plans for the segment: the heuristic (or recorded) one first, then
// plans that hold fewer registers (no unroll, then narrower vectors), so a spill falls back
// to a smaller plan instead of refusing the kernel.
std::vector<KernelPlan> flat_candidates(const ScheduleContext& cx);

}  // namespace solder
