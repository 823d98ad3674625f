#include "schedule/tuning.h"

#include <cstdio>

namespace solder {

std::string Choice::str() const {
  if (threads_per_row)
    return "threads_per_row=" + std::to_string(threads_per_row) + (looped ? " looped" : prefetch ? " prefetch" : "");
  if (threads) return "threads=" + std::to_string(threads) + " unroll=" + std::to_string(unroll);
  return "heuristic";
}

std::vector<Choice> tuning_candidates(KernelCategory c, int64_t cols, int vec) {
  std::vector<Choice> out;
  if (c == KernelCategory::Inner) {
    int64_t nvec = (cols + vec - 1) / vec;
    for (int tpr = 32; tpr <= 1024; tpr *= 2) {
      int64_t batch = (nvec + tpr - 1) / tpr;
      if (batch <= 16 && (batch >= 1) && tpr <= nvec * 2)
        for (bool prefetch : {false, true}) out.push_back({tpr, false, prefetch, 0, 0});
    }
    // Looped rows: one row per block of 1024 threads, or 2-4 rows per SM in smaller blocks,
    // whose loads of the same weights can then hit L1 instead of L2 (W1 f32 H=65536 reads 1 MB
    // of f32 weights per row from L2; see perf-notes).
    for (int tpr : {256, 512, 1024}) out.push_back({tpr, true, false, 0, 0});
    return out;
  }
  for (int threads : {128, 256, 512})
    for (int unroll : {1, 2, 4}) out.push_back({0, false, false, threads, unroll});
  return out;
}

std::string tuning_key(uint64_t fusion_hash, int segment, KernelCategory c, int64_t cols, int vec) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%016llx/%d/%s/C=%lld/vec=%d", static_cast<unsigned long long>(fusion_hash), segment,
                kernel_category_name(c), static_cast<long long>(cols), vec);
  return buf;
}

}  // namespace solder
