#pragma once
// The GPU side of `solder profile`: profiled iterations of an executor (per-step CUDA events,
// see Executor::set_profiling) and the wall time of unprofiled ones. Needs has_gpu(); throws
// solder::Error otherwise.
#include <vector>

#include "bench/step_timeline.h"
#include "solder/executor.h"

namespace solder::bench {

// One profiled run first (plans, compiles, creates the events, warms the allocator; not
// returned), then `iterations` profiled runs, each synchronized and read before the next
// (the events are reused). Profiling is switched off again at the end.
std::vector<ProfiledIteration> profile_iterations(Executor& ex, const std::vector<DeviceTensor>& inputs,
                                                  int iterations, CUstream stream = nullptr);

// Mean wall µs of `iterations` unprofiled run + synchronize calls: the seed's "wall time with
// profiling disabled", to compare the profiled kernel time with.
double unprofiled_wall_us(Executor& ex, const std::vector<DeviceTensor>& inputs, int iterations,
                          CUstream stream = nullptr);

}  // namespace solder::bench
