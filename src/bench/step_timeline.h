#pragma once
// Turns the per-step timings of profiled runs (Executor::last_step_timings) into a Timeline for
// profile_table.h and trace.h. Events give each step's GPU duration but no absolute start, so
// each iteration's steps are laid end to end from the start of that iteration's host interval
// (run + synchronize, its measured wall time); iterations follow each other.
#include <vector>

#include "bench/timeline.h"
#include "solder/executor.h"

namespace solder::bench {

struct ProfiledIteration {
  std::vector<StepTiming> steps;
  double wall_us = 0;  // steady_clock around run() + synchronize
};

// Timed steps become kernel intervals on stream 0 (registers <= 0 read as unknown); views
// become 0-µs host items at their place in the sequence; each iteration is a host interval
// "iteration <i>". wall_us is the sum of the iterations' wall times.
Timeline timeline_from_steps(const std::vector<ProfiledIteration>& iterations);

}  // namespace solder::bench
