#include "bench/gpu_timer.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "runtime/compiler.h"
#include "runtime/device_info.h"
#include "runtime/device_memory.h"
#include "runtime/loaded_kernel.h"
#include "runtime/driver.h"
#include "solder/error.h"

namespace solder::bench {
namespace {

using Clock = std::chrono::steady_clock;

const DriverApi& require_driver(const char* who) {
  const DriverApi* d = driver();
  if (!d) throw Error(std::string(who) + ": no usable GPU (" + driver_unavailable_reason() + ")");
  return *d;
}

// The buffer written before each timed repetition. It is never freed: a static destructor
// would run after the driver may already be torn down at exit.
const DeviceBuffer& l2_flush_buffer() {
  static const DeviceBuffer* buf = [] {
    size_t bytes = 2 * static_cast<size_t>(std::max(current_device().l2_bytes, 1 << 20));
    return new DeviceBuffer((bytes + 3) / 4 * 4);
  }();
  return *buf;
}

// Owns a fixed set of events; destroyed even when the timed function throws.
class EventPool {
 public:
  EventPool(const DriverApi& d, size_t n) : d_(d), events_(n, nullptr) {
    for (auto& e : events_) check_cuda(d_.cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
  }
  ~EventPool() {
    for (auto e : events_)
      if (e) d_.cuEventDestroy(e);
  }
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;
  CUevent operator[](size_t i) const { return events_[i]; }

 private:
  const DriverApi& d_;
  std::vector<CUevent> events_;
};

// Repetitions per batch. Two batches are in flight: the host reads one while the GPU runs the
// next, so the flush that precedes each repetition hides the host's enqueue latency.
constexpr size_t kBatch = 8;
// Calls per chunk in host-overhead loops; far below the driver's pending-launch queue depth.
constexpr int kHostChunk = 50;

}  // namespace

Summary time_gpu(const std::function<void(CUstream)>& fn, const TimingOptions& opts) {
  const DriverApi& d = require_driver("time_gpu");
  CUstream s = opts.stream;
  RepetitionPolicy p = opts.reps;
  p.max_reps = std::max<size_t>(p.max_reps, 1);

  for (int i = 0; i < opts.warmup_calls; ++i) fn(s);
  check_cuda(d.cuStreamSynchronize(s), "cuStreamSynchronize after warm-up");
  // One more synchronized call estimates the cost of a repetition, so that slow work (tens of
  // ms per call) runs in small batches and stays near the time budget.
  auto tw = Clock::now();
  fn(s);
  check_cuda(d.cuStreamSynchronize(s), "cuStreamSynchronize after warm-up");
  double call_ms = std::chrono::duration<double, std::milli>(Clock::now() - tw).count();
  size_t batch = kBatch;
  if (call_ms > 0 && call_ms * kBatch * 2 > p.budget_ms)
    batch = std::clamp<size_t>(static_cast<size_t>(p.budget_ms / (2 * call_ms)), 1, kBatch);

  const DeviceBuffer* flush = opts.flush_l2 ? &l2_flush_buffer() : nullptr;
  EventPool ev(d, 2 * 2 * kBatch);  // [slot][rep][start,end]
  auto start_ev = [&](size_t slot, size_t i) { return ev[(slot * kBatch + i) * 2]; };
  auto end_ev = [&](size_t slot, size_t i) { return ev[(slot * kBatch + i) * 2 + 1]; };

  auto enqueue = [&](size_t slot, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      if (flush)
        check_cuda(d.cuMemsetD32Async(flush->ptr(), static_cast<unsigned>(i), flush->bytes() / 4, s),
                   "cuMemsetD32Async (L2 flush)");
      check_cuda(d.cuEventRecord(start_ev(slot, i), s), "cuEventRecord");
      fn(s);
      check_cuda(d.cuEventRecord(end_ev(slot, i), s), "cuEventRecord");
    }
  };
  std::vector<double> samples;
  auto collect = [&](size_t slot, size_t count) {
    check_cuda(d.cuEventSynchronize(end_ev(slot, count - 1)), "cuEventSynchronize");
    for (size_t i = 0; i < count; ++i) {
      float ms = 0;
      check_cuda(d.cuEventElapsedTime(&ms, start_ev(slot, i), end_ev(slot, i)), "cuEventElapsedTime");
      samples.push_back(1000.0 * ms);
    }
  };

  auto t0 = Clock::now();
  size_t slot = 0, pending_slot = 0, pending = 0;
  StopReason why = StopReason::max_reps;
  for (;;) {
    size_t count = std::min(batch, p.max_reps - samples.size() - pending);
    if (count > 0) enqueue(slot, count);
    if (pending > 0) collect(pending_slot, pending);
    pending_slot = slot;
    pending = count;
    slot ^= 1;
    double elapsed = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (!samples.empty() && should_stop(p, samples, elapsed, &why)) break;
    if (pending == 0) break;  // unreachable with max_reps >= 1; guards an endless loop
  }
  // The batch already queued when the rule said stop is still a valid measurement: keep it.
  if (pending > 0) collect(pending_slot, pending);
  Summary out = summarize(std::move(samples));
  out.stop = why;
  return out;
}

double gbs(size_t bytes, double median_us) {
  return median_us > 0 ? static_cast<double>(bytes) / (median_us * 1e3) : 0.0;
}

Summary time_copy(size_t bytes, const TimingOptions& opts) {
  const DriverApi& d = require_driver("time_copy");
  // Half read, half written; rounded up to 16 bytes so the copy runs on full vectors.
  size_t half = std::max<size_t>((bytes / 2 + 15) / 16 * 16, 16);
  DeviceBuffer src(half), dst(half);
  check_cuda(d.cuMemsetD8Async(src.ptr(), 1, half, opts.stream), "cuMemsetD8Async");
  check_cuda(d.cuMemsetD8Async(dst.ptr(), 0, half, opts.stream), "cuMemsetD8Async");
  return time_gpu(
      [&](CUstream s) { check_cuda(d.cuMemcpyDtoDAsync(dst.ptr(), src.ptr(), half, s), "cuMemcpyDtoDAsync"); },
      opts);
}

double copy_ceiling_gbs(const TimingOptions& opts, size_t bytes) {
  const DriverApi& d = require_driver("copy_ceiling_gbs");
  l2_flush_buffer();  // allocate first so the free-memory check accounts for it
  size_t free_b = 0, total_b = 0;
  check_cuda(d.cuMemGetInfo(&free_b, &total_b), "cuMemGetInfo");
  while (bytes > (1u << 24) && bytes > free_b / 10 * 7) bytes /= 2;  // leave headroom
  return gbs(bytes, time_copy(bytes, opts).median);
}

double host_overhead_us(const std::function<void(CUstream)>& fn, int n, CUstream stream) {
  const DriverApi& d = require_driver("host_overhead_us");
  n = std::max(n, 1);
  for (int i = 0; i < 10; ++i) fn(stream);
  check_cuda(d.cuStreamSynchronize(stream), "cuStreamSynchronize");
  std::vector<double> per_call;
  for (int done = 0; done < n;) {
    int c = std::min(kHostChunk, n - done);
    auto t = Clock::now();
    for (int i = 0; i < c; ++i) fn(stream);
    per_call.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t).count() / c);
    check_cuda(d.cuStreamSynchronize(stream), "cuStreamSynchronize");  // outside the timed part
    done += c;
  }
  return summarize(std::move(per_call)).median;
}

double raw_launch_overhead_us(int n, CUstream stream) {
  const DriverApi& d = require_driver("raw_launch_overhead_us");
  // Compiled and loaded once per process; leaked for the same reason as the flush buffer.
  static const LoadedKernel* empty = [] {
    const char* src = "extern \"C\" __global__ void solder_empty_kernel() {}\n";
    return new LoadedKernel(compile_cuda(src, "solder_empty_kernel", current_device().arch()));
  }();
  CUfunction f = empty->function();
  return host_overhead_us(
      [&](CUstream s) {
        check_cuda(d.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, nullptr, nullptr), "cuLaunchKernel",
                   "solder_empty_kernel");
      },
      n, stream);
}

ThrottleCheck::ThrottleCheck(size_t bytes, double tolerance) : bytes_(bytes), tolerance_(tolerance) {}

void ThrottleCheck::start(const TimingOptions& opts) { start_gbs_ = gbs(bytes_, time_copy(bytes_, opts).median); }

Drift ThrottleCheck::finish(const TimingOptions& opts) {
  if (start_gbs_ <= 0) throw Error("ThrottleCheck::finish called without start");
  double end_gbs = gbs(bytes_, time_copy(bytes_, opts).median);
  return judge_drift(start_gbs_, end_gbs, tolerance_, " GB/s");
}

}  // namespace solder::bench
