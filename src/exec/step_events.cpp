#include "exec/step_events.h"

#include <string>

#include "runtime/driver.h"

namespace solder {

StepEvents::~StepEvents() {
  if (begin_.empty()) return;  // never profiled: do not even load the driver
  const DriverApi* cu = driver();
  if (!cu) return;
  // Errors are ignored: at process exit the context may already be gone.
  for (CUevent e : begin_) cu->cuEventDestroy(e);
  for (CUevent e : end_) cu->cuEventDestroy(e);
}

void StepEvents::ensure(size_t pairs) {
  const DriverApi* cu = driver();
  // begin_ may be one ahead of end_ after a failed create; the loop picks up from there.
  while (end_.size() < pairs) {
    CUevent e = nullptr;
    if (begin_.size() == end_.size()) {
      check_cuda(cu->cuEventCreate(&e, CU_EVENT_DEFAULT), "creating a profiling event");
      begin_.push_back(e);
    }
    check_cuda(cu->cuEventCreate(&e, CU_EVENT_DEFAULT), "creating a profiling event");
    end_.push_back(e);
  }
}

void StepEvents::begin(size_t i, CUstream stream) {
  check_cuda(driver()->cuEventRecord(begin_[i], stream), "recording a profiling event");
}

void StepEvents::end(size_t i, CUstream stream) {
  check_cuda(driver()->cuEventRecord(end_[i], stream), "recording a profiling event");
}

float StepEvents::elapsed_ms(size_t i) const {
  const DriverApi* cu = driver();
  check_cuda(cu->cuEventSynchronize(end_[i]), "waiting for profiling event " + std::to_string(i));
  float ms = 0;
  check_cuda(cu->cuEventElapsedTime(&ms, begin_[i], end_[i]), "reading profiling event " + std::to_string(i));
  return ms;
}

}  // namespace solder
