#pragma once
// GPU timing through the driver API (DESIGN "How to measure"): warm-up first so compilation
// stays out, L2 flushed by a write before every timed repetition, CUDA events around the work,
// median of an adaptive number of repetitions. All functions need has_gpu() and throw
// solder::Error otherwise. Times are µs.
#include <cuda.h>

#include <cstddef>
#include <functional>

#include "bench/stats.h"

namespace solder::bench {

struct TimingOptions {
  RepetitionPolicy reps;
  int warmup_calls = 3;    // untimed calls first: compiles, allocator growth, cold TLBs
  bool flush_l2 = true;    // cuMemsetD32Async over >= 2x L2 bytes before each timed rep
  CUstream stream = nullptr;  // nullptr: the legacy default stream
};

// Times fn(stream) (one or more launches) per repetition with a pair of events. Repetitions
// are enqueued in batches and the next batch is queued before the previous one is read, so
// the GPU never idles between the flush and the timed work waiting for the host.
Summary time_gpu(const std::function<void(CUstream)>& fn, const TimingOptions& opts);

// The same-bytes roofline: a workload that moves B bytes (reads + writes) is compared with a
// device-to-device copy that reads B/2 and writes B/2, timed exactly like time_gpu.
Summary time_copy(size_t bytes, const TimingOptions& opts);
// GB/s of moving `bytes` in `median_us` (bytes / time; 1 GB = 1e9 bytes).
double gbs(size_t bytes, double median_us);
// Bandwidth of a large copy (default 2 GiB moved, less when memory is short): the ceiling
// that "% of peak" refers to, measured in the same run.
double copy_ceiling_gbs(const TimingOptions& opts, size_t bytes = size_t(2) << 30);

// Host cost per call: wall time of back-to-back calls without synchronizing, per call, the
// median over chunks of kHostChunk calls (n in all). A synchronize between chunks (untimed)
// keeps the launch queue from filling and turning host time into GPU time; the median keeps one
// chunk the OS interrupted from moving the figure (a quick-suite run read 36 µs for W2 where
// three repeats read 5.2-5.8).
double host_overhead_us(const std::function<void(CUstream)>& fn, int n, CUstream stream = nullptr);
// The same for a raw cuLaunchKernel of an empty kernel: the floor a cached launch is held to.
double raw_launch_overhead_us(int n, CUstream stream = nullptr);

// Clock throttling / co-tenant detection: time a fixed copy at the start and at the end of a
// run; a drift above the tolerance goes into the report's throttle note.
class ThrottleCheck {
 public:
  explicit ThrottleCheck(size_t bytes = size_t(256) << 20, double tolerance = 0.05);
  void start(const TimingOptions& opts);
  Drift finish(const TimingOptions& opts);
  double start_gbs() const { return start_gbs_; }

 private:
  size_t bytes_;
  double tolerance_;
  double start_gbs_ = 0;
};

}  // namespace solder::bench
