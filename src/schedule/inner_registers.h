#pragma once
// The inner scheduler's register model (inner_scheduler.cpp), for the tests that hold it against
// ptxas over a corpus (tests/register_model_test.cpp).
#include "schedule/scheduler.h"

namespace solder {

// Registers a thread of this held-row plan (persistent_batch > 0) needs, before any cap: the
// held row values, 32 for addresses and reductions, the prefetched row where it is in
// registers, both vectors of each shifted pair.
int inner_register_estimate(const ScheduleContext& cx, const KernelParams& p);

}  // namespace solder
