#pragma once
// CUDA event pairs for a profiled run (Executor::set_profiling): pair i brackets step i. Events
// are created on first use and reused by every later profiled run, so profiling adds two
// cuEventRecord calls per step and no allocation.
#include <cuda.h>

#include <cstddef>
#include <vector>

namespace solder {

class StepEvents {
 public:
  StepEvents() = default;
  ~StepEvents();
  StepEvents(const StepEvents&) = delete;
  StepEvents& operator=(const StepEvents&) = delete;

  void ensure(size_t pairs);  // creates the missing pairs (needs the driver)
  void begin(size_t i, CUstream stream);
  void end(size_t i, CUstream stream);
  // Waits for pair i's end event, then the GPU time between its two events.
  float elapsed_ms(size_t i) const;

 private:
  std::vector<CUevent> begin_, end_;
};

}  // namespace solder
