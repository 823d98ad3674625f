#include "frontend/tensor_summary.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace solder {

TensorSummary summarize(const HostTensor& t) {
  TensorSummary s;
  HostTensor c = t.contiguous();
  s.numel = c.numel();
  s.min = std::numeric_limits<double>::infinity();
  s.max = -s.min;
  int64_t finite = 0;
  for (int64_t i = 0; i < s.numel; ++i) {
    double v = c.get(i);
    if (std::isnan(v)) {
      ++s.nan;
    } else if (std::isinf(v)) {
      ++s.inf;
    } else {
      ++finite;
      s.sum += v;
      s.min = std::min(s.min, v);
      s.max = std::max(s.max, v);
    }
  }
  if (finite == 0) s.min = s.max = 0;
  s.mean = finite ? s.sum / static_cast<double>(finite) : 0;
  uint64_t h = 1469598103934665603ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(c.data());
  for (int64_t i = 0, n = s.numel * dtype_size(c.dtype); i < n; ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  s.fnv = h;
  return s;
}

std::string format_summary(const TensorSummary& s) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "min=%.6g max=%.6g mean=%.6g sum=%.17g fnv=0x%016llx", s.min, s.max, s.mean, s.sum,
                static_cast<unsigned long long>(s.fnv));
  std::string r = buf;
  if (s.nan) r += " nan=" + std::to_string(s.nan);
  if (s.inf) r += " inf=" + std::to_string(s.inf);
  return r;
}

}  // namespace solder
