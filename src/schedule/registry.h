#pragma once
// The registered schedulers (each defined in its own file). Only registry.cpp lists them.
#include "schedule/scheduler.h"

namespace solder {

const Scheduler& pointwise_scheduler();       // pointwise_scheduler.cpp
const Scheduler& transpose_scheduler();       // transpose_scheduler.cpp
const Scheduler& outer_scheduler();           // outer_scheduler.cpp
const Scheduler& outer_norm_scheduler();      // outer_norm_scheduler.cpp
const Scheduler& inner_scheduler();           // inner_scheduler.cpp
const Scheduler& full_reduction_scheduler();  // full_reduction_scheduler.cpp

}  // namespace solder
