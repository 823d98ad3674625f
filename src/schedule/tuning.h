#pragma once
// Autotuning support. A Choice pins the parameters the heuristics would pick (threads per row
// for inner kernels, threads and unroll for flat ones). `solder bench --autotune` times each
// candidate on the device and records the winner in a small JSON database next to the kernel
// cache; the scheduler consults it before its heuristics. The key is the fusion, segment,
// category, row length and vector width: what decides the best choice, not the batch size.
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

// A process-wide forced choice (autotune sets it while timing a candidate).
void set_forced_choice(std::optional<Choice> c);
const std::optional<Choice>& forced_choice();

std::string tuning_key(uint64_t fusion_hash, int segment, KernelCategory c, int64_t cols, int vec);

class TuneDb {
 public:
  static TuneDb& global();  // file: <kernel cache dir>/tuning.json
  std::optional<Choice> find(const std::string& key) const;
  void record(const std::string& key, const Choice& c, double heuristic_us, double best_us);
  size_t size() const;

 private:
  TuneDb();
  struct Impl;
  Impl* impl_;
};

}  // namespace solder
