#pragma once
// Autotuning's vocabulary. A Choice pins the parameters the heuristics would pick (threads per
// row for inner kernels, threads and unroll for flat ones). `solder bench --autotune` times each
// candidate on the device and records the winner (pipeline/tuning_db.h); the compile driver
// hands a recorded choice to the scheduler (ScheduleContext::recorded) before its heuristics.
// The key is the fusion, segment, category, row length and vector width: what decides the best
// choice, not the batch size.
#include <optional>
#include <string>
#include <vector>

#include "schedule/kernel_plan.h"

namespace solder {

struct Choice {
  int threads_per_row = 0;  // inner: 0 = heuristic
  bool looped = false;      // inner: stream the row instead of holding it
  bool prefetch = false;    // inner, held rows: load the next row while this one reduces
  int threads = 0;          // flat: 0 = heuristic
  int unroll = 0;           // flat: 0 = heuristic
  std::string str() const;
};

// Candidates worth timing for a kernel with row length `cols` and vector width `vec`.
std::vector<Choice> tuning_candidates(KernelCategory c, int64_t cols, int vec);

std::string tuning_key(uint64_t fusion_hash, int segment, KernelCategory c, int64_t cols, int vec);

}  // namespace solder
