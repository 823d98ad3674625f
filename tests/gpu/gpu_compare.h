#pragma once
// GPU-tier helpers: device views with chosen strides/misalignment, and comparison against the
// reference with a tolerance per dtype (NaN must match NaN; nothing may stay unwritten).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/device_memory.h"
#include "reference/parallel.h"
#include "runtime/driver.h"
#include "solder/executor.h"
#include "solder/host_tensor.h"
#include "programs/run_inputs.h"
#include "solder/reference.h"

namespace solder::gpu_testing {

#define SKIP_WITHOUT_GPU() \
  if (!::solder::has_gpu()) GTEST_SKIP() << "no GPU: " << ::solder::driver_unavailable_reason()

enum class Layout { Contiguous, Transposed, Sliced, Misaligned };

// Uploads `h` so that the device tensor has the same logical values but the requested layout.
inline DeviceTensor upload(const HostTensor& h, Layout layout) {
  const int r = h.rank();
  const int es = dtype_size(h.dtype);
  if (layout == Layout::Contiguous || r == 0) return to_device(h);
  if (layout == Layout::Misaligned) {
    // One element past a 256-byte aligned block: breaks every vector width.
    HostTensor c = h.contiguous();
    size_t bytes = static_cast<size_t>(c.numel() + 1) * es;
    auto buf = std::make_shared<DeviceBuffer>(bytes);
    check_cuda(driver()->cuMemcpyHtoD(buf->ptr() + es, c.data(), c.numel() * es), "upload");
    DeviceTensor d = to_device(h);
    d.ptr = buf->ptr() + es;
    d.owner = buf;
    return d;
  }
  std::vector<int64_t> big = h.shape;
  if (layout == Layout::Sliced) big.back() += 3;  // rows padded: row stride != row length
  if (layout == Layout::Transposed && r >= 2) std::swap(big[r - 1], big[r - 2]);
  HostTensor store = HostTensor::empty(h.dtype, big);
  HostTensor view = store;
  view.shape = h.shape;
  if (layout == Layout::Transposed && r >= 2) std::swap(view.strides[r - 1], view.strides[r - 2]);
  for (int64_t i = 0; i < h.numel(); ++i) view.set(i, h.get(i));
  DeviceTensor d = to_device(store);
  d.shape = view.shape;
  d.strides = view.strides;
  return d;
}

// " B=8192 H=1024": a case's sizes, for failure messages.
inline std::string sizes_text(const Bindings& b) {
  std::string s;
  for (const auto& [k, v] : b) s += " " + k + "=" + std::to_string(v);
  return s;
}

inline double tolerance(DType t) {
  switch (t) {
    case DType::F16: return 4e-3;
    case DType::BF16: return 2e-2;
    case DType::F8E4M3: return 0.13;
    case DType::F8E5M2: return 0.26;
    case DType::F32: return 2e-5;
    default: return 1e-9;
  }
}

// Fails the test with the first mismatches; returns the number of mismatching elements. The
// scans run on every core (outputs of up to 2^29 elements; one core took seconds of the
// device host's time per output), the mismatches reported are the first ones in order.
inline int64_t expect_close(const HostTensor& got, const HostTensor& want, const std::string& what) {
  EXPECT_EQ(got.shape, want.shape) << what;
  if (got.shape != want.shape) return -1;
  const bool dense_got = got.is_contiguous(), dense_want = want.is_contiguous();
  auto at = [&](const HostTensor& t, int64_t i) {
    return (&t == &got ? dense_got : dense_want) ? load_element(t.dtype, t.data() + i * dtype_size(t.dtype)) : t.get(i);
  };
  const double rtol = tolerance(want.dtype);
  // Reductions over long rows accumulate rounding: scale the absolute floor with the data.
  std::mutex mu;
  double scale = 0;
  ref::parallel_for(want.numel(), [&](int64_t begin, int64_t end) {
    double s = 0;
    for (int64_t i = begin; i < end; ++i)
      if (const double w = at(want, i); std::isfinite(w)) s = std::max(s, std::fabs(w));
    std::lock_guard<std::mutex> lock(mu);
    scale = std::max(scale, s);
  });
  const double atol = rtol * std::max(1.0, scale) * 0.05 + 1e-6;
  auto ok = [&](int64_t i) {
    const double g = at(got, i), w = at(want, i);
    return std::isnan(w) ? std::isnan(g) : (std::isinf(w) ? g == w : std::fabs(g - w) <= atol + rtol * std::fabs(w));
  };
  std::atomic<int64_t> bad{0};
  ref::parallel_for(want.numel(), [&](int64_t begin, int64_t end) {
    int64_t n = 0;
    for (int64_t i = begin; i < end; ++i) n += !ok(i);
    bad += n;
  });
  for (int64_t i = 0, shown = 0; i < want.numel() && shown < std::min<int64_t>(bad, 5); ++i)
    if (!ok(i)) {
      ADD_FAILURE() << what << ": element " << i << " got " << at(got, i) << " want " << at(want, i);
      ++shown;
    }
  return bad;
}

// An output buffer filled with 0xFF bytes: an element the kernel never writes reads as NaN (or
// an all-ones integer) and fails the comparison.
inline DeviceTensor poisoned_output(DType t, const std::vector<int64_t>& shape) {
  HostTensor h = HostTensor::empty(t, shape);
  std::memset(h.data(), 0xff, static_cast<size_t>(h.numel() * dtype_size(t)));
  return to_device(h);
}

inline bool same_bits(const HostTensor& a, const HostTensor& b) {
  return a.numel() == b.numel() && std::memcmp(a.data(), b.data(), static_cast<size_t>(a.numel() * dtype_size(a.dtype))) == 0;
}

struct CheckOptions {
  uint64_t seed = 11;
  std::string plan;  // ExecutorOptions::plan: pinned plans
  std::function<void(std::vector<HostTensor>&)> edit;  // changes the random inputs first (NaN/inf)
  // Replays must give the same bits. Not a full reduction's sums (float atomics across blocks).
  bool deterministic = true;
};

// Runs f three times against the reference: into poisoned outputs, then twice allocating its own
// (the cached launch program). Returns the launches' "name category params; ".
inline std::string check_against_reference(const Fusion& f, const std::vector<std::vector<int64_t>>& shapes, Layout layout,
                                           const std::string& what, const CheckOptions& o = {}) {
  std::vector<HostTensor> in = make_random_inputs(f, shapes, o.seed);
  if (o.edit) o.edit(in);
  std::vector<DeviceTensor> din;
  for (const auto& h : in) din.push_back(upload(h, layout));
  const auto want = run_reference(f, in);
  ExecutorOptions options;
  options.plan = o.plan;
  Executor ex(f, options);
  std::vector<DeviceTensor> outs;
  for (const auto& w : want) outs.push_back(poisoned_output(w.dtype, w.shape));
  ex.run(din, nullptr, &outs);
  std::vector<HostTensor> first;
  for (size_t i = 0; i < want.size(); ++i) {
    first.push_back(to_host(outs[i]));
    expect_close(first.back(), want[i], what + " output " + std::to_string(i));
  }
  for (int again = 0; again < 2; ++again) {
    auto got = ex.run(din);
    for (size_t i = 0; i < want.size(); ++i) {
      const HostTensor h = to_host(got[i]);
      expect_close(h, want[i], what + " (replay) output " + std::to_string(i));
      if (o.deterministic) EXPECT_TRUE(same_bits(h, first[i])) << what << " output " << i << ": a replay gave other bits";
    }
  }
  std::string launches;
  for (const LaunchRecord& r : ex.last_launches()) launches += r.name + " " + r.category + " " + r.params + "; ";
  return launches;
}

}  // namespace solder::gpu_testing
