#include "bench/profile_run.h"

#include <chrono>

#include "runtime/driver.h"
#include "solder/error.h"

namespace solder::bench {
namespace {

using Clock = std::chrono::steady_clock;

const DriverApi* need_driver() {
  const DriverApi* cu = driver();
  if (!cu) throw Error("no GPU: " + driver_unavailable_reason());
  return cu;
}

// One run + synchronize; returns its wall µs. Outputs are dropped (back to the allocator).
double timed_run(const DriverApi* cu, Executor& ex, const std::vector<DeviceTensor>& inputs, CUstream stream) {
  auto t0 = Clock::now();
  ex.run(inputs, stream);
  check_cuda(cu->cuStreamSynchronize(stream), "synchronizing a profiled run");
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

// Switches profiling off on every way out.
struct ProfilingOn {
  Executor& ex;
  explicit ProfilingOn(Executor& e) : ex(e) { ex.set_profiling(true); }
  ~ProfilingOn() { ex.set_profiling(false); }
};

}  // namespace

std::vector<ProfiledIteration> profile_iterations(Executor& ex, const std::vector<DeviceTensor>& inputs,
                                                  int iterations, CUstream stream) {
  const DriverApi* cu = need_driver();
  ProfilingOn on(ex);
  timed_run(cu, ex, inputs, stream);  // warm-up: compile and event creation stay out
  std::vector<ProfiledIteration> out;
  for (int i = 0; i < iterations; ++i) {
    ProfiledIteration it;
    it.wall_us = timed_run(cu, ex, inputs, stream);
    it.steps = ex.last_step_timings();
    out.push_back(std::move(it));
  }
  return out;
}

double unprofiled_wall_us(Executor& ex, const std::vector<DeviceTensor>& inputs, int iterations, CUstream stream) {
  const DriverApi* cu = need_driver();
  if (iterations <= 0) return 0;
  timed_run(cu, ex, inputs, stream);
  double total = 0;
  for (int i = 0; i < iterations; ++i) total += timed_run(cu, ex, inputs, stream);
  return total / iterations;
}

}  // namespace solder::bench
