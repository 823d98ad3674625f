#pragma once
// A short, comparable fingerprint of a tensor's contents: range, mean, sum and a hash of its
// bytes. `solder run` prints one per output, so two runs (or two backends) can be compared by
// eye or by diff.
#include <cstdint>
#include <string>

#include "solder/host_tensor.h"

namespace solder {

struct TensorSummary {
  int64_t numel = 0;
  double min = 0, max = 0, mean = 0, sum = 0;  // over the finite elements
  int64_t nan = 0, inf = 0;
  uint64_t fnv = 0;  // FNV-1a of the contiguous bytes
};

TensorSummary summarize(const HostTensor& t);
// "min=-1.5 max=2 mean=0.01 sum=12.25 fnv=0x..." (+ " nan=3 inf=1" when there are any).
std::string format_summary(const TensorSummary& s);

}  // namespace solder
